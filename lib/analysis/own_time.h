// cuscope's own time in a profile: where the profiler itself worked on the GPU or held
// a thread of the program, as the analyses leave it out of the program's time (the
// advisor's idle gaps and first-iteration comparison, region and step durations) and
// the report totals it.
//
// What holds the program:
// - the profile's own intervals (model::OwnInterval) of kernel replay and region
//   counters; of a rotate or sweep window, the calls of the launches made inside it
//   (its ranges: CUPTI's work and the window's Stop run in those calls; the program's
//   own host work between them is not held), or the whole window when the profile has
//   none of those calls; its GPU-metrics decodes and profile flushes only where they
//   ran on a thread of the program (one that made CUDA calls);
// - for a launch of a kernel-replay set that no own interval covers (a profile of an
//   earlier version), its launch call: CUPTI replays the kernel inside it;
// - the time cuscope's counter sampler held the program in callbacks (overhead records
//   of model::kCountersOverhead's kinds), and CUPTI's own overheads
//   (model::IsProfilerOverhead: buffer flushes and requests, instrumentation) on a
//   thread of the program.
// cuscope's own time is the union of these less the program's GPU work inside them
// (kernels, copies, memsets): a replayed launch's kernel ran once for the program, and
// a window's launches are the program's, so what is left is the time the program, on
// the GPU and on its thread, waited for cuscope.
#ifndef CUSCOPE_LIB_ANALYSIS_OWN_TIME_H_
#define CUSCOPE_LIB_ANALYSIS_OWN_TIME_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope::analysis {

// The own intervals of `p`: its own_time rows, then a kernel-replay interval (the
// launch call's span, its launch as the one involved) for each launch of a kernel-replay
// set that no kernel-replay row lists and whose launch call has usable times. Ordered
// by start.
std::vector<model::OwnInterval> OwnIntervals(const model::Profile& p);

// Spans [start, end), sorted and disjoint.
using Spans = std::vector<std::pair<uint64_t, uint64_t>>;

class OwnTime {
 public:
  OwnTime() = default;  // no own time
  explicit OwnTime(const model::Profile& p);

  // The time that held the program (see above), merged; the program's GPU work not
  // taken out.
  const Spans& held() const { return held_; }
  // cuscope's own time: `held` less the program's GPU work.
  const Spans& spans() const { return spans_; }
  uint64_t total_ns() const { return total_ns_; }
  // cuscope's own time inside [lo, hi).
  uint64_t Within(uint64_t lo, uint64_t hi) const;

 private:
  Spans held_, spans_;
  uint64_t total_ns_ = 0;
};

// [start, end) pairs sorted and merged into disjoint spans (empty ones dropped).
Spans MergeSpans(Spans spans);
// `from` less `cut` (both disjoint and sorted).
Spans SubtractSpans(const Spans& from, const Spans& cut);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_OWN_TIME_H_
