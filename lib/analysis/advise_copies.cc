// Rules on memory operations: copies from or to pageable host memory (against the
// bandwidth of pinned copies), and copies and memsets on the default stream of a
// context whose work is spread over several streams.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "lib/analysis/advise_rules.h"
#include "lib/analysis/summary.h"

namespace cuscope::analysis::advise {
namespace {

bool Pageable(const model::MemcpyRecord& m) {
  return m.src_kind == model::MemoryKind::kPageable || m.dst_kind == model::MemoryKind::kPageable;
}
bool Pinned(const model::MemcpyRecord& m) {
  return m.src_kind == model::MemoryKind::kPinned || m.dst_kind == model::MemoryKind::kPinned;
}

// Bytes per ns (= GB/s) of pinned copies of `kind` of 1 MiB or more (median), or 0.
double MeasuredPinned(const model::Profile& p, model::MemcpyKind kind) {
  std::vector<double> rates;
  for (const model::MemcpyRecord& m : p.memcpys) {
    if (m.kind == kind && Pinned(m) && m.bytes >= (1u << 20) && HasValidTimes(m) &&
        m.duration_ns() > 0) {
      rates.push_back(static_cast<double>(m.bytes) / static_cast<double>(m.duration_ns()));
    }
  }
  return Median(std::move(rates));
}

void PageableOf(const Context& c, model::MemcpyKind kind, std::vector<model::Finding>& out) {
  const double measured = MeasuredPinned(c.profile, kind);
  const double pinned = measured > 0 ? measured : c.t.pinned_gbps;
  if (pinned <= 0) return;
  uint64_t copies = 0, bytes = 0, time = 0;
  double gain = 0;
  const model::MemcpyRecord* largest = nullptr;
  for (const model::MemcpyRecord& m : c.profile.memcpys) {
    if (m.kind != kind || !Pageable(m) || !HasValidTimes(m) || !c.InPhase(m.start_ns)) continue;
    ++copies;
    bytes += m.bytes;
    time += m.duration_ns();
    gain +=
        std::max(0.0, static_cast<double>(m.duration_ns()) - static_cast<double>(m.bytes) / pinned);
    if (largest == nullptr || m.bytes > largest->bytes) largest = &m;
  }
  model::Finding f = c.Make("pageable_copies", gain, model::GainBasis::kWall);
  if (copies == 0 || !c.Keeps(f)) return;
  const double achieved = time > 0 ? static_cast<double>(bytes) / static_cast<double>(time) : 0;
  const bool htod = kind == model::MemcpyKind::kHtoD;
  f.summary = absl::StrFormat(
      "%.0f MB copied %s pageable memory in %d copies at %s (%s); at %s (%s) they would take %s",
      static_cast<double>(bytes) / 1e6, htod ? "to the GPU from" : "from the GPU to", copies,
      Gbps(achieved), Dur(static_cast<double>(time)), Gbps(pinned),
      measured > 0 ? "pinned copies here" : "assumed for pinned memory",
      Dur(static_cast<double>(bytes) / pinned));
  f.advice =
      "Pageable memory is staged through a driver buffer and copied synchronously: allocate "
      "the host side pinned (cudaMallocHost, cudaHostRegister, tensor.pin_memory(), "
      "DataLoader(pin_memory=True)) and copy with cudaMemcpyAsync / non_blocking=True.";
  f.evidence = {{"copies", static_cast<double>(copies)},
                {"bytes", static_cast<double>(bytes)},
                {"time_ns", static_cast<double>(time)},
                {"achieved_gbps", achieved},
                {"pinned_gbps", pinned},
                {"pinned_measured", measured > 0 ? 1.0 : 0.0}};
  f.start_ns = largest->start_ns;
  f.end_ns = largest->end_ns;
  f.device_id = largest->device_id;
  f.stream_id = largest->stream_id;
  f.thread_id = c.ThreadOf(largest->correlation_id);
  f.region = c.RegionAt(largest->start_ns, model::kNoId);
  out.push_back(std::move(f));
}

}  // namespace

void PageableCopies(const Context& c, std::vector<model::Finding>& out) {
  PageableOf(c, model::MemcpyKind::kHtoD, out);
  PageableOf(c, model::MemcpyKind::kDtoH, out);
}

void DefaultStream(const Context& c, std::vector<model::Finding>& out) {
  // Per context: its streams with work and the span of each.
  std::map<uint32_t, std::map<uint32_t, std::pair<uint64_t, uint64_t>>> spans;
  auto add = [&](uint32_t ctx, uint32_t stream, uint64_t lo, uint64_t hi) {
    auto [it, fresh] = spans[ctx].try_emplace(stream, lo, hi);
    if (!fresh) it->second = {std::min(it->second.first, lo), std::max(it->second.second, hi)};
  };
  for (const auto& k : c.profile.kernels) {
    if (HasValidTimes(k)) add(k.context_id, k.stream_id, k.start_ns, k.end_ns);
  }
  for (const auto& m : c.profile.memcpys) {
    if (HasValidTimes(m)) add(m.context_id, m.stream_id, m.start_ns, m.end_ns);
  }
  for (const auto& m : c.profile.memsets) {
    if (HasValidTimes(m)) add(m.context_id, m.stream_id, m.start_ns, m.end_ns);
  }
  for (const auto& entry : spans) {
    // Not a structured binding: clang 14 (the fuzz build) refuses capturing one.
    const uint32_t ctx = entry.first;
    const auto& streams = entry.second;
    if (streams.size() < 2) continue;
    // CUPTI numbers a context's NULL stream before the streams the program creates.
    const uint32_t def = streams.begin()->first;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto& [stream, span] : streams) {
      if (stream == def) continue;
      lo = std::min(lo, span.first);
      hi = std::max(hi, span.second);
    }
    uint64_t ops = 0, copies = 0, time = 0, first = 0, last = 0, device = 0;
    auto take = [&](uint32_t op_ctx, uint32_t stream, uint64_t s, uint64_t e, uint32_t dev) {
      if (op_ctx != ctx || stream != def || s < lo || e > hi) return false;
      ++ops;
      time += e - s;
      first = first == 0 ? s : std::min(first, s);
      last = std::max(last, e);
      device = dev;
      return true;
    };
    for (const auto& m : c.profile.memcpys) {
      if (HasValidTimes(m) && !Pageable(m) &&
          take(m.context_id, m.stream_id, m.start_ns, m.end_ns, m.device_id)) {
        ++copies;
      }
    }
    for (const auto& m : c.profile.memsets) {
      if (HasValidTimes(m)) take(m.context_id, m.stream_id, m.start_ns, m.end_ns, m.device_id);
    }
    model::Finding f = c.Make("default_stream", static_cast<double>(time), model::GainBasis::kWall);
    if (ops == 0 || !c.Keeps(f)) continue;
    f.summary = absl::StrFormat(
        "%d memory operations (%d copies, %d memsets) on the default stream (%d) took %s while "
        "%d other streams had work: the legacy default stream waits for every stream, and "
        "they for it",
        ops, copies, ops - copies, def, Dur(static_cast<double>(time)), streams.size() - 1);
    f.advice =
        "Issue them on the program's own streams (cudaMemcpyAsync / cudaMemsetAsync with a "
        "stream created with cudaStreamNonBlocking), or compile with --default-stream "
        "per-thread.";
    f.evidence = {{"operations", static_cast<double>(ops)},
                  {"copies", static_cast<double>(copies)},
                  {"memsets", static_cast<double>(ops - copies)},
                  {"time_ns", static_cast<double>(time)},
                  {"other_streams", static_cast<double>(streams.size() - 1)}};
    f.start_ns = first;
    f.end_ns = last;
    f.stream_id = def;
    f.device_id = static_cast<uint32_t>(device);
    out.push_back(std::move(f));
  }
}

}  // namespace cuscope::analysis::advise
