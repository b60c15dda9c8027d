// A training loop's steps: the instances of the region named like a step (NVTX
// ranges or cuscope scopes "step", "ProfilerStep#3", ...), in start order. The
// advisor tells the steps from start-up with them, the counters' opening line counts
// them, and the rank comparison compares their durations. Pure functions, no I/O.
#ifndef CUSCOPE_LIB_ANALYSIS_STEPS_H_
#define CUSCOPE_LIB_ANALYSIS_STEPS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope::analysis {

// Whether a region named `name` is a training step: "step", "step 3", "step_3",
// "ProfilerStep#3" (torch.profiler), "train_step", "training_step" (any case).
bool IsStepName(const std::string& name);

struct Steps {
  // The steps' name ("step", "ProfilerStep#N" for torch.profiler's numbered ones); ""
  // when the profile has no step regions.
  std::string name;
  std::vector<std::pair<uint64_t, uint64_t>> spans;  // [start, end), in start order
  bool empty() const { return spans.empty(); }
  size_t count() const { return spans.size(); }
  uint64_t first_start_ns() const { return spans.empty() ? 0 : spans.front().first; }
};

// The step regions of `p` (with usable times). Numbered instances ("ProfilerStep#3",
// "step 3") are one name ("ProfilerStep#N", "step N"); when regions of several step
// names exist, the name with the most instances (ties: the first in sort order).
Steps StepsOf(const model::Profile& p);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_STEPS_H_
