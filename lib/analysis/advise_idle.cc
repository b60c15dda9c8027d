// Rules on the GPU's idle gaps, each taking the gaps attributed to it
// (Context::AttributeGaps): long gaps while the CPU did other work, short gaps in
// windows of low utilization, gaps after synchronizing calls, after small
// device-to-host reads, and between tiny kernels (launch-bound).
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "lib/analysis/advise_rules.h"
#include "lib/analysis/summary.h"

namespace cuscope::analysis::advise {
namespace {

using model::Finding;
using model::GainBasis;

// A part of a gap: [start, end).
struct Span {
  uint64_t start_ns, end_ns;
  uint32_t api;  // the blocking call of the gap (for the sync rules)
  uint64_t length() const { return end_ns - start_ns; }
};

// The rests of the gaps of `cause` (the part after a blocking call's share) that begin
// in the phase.
std::vector<Span> RestsOf(const Context& c, GapCause cause) {
  std::vector<Span> out;
  for (const Gap& g : c.gaps) {
    if (g.cause == cause && g.rest() > 0 && c.InPhase(g.start_ns))
      out.push_back({g.start_ns + g.blocked_ns, g.end_ns, g.api});
  }
  return out;
}

// The blocking calls' shares, of gaps that begin in the phase: of small reads
// (`small_read`) or of the others.
std::vector<Span> BlockedOf(const Context& c, bool small_read) {
  std::vector<Span> out;
  for (const Gap& g : c.gaps) {
    if (g.blocked_ns > 0 && g.small_read == small_read && c.InPhase(g.start_ns)) {
      out.push_back({g.start_ns, g.start_ns + g.blocked_ns, g.api});
    }
  }
  return out;
}

const Span* Longest(const std::vector<Span>& spans) {
  const Span* best = nullptr;
  for (const Span& s : spans) {
    if (best == nullptr || s.length() > best->length()) best = &s;
  }
  return best;
}

uint64_t Total(const std::vector<Span>& spans) {
  uint64_t sum = 0;
  for (const Span& s : spans) sum += s.length();
  return sum;
}

// What the CPU did during `gaps` (in time order): CUDA time per API name, the time
// covered by any call (per gap, at most its length) and the thread of the top call.
struct CpuDuring {
  uint64_t covered_ns = 0;
  model::StringId top_name = model::kEmptyString;
  uint64_t top_ns = 0;
  uint32_t top_thread = model::kNoId;
};

CpuDuring CpuActivity(const Context& c, const std::vector<Span>& gaps) {
  CpuDuring out;
  if (gaps.empty()) return out;
  std::vector<uint64_t> covered(gaps.size(), 0);
  absl::flat_hash_map<model::StringId, std::pair<uint64_t, uint32_t>> by_name;
  for (const model::ApiRecord& a : c.profile.api_calls) {
    if (!HasValidTimes(a)) continue;
    auto it = std::upper_bound(gaps.begin(), gaps.end(), a.start_ns,
                               [](uint64_t t, const Span& g) { return t < g.end_ns; });
    for (; it != gaps.end() && it->start_ns < a.end_ns; ++it) {
      const uint64_t lo = std::max(a.start_ns, it->start_ns);
      const uint64_t hi = std::min(a.end_ns, it->end_ns);
      if (hi <= lo) continue;
      covered[it - gaps.begin()] += hi - lo;
      auto& [ns, thread] = by_name[a.name];
      ns += hi - lo;
      thread = a.thread_id;
    }
  }
  for (size_t i = 0; i < gaps.size(); ++i) {
    out.covered_ns += std::min(covered[i], gaps[i].length());
  }
  for (const auto& [name, v] : by_name) {
    if (v.first > out.top_ns || (v.first == out.top_ns && name < out.top_name)) {
      out.top_name = name;
      out.top_ns = v.first;
      out.top_thread = v.second;
    }
  }
  return out;
}

void Locate(const Context& c, const Span& g, uint32_t thread, Finding& f) {
  f.start_ns = g.start_ns;
  f.end_ns = g.end_ns;
  f.thread_id = thread;
  f.region = c.RegionAt(g.start_ns + g.length() / 2, thread);
}

}  // namespace

void IdleGaps(const Context& c, std::vector<Finding>& out) {
  const std::vector<Span> gaps = RestsOf(c, GapCause::kHost);
  const uint64_t idle = Total(gaps);
  Finding f = c.Make("gpu_idle_gaps", static_cast<double>(idle), GainBasis::kWall);
  if (gaps.empty() || !c.Keeps(f)) return;
  const Span& longest = *Longest(gaps);
  const CpuDuring cpu = CpuActivity(c, gaps);
  const double cuda_share = 100.0 * static_cast<double>(cpu.covered_ns) / static_cast<double>(idle);
  const double top_share = 100.0 * static_cast<double>(cpu.top_ns) / static_cast<double>(idle);
  std::vector<double> lengths;
  for (const Span& g : gaps) lengths.push_back(static_cast<double>(g.length()));
  f.summary = absl::StrFormat(
      "GPU idle %s (%s of the run) in %d gaps of %s or more (longest %s); the CPU was in CUDA "
      "calls %s of that time%s",
      Dur(static_cast<double>(idle)), Pct(f.gain_pct), gaps.size(), Dur(c.t.min_gap_us * 1e3),
      Dur(static_cast<double>(longest.length())), Pct(cuda_share),
      top_share >= 1
          ? absl::StrFormat(", most in %s (%s)", c.profile.str(cpu.top_name), Pct(top_share))
          : "");
  f.advice = cuda_share < 50
                 ? "The CPU was busy outside CUDA while the GPU waited (data loading, Python, host "
                   "preprocessing): overlap that work with the GPU's (DataLoader workers with "
                   "pin_memory, prefetching, a second stream) or queue more GPU work ahead of it."
                 : absl::StrFormat(
                       "The CPU spent the gaps in %s: take it out of the loop (allocate and load "
                       "once, reuse buffers) or overlap it with GPU work.",
                       c.profile.str(cpu.top_name));
  f.evidence = {{"gaps", static_cast<double>(gaps.size())},
                {"idle_ns", static_cast<double>(idle)},
                {"longest_gap_ns", static_cast<double>(longest.length())},
                {"median_gap_ns", Median(std::move(lengths))},
                {"cuda_call_share_pct", cuda_share},
                {"top_call_share_pct", top_share}};
  Locate(c, longest, cpu.top_thread, f);
  out.push_back(std::move(f));
}

void LowUtilization(const Context& c, std::vector<Finding>& out) {
  // The phase's part of the GPU's span.
  const uint64_t first = std::max(c.first_busy_ns, c.PhaseFrom());
  const uint64_t last = std::min(c.last_busy_ns, c.PhaseTo());
  if (c.busy.empty() || last <= first) return;
  const uint64_t span = last - first;
  // At most 100,000 windows, whatever the setting.
  const uint64_t window =
      std::max<uint64_t>({static_cast<uint64_t>(c.t.util_window_ms * 1e6), span / 100000 + 1, 1});
  const size_t n = static_cast<size_t>((span + window - 1) / window);
  std::vector<uint64_t> busy(n, 0), short_idle(n, 0), short_gaps(n, 0);
  auto spread = [&](uint64_t lo, uint64_t hi, std::vector<uint64_t>& into) {
    for (uint64_t t = lo; t < hi;) {
      const size_t w = std::min(n - 1, static_cast<size_t>((t - first) / window));
      const uint64_t w_end = first + (w + 1) * window;
      const uint64_t e = std::min(hi, std::max(w_end, t + 1));
      into[w] += e - t;
      t = e;
    }
  };
  for (const auto& [lo, hi] : c.busy) {
    if (hi > first && lo < last) spread(std::max(lo, first), std::min(hi, last), busy);
  }
  for (const Span& g : RestsOf(c, GapCause::kShort)) {
    if (g.end_ns <= first || g.start_ns >= last) continue;
    spread(std::max(g.start_ns, first), std::min(g.end_ns, last), short_idle);
    ++short_gaps[std::min(n - 1, static_cast<size_t>((g.start_ns - first) / window))];
  }
  uint64_t gain = 0, low = 0, low_busy = 0, low_len = 0, gap_count = 0;
  size_t worst = 0;
  for (size_t w = 0; w < n; ++w) {
    const uint64_t len = std::min(window, span - w * window);
    if (100.0 * static_cast<double>(busy[w]) >= c.t.low_util_pct * static_cast<double>(len)) {
      continue;
    }
    ++low;
    low_busy += busy[w];
    low_len += len;
    gain += short_idle[w];
    gap_count += short_gaps[w];
    if (short_idle[w] > short_idle[worst]) worst = w;
  }
  Finding f = c.Make("low_gpu_utilization", static_cast<double>(gain), GainBasis::kWall);
  if (low == 0 || !c.Keeps(f)) return;
  const double busy_pct = 100.0 * static_cast<double>(low_busy) / static_cast<double>(low_len);
  f.summary = absl::StrFormat(
      "GPU busy %s in %d of %d windows of %s; there it idled %s in %d gaps shorter than %s",
      Pct(busy_pct), low, n, Dur(static_cast<double>(window)), Dur(static_cast<double>(gain)),
      gap_count, Dur(c.t.min_gap_us * 1e3));
  f.advice =
      "The GPU waits between launches for the CPU to issue work: do more per launch (larger "
      "batches, fused operations), make the host loop cheaper, or capture it in a CUDA graph "
      "(torch.compile).";
  f.evidence = {{"windows", static_cast<double>(n)},
                {"low_windows", static_cast<double>(low)},
                {"window_ns", static_cast<double>(window)},
                {"busy_pct_in_low_windows", busy_pct},
                {"short_gaps", static_cast<double>(gap_count)},
                {"short_idle_ns", static_cast<double>(gain)}};
  f.start_ns = first + worst * window;
  f.end_ns = std::min(last, f.start_ns + window);
  f.region = c.RegionAt(f.start_ns + (f.end_ns - f.start_ns) / 2, model::kNoId);
  out.push_back(std::move(f));
}

void SyncStalls(const Context& c, std::vector<Finding>& out) {
  struct PerName {
    std::vector<Span> waits;
    uint64_t calls = 0, blocked_ns = 0;
    ApiKind kind = ApiKind::kSync;
  };
  absl::flat_hash_map<model::StringId, PerName> by_name;
  for (const Span& s : BlockedOf(c, false)) {
    by_name[c.profile.api_calls[s.api].name].waits.push_back(s);
  }
  if (by_name.empty()) return;
  for (const model::ApiRecord& a : c.profile.api_calls) {
    auto it = by_name.find(a.name);
    if (it == by_name.end() || !HasValidTimes(a) || !c.InPhase(a.start_ns)) continue;
    ++it->second.calls;
    it->second.blocked_ns += a.duration_ns();
    it->second.kind = c.KindOf(a);
  }
  for (const auto& [name, s] : by_name) {
    const uint64_t idle = Total(s.waits);
    Finding f = c.Make("sync_stalls", static_cast<double>(idle), GainBasis::kWall);
    if (!c.Keeps(f)) continue;
    const Span& longest = *Longest(s.waits);
    f.summary = absl::StrFormat(
        "%d %s calls blocked the CPU for %s; after %d of them the GPU sat idle waiting for the "
        "CPU, which not waiting would have cut by %s (%s of the run)",
        s.calls, c.profile.str(name), Dur(static_cast<double>(s.blocked_ns)), s.waits.size(),
        Dur(static_cast<double>(idle)), Pct(f.gain_pct));
    f.advice =
        s.kind == ApiKind::kSyncCopy
            ? "A synchronous copy waits for all prior work and then leaves the GPU empty: use "
              "cudaMemcpyAsync from pinned memory on a stream and wait only where the host "
              "needs the data."
            : "Each wait drains the GPU's queue before the next launch: drop synchronizations "
              "the host does not need, wait on an event only where it needs a result, and "
              "queue the next work before waiting.";
    f.evidence = {{"calls", static_cast<double>(s.calls)},
                  {"blocked_ns", static_cast<double>(s.blocked_ns)},
                  {"waits_followed_by_idle", static_cast<double>(s.waits.size())},
                  {"idle_saved_ns", static_cast<double>(idle)}};
    Locate(c, longest, c.profile.api_calls[longest.api].thread_id, f);
    out.push_back(std::move(f));
  }
}

void SmallReads(const Context& c, std::vector<Finding>& out) {
  const std::vector<Span> gaps = BlockedOf(c, true);
  if (gaps.empty() || static_cast<int64_t>(gaps.size()) < c.t.min_repeats) return;
  const uint64_t idle = Total(gaps);
  Finding f = c.Make("small_dtoh_reads", static_cast<double>(idle), GainBasis::kWall);
  if (!c.Keeps(f)) return;
  uint64_t reads = 0, bytes = 0;
  for (const model::MemcpyRecord& m : c.profile.memcpys) {
    if (m.kind == model::MemcpyKind::kDtoH && m.bytes <= c.t.small_copy_bytes &&
        c.InPhase(m.start_ns)) {
      ++reads;
      bytes += m.bytes;
    }
  }
  const Span& longest = *Longest(gaps);
  const uint32_t thread = c.profile.api_calls[longest.api].thread_id;
  f.summary = absl::StrFormat(
      "%d small device-to-host reads (%d bytes or less, %.0f on average); %d were waited on "
      "and then left the GPU idle, which not waiting would have cut by %s (%s of the run)",
      reads, c.t.small_copy_bytes, reads > 0 ? static_cast<double>(bytes) / reads : 0.0,
      gaps.size(), Dur(static_cast<double>(idle)), Pct(f.gain_pct));
  f.advice =
      "Each read of a GPU value on the host (.item(), .cpu(), printing a tensor, a Python "
      "branch on it) waits for the GPU and then starves it: keep values on the GPU, "
      "accumulate there and read once every N steps, or copy to pinned memory with "
      "non_blocking=True.";
  f.evidence = {{"reads", static_cast<double>(reads)},
                {"waited_reads", static_cast<double>(gaps.size())},
                {"bytes", static_cast<double>(bytes)},
                {"idle_saved_ns", static_cast<double>(idle)}};
  Locate(c, longest, thread, f);
  out.push_back(std::move(f));
}

void LaunchBound(const Context& c, std::vector<Finding>& out) {
  const double launch_ns = c.t.launch_us * 1e3;
  std::vector<double> tiny_ns;
  absl::flat_hash_map<uint32_t, uint64_t> per_stream;
  uint64_t first = 0, last = 0, kernels = 0;
  for (const model::KernelRecord& k : c.profile.kernels) {
    if (!c.InPhase(k.start_ns)) continue;
    ++kernels;
    if (!HasValidTimes(k) || k.graph_id != 0 || static_cast<double>(k.duration_ns()) >= launch_ns) {
      continue;
    }
    tiny_ns.push_back(static_cast<double>(k.duration_ns()));
    ++per_stream[k.stream_id];
    first = first == 0 ? k.start_ns : std::min(first, k.start_ns);
    last = std::max(last, k.end_ns);
  }
  if (static_cast<int64_t>(tiny_ns.size()) < c.t.min_tiny_kernels) return;
  const std::vector<Span> gaps = RestsOf(c, GapCause::kLaunch);
  const uint64_t idle = Total(gaps);
  Finding f = c.Make("launch_bound", static_cast<double>(idle), GainBasis::kWall);
  if (!c.Keeps(f)) return;
  std::vector<double> launch_calls;
  for (const model::ApiRecord& a : c.profile.api_calls) {
    if (c.KindOf(a) == ApiKind::kLaunch && HasValidTimes(a) && c.InPhase(a.start_ns)) {
      launch_calls.push_back(static_cast<double>(a.duration_ns()));
    }
  }
  const size_t tiny = tiny_ns.size();
  const double share = 100.0 * static_cast<double>(tiny) / static_cast<double>(kernels);
  const double median_tiny = Median(std::move(tiny_ns));
  const double median_launch = Median(std::move(launch_calls));
  f.summary = absl::StrFormat(
      "%d kernels (%s) ran shorter than %s (median %s) and the GPU idled %s between them "
      "waiting for launches (median launch call %s)",
      tiny, Pct(share), Dur(launch_ns), Dur(median_tiny), Dur(static_cast<double>(idle)),
      Dur(median_launch));
  f.advice =
      "Launch overhead dominates: capture the sequence in a CUDA graph (torch.compile "
      "mode=\"reduce-overhead\", torch.cuda.graphs), fuse small kernels (torch.compile, a "
      "fused kernel), or give each kernel more work.";
  f.evidence = {{"tiny_kernels", static_cast<double>(tiny)},
                {"tiny_pct_of_kernels", share},
                {"median_tiny_ns", median_tiny},
                {"idle_gaps", static_cast<double>(gaps.size())},
                {"idle_ns", static_cast<double>(idle)},
                {"median_launch_call_ns", median_launch}};
  f.start_ns = first;
  f.end_ns = last;
  uint64_t most = 0;
  for (const auto& [stream, n] : per_stream) {
    if (n > most || (n == most && stream < f.stream_id)) {
      most = n;
      f.stream_id = stream;
    }
  }
  out.push_back(std::move(f));
}

}  // namespace cuscope::analysis::advise
