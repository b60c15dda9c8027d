// A session's finished sets: decoding a context's counter data, matching its ranges
// to the launches measured, evaluating them into samples for the outbox. Shared by the
// strategies (kernel replay and region counters decode a set per image with DecodeSet;
// rotate's and the sweep's drivers call DecodeRanges and EvaluateSet through RangeCalls).
//
// Not thread-safe: used under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_COUNTER_SETS_H_
#define CUSCOPE_LIB_COLLECT_COUNTER_SETS_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "lib/collect/counter_run.h"
#include "lib/collect/planner.h"
#include "lib/collect/profiler_contexts.h"

namespace cuscope::collect {

class CounterSets {
 public:
  explicit CounterSets(CounterRun& run) : run_(run) {}

  // Decodes the counter data of a finished set (kernel replay, region counters: the
  // windows of `plan`) and turns matching ranges into samples; the image is
  // re-initialized for the next set.
  void DecodeSet(ProfiledContext& c, ContextPlan& plan);
  // Decodes the counter data of a set whose passes measured `windows` (kernel replay
  // and region counters: one window, for every pass): the set's ranges decoded (from
  // c.image.first()), or nothing when decoding failed or the ranges are not where the
  // image's placement puts them (image_ranges.h; re-initialized before the next set).
  std::optional<size_t> DecodeRanges(ProfiledContext& c,
                                     const std::vector<std::vector<Launch>>& windows);
  // Range `range`'s values; true (and the set queued in the outbox) if they are finite.
  bool EvaluateSet(ProfiledContext& c, size_t range, RangeMatch& match);

 private:
  // Rotate's part of DecodeRanges: where the set lies in the shared image, given the
  // ranges CUPTI `dropped` and the image's `total`; nothing when they cannot be read.
  std::optional<size_t> SharedImageRanges(ProfiledContext& c,
                                          const std::vector<std::vector<Launch>>& windows,
                                          size_t dropped, size_t total);

  CounterRun& run_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_COUNTER_SETS_H_
