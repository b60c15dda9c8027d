#include "lib/analysis/own_time.h"

#include <algorithm>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace cuscope::analysis {
namespace {

// Usable times, as summary.h's HasValidTimes (not included: summary.cc includes this).
template <typename Rec>
bool HasValidTimes(const Rec& r) {
  return r.start_ns != 0 && r.end_ns >= r.start_ns;
}

// Kinds that hold the program wherever they ran; the others only on its threads.
bool HoldsWherever(model::OwnKind kind) {
  return kind == model::OwnKind::kKernelReplay || kind == model::OwnKind::kRotateWindow ||
         kind == model::OwnKind::kSweepWindow || kind == model::OwnKind::kRegionCounters;
}

bool IsWindow(model::OwnKind kind) {
  return kind == model::OwnKind::kRotateWindow || kind == model::OwnKind::kSweepWindow;
}

// What a rotate or sweep window held: the calls of the launches made inside it (CUPTI's
// work for each range, and the Stop at the window's end, run in a launch call), not the
// whole window, in which the program's own host work (Python, module loading) goes on as
// it would unprofiled. A window with no such call recorded (a trace without API records)
// counts whole.
void AddWindows(const model::Profile& p, std::vector<const model::OwnInterval*> windows,
                Spans& held) {
  if (windows.empty()) return;
  std::sort(windows.begin(), windows.end(),
            [](const auto* a, const auto* b) { return a->start_ns < b->start_ns; });
  std::vector<uint64_t> max_end(windows.size());  // the latest end of windows [0, i]
  for (size_t i = 0; i < windows.size(); ++i) {
    max_end[i] = std::max(i == 0 ? 0 : max_end[i - 1], windows[i]->end_ns);
  }
  absl::flat_hash_set<uint32_t> launches;  // correlation ids of kernel records
  for (const model::KernelRecord& k : p.kernels) launches.insert(k.correlation_id);
  std::vector<bool> found(windows.size(), false);
  for (const model::ApiRecord& a : p.api_calls) {
    if (!HasValidTimes(a) || !launches.contains(a.correlation_id)) continue;
    // Windows that begin before the call ends, latest first, while one may still overlap.
    size_t i = std::upper_bound(windows.begin(), windows.end(), a.end_ns,
                                [](uint64_t t, const auto* w) { return t <= w->start_ns; }) -
               windows.begin();
    while (i-- > 0 && max_end[i] > a.start_ns) {
      const model::OwnInterval& w = *windows[i];
      if (a.correlation_id < w.first_correlation_id || a.correlation_id > w.last_correlation_id ||
          w.end_ns <= a.start_ns) {
        continue;
      }
      held.emplace_back(std::max(a.start_ns, w.start_ns), std::min(a.end_ns, w.end_ns));
      found[i] = true;
    }
  }
  for (size_t i = 0; i < windows.size(); ++i) {
    if (!found[i]) held.emplace_back(windows[i]->start_ns, windows[i]->end_ns);
  }
}

// The threads that made CUDA calls.
absl::flat_hash_set<uint32_t> ProgramThreads(const model::Profile& p) {
  absl::flat_hash_set<uint32_t> threads;
  for (const model::ApiRecord& a : p.api_calls) threads.insert(a.thread_id);
  return threads;
}

// Whether [start, end) overlaps a span of `spans`.
bool Overlaps(const Spans& spans, uint64_t start, uint64_t end) {
  auto it = std::upper_bound(spans.begin(), spans.end(), start,
                             [](uint64_t t, const auto& s) { return t < s.second; });
  return it != spans.end() && it->first < end;
}

// The program's GPU work that overlaps `held`, merged.
template <typename Rec>
void AddGpuWork(const std::vector<Rec>& records, const Spans& held, Spans& out) {
  for (const Rec& r : records) {
    if (HasValidTimes(r) && r.end_ns > r.start_ns && Overlaps(held, r.start_ns, r.end_ns)) {
      out.emplace_back(r.start_ns, r.end_ns);
    }
  }
}

}  // namespace

Spans MergeSpans(Spans spans) {
  std::sort(spans.begin(), spans.end());
  Spans out;
  for (const auto& [start, end] : spans) {
    if (end <= start) continue;
    if (!out.empty() && start <= out.back().second) {
      out.back().second = std::max(out.back().second, end);
    } else {
      out.emplace_back(start, end);
    }
  }
  return out;
}

Spans SubtractSpans(const Spans& from, const Spans& cut) {
  Spans out;
  size_t j = 0;
  for (auto [start, end] : from) {
    while (j < cut.size() && cut[j].second <= start) ++j;
    for (size_t k = j; k < cut.size() && cut[k].first < end; ++k) {
      if (cut[k].first > start) out.emplace_back(start, cut[k].first);
      start = std::max(start, cut[k].second);
      if (start >= end) break;
    }
    if (start < end) out.emplace_back(start, end);
  }
  return out;
}

std::vector<model::OwnInterval> OwnIntervals(const model::Profile& p) {
  std::vector<model::OwnInterval> out = p.own_time;
  absl::flat_hash_set<uint32_t> listed;
  for (const model::OwnInterval& o : p.own_time) {
    // A kernel replay involves one launch.
    if (o.kind == model::OwnKind::kKernelReplay) listed.insert(o.first_correlation_id);
  }
  absl::flat_hash_map<uint32_t, const model::CounterSet*> replayed;
  for (const model::CounterSet& set : p.counters) {
    if (set.strategy != model::CounterStrategy::kKernelReplay) continue;
    for (uint32_t id : set.correlation_ids) {
      if (id != 0 && !listed.contains(id)) replayed.emplace(id, &set);
    }
  }
  if (!replayed.empty()) {
    absl::flat_hash_map<uint32_t, uint32_t> contexts;  // correlation id -> kernel's context
    for (const model::KernelRecord& k : p.kernels) {
      if (replayed.contains(k.correlation_id)) contexts[k.correlation_id] = k.context_id;
    }
    for (const model::ApiRecord& a : p.api_calls) {
      auto it = replayed.find(a.correlation_id);
      if (it == replayed.end() || !HasValidTimes(a)) continue;
      model::OwnInterval& o = out.emplace_back();
      o.start_ns = a.start_ns;
      o.end_ns = a.end_ns;
      o.kind = model::OwnKind::kKernelReplay;
      o.thread_id = a.thread_id;
      o.device_id = it->second->device_id;
      auto context = contexts.find(a.correlation_id);
      if (context != contexts.end()) o.context_id = context->second;
      o.first_correlation_id = o.last_correlation_id = a.correlation_id;
      o.launches = 1;
      replayed.erase(it);  // a runtime and a driver call share the id: the first one
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  return out;
}

OwnTime::OwnTime(const model::Profile& p) {
  Spans held;
  bool need_threads = false;
  const std::vector<model::OwnInterval> intervals = OwnIntervals(p);
  std::vector<const model::OwnInterval*> windows;
  for (const model::OwnInterval& o : intervals) {
    if (HoldsWherever(o.kind)) {
      if (!HasValidTimes(o)) continue;
      if (IsWindow(o.kind)) {
        windows.push_back(&o);
      } else {
        held.emplace_back(o.start_ns, o.end_ns);
      }
    } else {
      need_threads = true;
    }
  }
  AddWindows(p, windows, held);
  for (const model::OverheadRecord& o : p.overheads) need_threads |= HasValidTimes(o);
  absl::flat_hash_set<uint32_t> program;
  if (need_threads) program = ProgramThreads(p);
  for (const model::OwnInterval& o : intervals) {
    if (!HoldsWherever(o.kind) && HasValidTimes(o) && program.contains(o.thread_id)) {
      held.emplace_back(o.start_ns, o.end_ns);
    }
  }
  for (const model::OverheadRecord& o : p.overheads) {
    if (!HasValidTimes(o)) continue;
    const std::string& kind = p.str(o.kind);
    if (model::IsCountersOverhead(kind) ||
        (model::IsProfilerOverhead(kind) && program.contains(o.thread_id))) {
      held.emplace_back(o.start_ns, o.end_ns);
    }
  }
  held_ = MergeSpans(std::move(held));
  if (held_.empty()) return;
  Spans gpu;
  AddGpuWork(p.kernels, held_, gpu);
  AddGpuWork(p.memcpys, held_, gpu);
  AddGpuWork(p.memsets, held_, gpu);
  spans_ = SubtractSpans(held_, MergeSpans(std::move(gpu)));
  for (const auto& [start, end] : spans_) total_ns_ += end - start;
}

uint64_t OwnTime::Within(uint64_t lo, uint64_t hi) const {
  uint64_t sum = 0;
  auto it = std::upper_bound(spans_.begin(), spans_.end(), lo,
                             [](uint64_t t, const auto& s) { return t < s.second; });
  for (; it != spans_.end() && it->first < hi; ++it) {
    sum += std::min(hi, it->second) - std::max(lo, it->first);
  }
  return sum;
}

}  // namespace cuscope::analysis
