// What the counter sampler's launch callbacks cost on the host once rotate has its
// samples: the planner and the rotate driver (lib/collect/rotate_driver.h) on the
// GPT-2 training step recorded on the H200 (tests/data/real, 581 launches of 96
// signatures a step), run to the steady state with one sample per signature, then
// timed launch by launch as launch_counters.cc makes the calls (kernel name, budget
// check, API_ENTER, API_EXIT). Nothing is measured by then: this is what every launch
// of a long training loop pays for counters it no longer takes.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "lib/collect/planner.h"
#include "lib/collect/rotate_driver.h"
#include "lib/model/profile.h"
#include "lib/store/reader.h"
#include "tests/unit/recorded_steps.h"

namespace cuscope::collect {
namespace {

struct Recorded {
  std::string symbol;  // mangled, as CUPTI's callback gives it
  model::Dim3 grid, block;
};

// Step 0 and step 1 of the recorded GPT-2 step, in launch order.
std::vector<std::vector<Recorded>> LoadGpt2() {
  auto profile =
      store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/real/h200-gpt2-step-trace.sqlite");
  if (!profile.ok()) {
    std::fprintf(stderr, "rotate_bench: %s\n", std::string(profile.status().message()).c_str());
    std::exit(1);
  }
  const model::Profile& p = *profile;
  std::vector<std::vector<Recorded>> out;
  for (const auto& kernels : KernelsByRange(p, "step")) {
    if (out.size() == 2) break;
    out.emplace_back();
    for (const model::KernelRecord& k : kernels) {
      out.back().push_back({std::string(p.str(k.mangled_name)), k.grid, k.block});
    }
  }
  return out;
}

// CUPTI as the driver sees it: every call succeeds, all passes are in at the P-th
// Stop, and a set decodes one range per launch of its first pass.
class NoCupti final : public RangeCalls {
 public:
  NoCupti(const Planner& planner, const ContextPlan& c) : planner_(planner), c_(c) {}
  bool Start() override { return true; }
  Stopped Stop() override {
    if (++pass_ < planner_.passes()) return {true, false};
    pass_ = 0;
    return {true, true};
  }
  std::optional<size_t> Decode() override {
    return c_.windows.empty() ? 0 : c_.windows.front().size();
  }
  bool Keep(size_t, RangeMatch&) override { return true; }
  bool Prepare(size_t) override { return true; }
  void Finished(bool) override {}
  void Measured(const Launch&) override {}
  void SetInProgress(bool) override {}
  uint64_t NowNs() override { return 0; }  // no time budget

 private:
  const Planner& planner_;
  const ContextPlan& c_;
  size_t pass_ = 0;
};

class NoRegions final : public RegionStack {
 public:
  const std::vector<std::string>& ThreadRegions() const override { return none_; }

 private:
  std::vector<std::string> none_;
};

struct Loop {
  Planner planner;
  ContextPlan c;
  NoCupti calls{planner, c};
  NoRegions regions;
  uint32_t next_id = 1;

  explicit Loop(const CounterOptions& o) : planner(o, /*rotate=*/true, /*region_mode=*/false) {
    planner.set_passes(7);  // roofline on the H200
  }
  // One launch as the sampler's callbacks make it (OnLaunchEnter, then OnLaunchExit).
  void Launch(const Recorded& r) {
    ++planner.stats().launches_seen;
    const std::pair<std::string, bool>& name = planner.KernelName(r.symbol.c_str());
    Signature sig{name.first, r.grid, r.block};
    collect::Launch launch{sig, next_id++, planner.WantSample(sig, name.second, regions)};
    RotateDriver(planner, calls).Enter(c, launch);
    RotateDriver(planner, calls).Exit(c);
  }
};

void BM_RotateLaunchAfterSampling(benchmark::State& state) {
  static const std::vector<std::vector<Recorded>> steps = LoadGpt2();
  CounterOptions o;
  o.metrics = {"roofline"};
  o.per_signature = 1;
  Loop loop(o);
  for (const Recorded& r : steps[0]) loop.Launch(r);
  for (int s = 1; s < 40; ++s) {
    for (const Recorded& r : steps[1]) loop.Launch(r);
  }
  const uint64_t complete = loop.planner.stats().sets_complete;
  size_t i = 0;
  for (auto _ : state) {
    loop.Launch(steps[1][i]);
    if (++i == steps[1].size()) i = 0;
  }
  if (loop.planner.stats().sets_complete != complete) state.SkipWithError("a set ran while timed");
  state.counters["signatures_sampled"] = static_cast<double>(complete);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RotateLaunchAfterSampling);

}  // namespace
}  // namespace cuscope::collect

BENCHMARK_MAIN();
