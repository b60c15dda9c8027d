// The GPT-2 training step recorded on the H200 (tests/data/real/h200-gpt2-step-trace.sqlite)
// and other recorded launch sequences, as the rotate and sweep tests replay them through
// the simulated Range Profiler (rotate_sim.h): the launches of each step, and the share of
// a step's signatures and GPU time that hold a complete sample.
#ifndef CUSCOPE_TESTS_UNIT_RECORDED_LAUNCHES_H_
#define CUSCOPE_TESTS_UNIT_RECORDED_LAUNCHES_H_

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/model/profile.h"
#include "lib/store/reader.h"
#include "tests/unit/recorded_steps.h"
#include "tests/unit/rotate_sim.h"

namespace cuscope::collect {

struct Recorded {
  Signature sig;
  uint64_t duration_ns = 0;
};

// The kernel launches of a recorded profile in launch order (correlation id), split
// by the NVTX range `step` that was open at each launch (all in one when none).
inline std::vector<std::vector<Recorded>> LoadSteps(const std::string& file) {
  auto profile = store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/real/" + file);
  EXPECT_TRUE(profile.ok()) << profile.status();
  if (!profile.ok()) return {};
  const model::Profile& p = *profile;
  std::vector<std::vector<Recorded>> out;
  for (const auto& kernels : KernelsByRange(p, "step")) {
    out.emplace_back();
    for (const model::KernelRecord& k : kernels) {
      out.back().push_back({Signature{p.str(k.name), k.grid, k.block}, k.duration_ns()});
    }
  }
  return out;
}

// Step s of a run made of the recorded steps: step 0 (warm-up), then step 1 repeated.
inline const std::vector<Recorded>& StepAt(const std::vector<std::vector<Recorded>>& steps,
                                           size_t s) {
  return steps[s == 0 ? 0 : 1];
}

struct Coverage {
  double signatures = 0;  // share of the step's signatures with a complete sample
  double time = 0;        // share of the step's GPU time
};

inline Coverage CoverageOf(const Planner& planner, const std::vector<Recorded>& step) {
  std::set<std::string> all, sampled;
  uint64_t total = 0, covered = 0;
  for (const Recorded& r : step) {
    const std::string key = r.sig.name + "/" + std::to_string(r.sig.grid.x) + "/" +
                            std::to_string(r.sig.grid.y) + "/" + std::to_string(r.sig.block.x);
    all.insert(key);
    total += r.duration_ns;
    if (planner.Samples(r.sig) > 0) {
      sampled.insert(key);
      covered += r.duration_ns;
    }
  }
  return {double(sampled.size()) / all.size(), double(covered) / std::max<uint64_t>(1, total)};
}

inline Coverage CoverageOf(const RotateSim& sim, const std::vector<Recorded>& step) {
  return CoverageOf(sim.planner, step);
}

}  // namespace cuscope::collect

#endif  // CUSCOPE_TESTS_UNIT_RECORDED_LAUNCHES_H_
