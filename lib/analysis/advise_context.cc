#include "lib/analysis/advise_context.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/analysis/summary.h"

namespace cuscope::analysis::advise {
namespace {

// A GPU operation on the timeline: its span and what the attribution needs of it.
struct Op {
  uint64_t start, end;
  bool tiny_kernel;  // a kernel shorter than launch_us, not launched from a graph
  bool small_dtoh;   // a device-to-host copy of at most small_copy_bytes
};

// A merged busy interval: its span, whether its first op is a tiny kernel and
// whether the op that ends it is a small device-to-host copy.
struct Busy {
  uint64_t start, end;
  bool first_tiny, last_small_dtoh;
};

std::vector<Busy> MergeBusy(std::vector<Op> ops) {
  std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
  std::vector<Busy> out;
  for (const Op& o : ops) {
    if (out.empty() || o.start > out.back().end) {
      out.push_back({o.start, o.end, o.tiny_kernel, o.small_dtoh});
    } else if (o.end >= out.back().end) {
      out.back().end = o.end;
      out.back().last_small_dtoh = o.small_dtoh;
    }
  }
  return out;
}

// The profiler's own time is not the program's (own_time.h): the time cuscope held
// the program (kernel replays, counter windows, callbacks) and CUPTI's overheads on a
// thread that made CUDA calls. CUPTI's flushes on the profiler's own thread are left
// out: the program may really be idle meanwhile. Added as busy time inside the span of
// the GPU's own operations (`ops`), so that they never widen it: no idle gap of the
// program's overlaps it.
void AddProfilerTime(const OwnTime& own, std::vector<Op>& ops) {
  if (own.held().empty() || ops.empty()) return;
  uint64_t lo = ops.front().start, hi = ops.front().end;
  for (const Op& op : ops) {
    lo = std::min(lo, op.start);
    hi = std::max(hi, op.end);
  }
  for (const auto& [start, end] : own.held()) {
    if (end <= lo || start >= hi) continue;
    ops.push_back({std::max(start, lo), std::min(end, hi), false, false});
  }
}

}  // namespace

ApiKind KindOfApi(const std::string& name) {
  static const char* const kSyncs[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize",
                                       "cudaEventSynchronize",  "cudaThreadSynchronize",
                                       "cuCtxSynchronize",      "cuStreamSynchronize",
                                       "cuEventSynchronize"};
  static const char* const kSyncCopies[] = {
      "cudaMemcpy",           "cudaMemcpy2D",   "cudaMemcpy3D", "cudaMemcpyToSymbol",
      "cudaMemcpyFromSymbol", "cudaMemcpyPeer", "cuMemcpy",     "cuMemcpyDtoH",
      "cuMemcpyHtoD",         "cuMemcpyDtoD",   "cuMemcpy2D",   "cuMemcpy3D",
      "cuMemcpyPeer"};
  for (const char* s : kSyncs) {
    if (name == s) return ApiKind::kSync;
  }
  for (const char* s : kSyncCopies) {
    if (name == s) return ApiKind::kSyncCopy;
  }
  if (absl::StartsWith(name, "cuLibraryLoad") || absl::StartsWith(name, "cuModuleLoad")) {
    return ApiKind::kModuleLoad;
  }
  if (absl::StrContains(name, "LaunchKernel") || name == "cuLaunchKernelEx" ||
      name == "cudaGraphLaunch" || name == "cuGraphLaunch") {
    return ApiKind::kLaunch;
  }
  return ApiKind::kOther;
}

Context::Context(const model::Profile& p, const model::AdviseThresholds& thresholds)
    : profile(p), t(thresholds), apis(p), own(p), steps(StepsOf(p)) {
  if (p.run.start_ns != 0 && p.run.end_ns > p.run.start_ns) {
    wall_ns = p.run.end_ns - p.run.start_ns;
  } else {
    const auto [lo, hi] = p.TimeSpan();
    wall_ns = hi > lo ? hi - lo : 0;
  }
  api_kind_by_name.resize(p.strings.size(), ApiKind::kOther);
  std::vector<uint8_t> seen(p.strings.size(), 0);
  for (const model::ApiRecord& a : p.api_calls) {
    if (a.name < seen.size() && !seen[a.name]) {
      seen[a.name] = 1;
      api_kind_by_name[a.name] = KindOfApi(p.str(a.name));
    }
  }

  const double launch_ns = t.launch_us * 1e3;
  std::vector<Op> ops;
  ops.reserve(p.kernels.size() + p.memcpys.size() + p.memsets.size());
  const std::vector<uint8_t> timed = KernelTimeMask(p);
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const model::KernelRecord& k = p.kernels[i];
    if (!HasValidTimes(k)) continue;
    if (timed[i]) kernel_ns += k.duration_ns();
    ops.push_back({k.start_ns, k.end_ns,
                   k.graph_id == 0 && static_cast<double>(k.duration_ns()) < launch_ns, false});
  }
  // The launch calls of kernels measured with counters hold the replay passes: that
  // time is cuscope's, not the program's, so it counts as busy (no gap to advise on).
  for (const model::KernelRecord& k : p.kernels) {
    const uint32_t a = (k.flags & model::kKernelCountersMeasured) ? apis.Find(k.correlation_id)
                                                                  : ApiByCorrelation::kNone;
    if (a != ApiByCorrelation::kNone && HasValidTimes(p.api_calls[a])) {
      ops.push_back({p.api_calls[a].start_ns, p.api_calls[a].end_ns, false, false});
    }
  }
  for (const model::MemcpyRecord& m : p.memcpys) {
    if (!HasValidTimes(m)) continue;
    ops.push_back({m.start_ns, m.end_ns, false,
                   m.kind == model::MemcpyKind::kDtoH && m.bytes <= t.small_copy_bytes});
  }
  for (const model::MemsetRecord& m : p.memsets) {
    if (HasValidTimes(m)) ops.push_back({m.start_ns, m.end_ns, false, false});
  }
  AddProfilerTime(own, ops);
  std::vector<Busy> merged = MergeBusy(std::move(ops));
  if (merged.empty()) return;
  first_busy_ns = merged.front().start;
  last_busy_ns = merged.back().end;
  busy.reserve(merged.size());
  for (size_t i = 0; i < merged.size(); ++i) {
    busy.emplace_back(merged[i].start, merged[i].end);
    busy_ns += merged[i].end - merged[i].start;
    if (i + 1 == merged.size()) break;
    Gap g;
    g.start_ns = merged[i].end;
    g.end_ns = merged[i + 1].start;
    // From the GPU side; AttributeGaps adds the CPU side.
    g.small_read = merged[i].last_small_dtoh;
    g.cause = merged[i + 1].first_tiny ? GapCause::kLaunch : GapCause::kShort;
    gaps.push_back(g);
  }
}

void Context::AttributeGaps(uint64_t first_start, uint64_t first_end) {
  // Blocking calls (synchronizations, synchronous copies) by end time.
  std::vector<std::pair<uint64_t, uint32_t>> blocking;
  for (uint32_t i = 0; i < profile.api_calls.size(); ++i) {
    const model::ApiRecord& a = profile.api_calls[i];
    const ApiKind kind = KindOf(a);
    if ((kind == ApiKind::kSync || kind == ApiKind::kSyncCopy) && HasValidTimes(a)) {
      blocking.emplace_back(a.end_ns, i);
    }
  }
  std::sort(blocking.begin(), blocking.end());
  // The part of a gap inside the first instance belongs to first_iteration: a gap that
  // crosses its start or end is cut there (each idle nanosecond counted once).
  if (first_end > first_start) {
    std::vector<Gap> cut;
    cut.reserve(gaps.size());
    for (const Gap& g : gaps) {
      if (g.end_ns <= first_start || g.start_ns >= first_end ||
          (g.start_ns >= first_start && g.end_ns <= first_end)) {
        cut.push_back(g);
        continue;
      }
      Gap inside = g;
      inside.start_ns = std::max(g.start_ns, first_start);
      inside.end_ns = std::min(g.end_ns, first_end);
      // What the GPU did at the gap's start (a small read) stays with the piece that
      // starts there, what it did at its end (a tiny kernel) with the piece that ends there.
      if (g.start_ns < first_start) {
        Gap before = g;
        before.end_ns = first_start;
        before.cause = GapCause::kShort;
        cut.push_back(before);
      }
      cut.push_back(inside);
      if (g.end_ns > first_end) {
        Gap after = g;
        after.start_ns = first_end;
        after.small_read = false;
        cut.push_back(after);
      }
    }
    gaps = std::move(cut);
  }
  const double min_gap_ns = t.min_gap_us * 1e3;
  for (Gap& g : gaps) {
    if (first_end > first_start && g.start_ns >= first_start && g.end_ns <= first_end) {
      g.cause = GapCause::kFirstIteration;
      g.small_read = false;
      continue;
    }
    // The last blocking call that returned inside the gap, if any: the CPU waited for
    // the GPU, and the GPU then waited for the CPU.
    auto it =
        std::lower_bound(blocking.begin(), blocking.end(), std::make_pair(g.end_ns, uint32_t{0}));
    if (it != blocking.begin() && std::prev(it)->first >= g.start_ns) {
      g.api = std::prev(it)->second;
      g.blocked_ns = std::min(g.length(), profile.api_calls[g.api].duration_ns());
    } else {
      g.small_read = false;  // no call waited on the read
    }
    if (static_cast<double>(g.rest()) >= min_gap_ns) g.cause = GapCause::kHost;
  }
}

model::Finding Context::Make(const char* rule, double gain_ns, model::GainBasis basis) const {
  model::Finding f;
  f.rule = rule;
  f.basis = basis;
  f.gain_ns = std::max(0.0, gain_ns);
  const double base = basis == model::GainBasis::kGpu ? static_cast<double>(kernel_ns)
                                                      : static_cast<double>(wall_ns);
  f.gain_pct = base > 0 ? std::min(100.0, 100.0 * f.gain_ns / base) : 0;
  f.severity = f.gain_pct >= t.high_pct     ? model::Severity::kHigh
               : f.gain_pct >= t.medium_pct ? model::Severity::kMedium
                                            : model::Severity::kLow;
  return f;
}

std::string Context::RegionAt(uint64_t t_ns, uint32_t thread) const {
  std::vector<const model::RangeRecord*> open;
  for (const model::RangeRecord& r : profile.ranges) {
    if (r.source == model::RangeSource::kNvtxMark || !HasValidTimes(r) || r.end_ns == r.start_ns) {
      continue;
    }
    if (r.start_ns <= t_ns && t_ns < r.end_ns &&
        (thread == model::kNoId || r.thread_id == thread)) {
      open.push_back(&r);
    }
  }
  if (open.empty()) return "";
  // The thread of the outermost range, its ranges outermost first.
  std::sort(open.begin(), open.end(), [](const auto* a, const auto* b) {
    return a->start_ns != b->start_ns ? a->start_ns < b->start_ns : a->end_ns > b->end_ns;
  });
  std::vector<std::string> names;
  for (const model::RangeRecord* r : open) {
    if (r->thread_id == open.front()->thread_id) names.push_back(profile.str(r->name));
  }
  return absl::StrJoin(names, "/");
}

uint32_t Context::ThreadOf(uint32_t correlation_id) const {
  const uint32_t i = apis.Find(correlation_id);
  return i == ApiByCorrelation::kNone ? model::kNoId : profile.api_calls[i].thread_id;
}

std::string Dur(double ns) {
  if (ns < 1e3) return absl::StrFormat("%.0f ns", ns);
  if (ns < 1e6) return absl::StrFormat("%.1f us", ns / 1e3);
  if (ns < 1e9) return absl::StrFormat("%.2f ms", ns / 1e6);
  return absl::StrFormat("%.2f s", ns / 1e9);
}

std::string Pct(double pct) {
  return pct >= 10 ? absl::StrFormat("%.0f%%", pct) : absl::StrFormat("%.1f%%", pct);
}

std::string Gbps(double bytes_per_ns) { return absl::StrFormat("%.1f GB/s", bytes_per_ns); }

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), v.begin() + mid)) / 2;
  return m;
}

}  // namespace cuscope::analysis::advise
