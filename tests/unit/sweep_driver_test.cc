// The sweep's driver (lib/collect/sweep_driver.h) over synthetic launch sequences, on
// rotate's simulated Range Profiler with one pass (tests/unit/rotate_sim.h): windows
// open at a wanted launch, close when full or idle, before a graph launch and before a
// launch that must not be measured (an NCCL kernel, a launch during stream capture); a
// window whose ranges are not its launches keeps nothing; unproductive windows back off.
#include "lib/collect/sweep_driver.h"

#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/collect/planner.h"
#include "tests/unit/recorded_launches.h"
#include "tests/unit/rotate_sim.h"

namespace cuscope::collect {
namespace {

Signature Sig(const std::string& name) { return Signature{name, {4, 1, 1}, {128, 1, 1}}; }

// CUPTI as simulated, except that a decoding may lose ranges or values.
class SweepCalls : public SimCalls {
 public:
  using SimCalls::SimCalls;
  std::optional<size_t> Decode() override {
    std::optional<size_t> ranges = SimCalls::Decode();
    if (decode_fails) return std::nullopt;
    if (ranges && lose_a_range) return *ranges - 1;
    return ranges;
  }
  bool Keep(size_t range, RangeMatch& match) override {
    return !evaluation_fails && SimCalls::Keep(range, match);
  }
  bool decode_fails = false;
  bool lose_a_range = false;
  bool evaluation_fails = false;
};

// One context's launches through the planner and the sweep driver, as the sweep's
// strategy makes them (sweep_counters.cc).
struct SweepSim {
  Planner planner;
  ContextPlan c;
  FakeStack stack;
  SweepCalls calls{planner, c};
  uint32_t next_id = 1;
  std::vector<RangeMatch>& kept = calls.kept;

  explicit SweepSim(const CounterOptions& o) : planner(o, /*rotate=*/true, /*region_mode=*/false) {
    planner.SetMode(LaunchMode::kSweep);
    planner.set_passes(1);
  }
  // A kernel launch: API_ENTER, then API_EXIT. `excluded`: an NCCL kernel or a launch
  // during stream capture (the strategy's decision).
  void Run(const Signature& sig, bool matches = true, bool excluded = false) {
    ++planner.stats().launches_seen;
    const bool want = planner.WantSample(sig, matches, stack);
    const bool extra =
        c.window_open && !excluded && !want && planner.ExtraSample(sig, matches, stack);
    SweepDriver(planner, calls)
        .Enter(c, Launch{sig, next_id++, want && !excluded, extra}, excluded);
    EXPECT_EQ(calls.in_pass(), c.window_open);
    EXPECT_EQ(calls.held, c.window_open);
    SweepDriver(planner, calls).Exit(c);
    EXPECT_EQ(calls.in_pass(), c.window_open);
  }
  // A graph launch, a stream capture beginning, the end of collection.
  void Cut() {
    ++next_id;
    SweepDriver(planner, calls).Cut(c);
    EXPECT_FALSE(calls.in_pass());
    EXPECT_FALSE(calls.held);
  }
  const CounterStats& stats() const { return planner.stats(); }
  uint64_t dropped(DropReason r) const { return stats().dropped_by[static_cast<int>(r)]; }
};

CounterOptions SweepOptions(int per_signature, int window = 2048) {
  CounterOptions o;
  o.metrics = {"dram__bytes.sum"};
  o.per_signature = per_signature;
  o.window = window;
  return o;
}

TEST(SweepDriver, EveryLaunchInWindowsOfTheCap) {
  SweepSim sim(SweepOptions(/*per_signature=*/0));
  for (int i = 0; i < 600; ++i) sim.Run(Sig(i % 3 ? "A" : "B"));
  // Two full windows closed at a launch's exit; the third is open until the end.
  EXPECT_TRUE(sim.c.window_open);
  EXPECT_EQ(sim.stats().windows_opened, 3u);
  EXPECT_EQ(sim.kept.size(), 2 * SweepDriver::kSweepWindow);
  sim.Cut();
  EXPECT_EQ(sim.kept.size(), 600u);
  EXPECT_EQ(sim.stats().launches_measured, 600u);
  EXPECT_EQ(sim.stats().sets_complete, 600u);
  EXPECT_EQ(sim.calls.measured.size(), 600u);
  EXPECT_EQ(sim.stats().sets_dropped, 0u);
  EXPECT_EQ(sim.stats().windows_unproductive, 0u);
  // Each sample is its launch, in order.
  for (size_t i = 0; i < sim.kept.size(); ++i) {
    ASSERT_EQ(sim.kept[i].correlation_ids, (std::vector<uint32_t>{static_cast<uint32_t>(i + 1)}));
  }
}

TEST(SweepDriver, TheWindowLimitBoundsAWindow) {
  SweepSim sim(SweepOptions(/*per_signature=*/0, /*window=*/16));
  EXPECT_EQ(SweepDriver(sim.planner, sim.calls).WindowCap(), 16u);
  for (int i = 0; i < 40; ++i) sim.Run(Sig("A"));
  EXPECT_EQ(sim.stats().windows_opened, 3u);
  EXPECT_EQ(sim.kept.size(), 32u);
  sim.Cut();
  EXPECT_EQ(sim.kept.size(), 40u);
}

// A loop of 5 signatures with one sample each: the window opens at the first launch,
// keeps the first of each, and closes after kSweepIdleClose launches that add nothing
// to the budget (kept as further samples: they were measured anyway); no window opens
// again (every signature holds its sample).
TEST(SweepDriver, AWindowClosesAfterLaunchesThatAddNothing) {
  SweepSim sim(SweepOptions(/*per_signature=*/1));
  const std::vector<std::string> step = {"A", "B", "C", "D", "E"};
  for (int s = 0; s < 20; ++s) {
    for (const std::string& k : step) sim.Run(Sig(k));
  }
  EXPECT_FALSE(sim.c.window_open);
  EXPECT_EQ(sim.stats().windows_opened, 1u);
  EXPECT_EQ(sim.kept.size(), 5 + SweepDriver::kSweepIdleClose);
  for (const std::string& k : step) EXPECT_EQ(sim.planner.Samples(Sig(k)), 1u);
  // The 5 of the first step, then 24 that added nothing to the budget.
  EXPECT_EQ(sim.stats().launches_measured, 5 + SweepDriver::kSweepIdleClose);
  EXPECT_EQ(sim.stats().sets_complete, 5u);
  EXPECT_EQ(sim.stats().extra_kept, SweepDriver::kSweepIdleClose);
  EXPECT_EQ(sim.stats().not_kept, 0u);
  EXPECT_EQ(sim.stats().windows_unproductive, 0u);
}

// Further samples: a window's launches of a signature whose budget is spent (before
// the window, or by an earlier launch in it) are kept but count toward no budget and
// keep no window open; a window of only those is unproductive. Launches the filters
// exclude are never kept.
TEST(SweepDriver, FurtherSamplesAreKeptButOpenAndExtendNothing) {
  CounterOptions o = SweepOptions(/*per_signature=*/1);
  o.kernels = "^[AG]$";
  SweepSim sim(o);
  sim.Run(Sig("G"));  // a persistent GEMM's first size: the sample
  for (int i = 0; i < 3; ++i) {
    sim.Run(Sig("G"));  // other sizes, same signature: further samples
    sim.Run(Sig("B"), /*matches=*/false);
  }
  sim.Run(Sig("A"));
  EXPECT_TRUE(sim.c.window_open);
  sim.Cut();
  EXPECT_EQ(sim.planner.Samples(Sig("G")), 1u);
  EXPECT_EQ(sim.planner.Samples(Sig("A")), 1u);
  EXPECT_EQ(sim.stats().sets_complete, 2u);
  EXPECT_EQ(sim.stats().extra_kept, 3u);
  EXPECT_EQ(sim.stats().not_kept, 3u);  // the B launches
  ASSERT_EQ(sim.kept.size(), 5u);
  for (const RangeMatch& m : sim.kept) EXPECT_NE(m.sig, Sig("B"));
  // Only further samples launched now: no window opens for them.
  for (int i = 0; i < 50; ++i) sim.Run(Sig("G"));
  EXPECT_FALSE(sim.c.window_open);
  EXPECT_EQ(sim.stats().windows_opened, 1u);
  EXPECT_EQ(sim.kept.size(), 5u);
  EXPECT_NE(sim.planner.Describe().find("3 further samples"), std::string::npos)
      << sim.planner.Describe();
}

TEST(SweepDriver, ALaterSignatureOpensAnotherWindow) {
  SweepSim sim(SweepOptions(/*per_signature=*/1));
  for (int i = 0; i < 100; ++i) sim.Run(Sig(i % 2 ? "A" : "B"));
  EXPECT_EQ(sim.stats().windows_opened, 1u);
  sim.Run(Sig("C"));  // first launched now: its own window
  EXPECT_TRUE(sim.c.window_open);
  EXPECT_EQ(sim.stats().windows_opened, 2u);
  for (int i = 0; i < 30; ++i) sim.Run(Sig("A"));
  EXPECT_FALSE(sim.c.window_open);
  EXPECT_EQ(sim.planner.Samples(Sig("C")), 1u);
  EXPECT_EQ(sim.stats().sets_complete, 3u);
  // With each window's 24 launches that added nothing to the budget.
  EXPECT_EQ(sim.kept.size(), 3 + 2 * SweepDriver::kSweepIdleClose);
}

TEST(SweepDriver, LaunchesTheFiltersExcludeAreMeasuredNotKept) {
  CounterOptions o = SweepOptions(/*per_signature=*/0);
  o.kernels = "^A$";
  SweepSim sim(o);
  sim.Run(Sig("B"), /*matches=*/false);  // opens nothing
  EXPECT_FALSE(sim.c.window_open);
  for (int i = 0; i < 10; ++i) {
    sim.Run(Sig("A"));
    sim.Run(Sig("B"), /*matches=*/false);
  }
  sim.Cut();
  EXPECT_EQ(sim.stats().launches_measured, 20u);
  EXPECT_EQ(sim.kept.size(), 10u);
  EXPECT_EQ(sim.stats().not_kept, 10u);
  for (const RangeMatch& m : sim.kept) EXPECT_EQ(m.sig, Sig("A"));
}

TEST(SweepDriver, AGraphLaunchClosesTheWindowBeforeIt) {
  SweepSim sim(SweepOptions(/*per_signature=*/0));
  for (int i = 0; i < 5; ++i) sim.Run(Sig("A"));
  EXPECT_TRUE(sim.c.window_open);
  sim.Cut();  // the graph launch
  EXPECT_FALSE(sim.c.window_open);
  EXPECT_EQ(sim.kept.size(), 5u);
  sim.Run(Sig("A"));  // the next wanted launch opens the next window
  EXPECT_TRUE(sim.c.window_open);
  EXPECT_EQ(sim.stats().windows_opened, 2u);
  sim.Cut();  // a stream capture begins
  EXPECT_EQ(sim.kept.size(), 6u);
}

// An NCCL kernel or a launch during stream capture: never a range, never opens a window,
// and an open window closes before it.
TEST(SweepDriver, ALaunchThatMustNotBeMeasuredClosesTheWindowBeforeIt) {
  SweepSim sim(SweepOptions(/*per_signature=*/0));
  sim.Run(Sig("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), /*matches=*/false, /*excluded=*/true);
  sim.Run(Sig("A"), /*matches=*/true, /*excluded=*/true);  // captured: wanted, not opened
  EXPECT_FALSE(sim.c.window_open);
  EXPECT_EQ(sim.stats().windows_opened, 0u);
  for (int i = 0; i < 3; ++i) sim.Run(Sig("A"));
  const uint32_t excluded_id = sim.next_id;
  sim.Run(Sig("A"), /*matches=*/true, /*excluded=*/true);
  EXPECT_FALSE(sim.c.window_open);
  EXPECT_EQ(sim.kept.size(), 3u);
  for (uint32_t id : sim.calls.measured) EXPECT_NE(id, excluded_id);
  sim.Run(Sig("A"));
  sim.Cut();
  EXPECT_EQ(sim.kept.size(), 4u);
  EXPECT_EQ(sim.stats().launches_measured, 4u);
  EXPECT_EQ(sim.stats().windows_opened, 2u);
}

// With a budget spent, NCCL's kernels are still never further samples: they match no
// filter, so neither a window nor a kept range ever holds one.
TEST(SweepDriver, NcclKernelsAreNeverFurtherSamples) {
  SweepSim sim(SweepOptions(/*per_signature=*/1));
  const Signature nccl = Sig("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  sim.Run(Sig("A"));
  sim.Run(nccl, /*matches=*/false, /*excluded=*/true);  // closes the window before it
  sim.Run(Sig("B"));
  for (int i = 0; i < 5; ++i) {
    sim.Run(Sig("A"));
    EXPECT_FALSE(sim.planner.ExtraSample(nccl, /*matches=*/false, sim.stack));
  }
  sim.Cut();
  for (const RangeMatch& m : sim.kept) EXPECT_NE(m.sig, nccl);
  EXPECT_EQ(sim.stats().sets_complete, 2u);
  EXPECT_EQ(sim.stats().extra_kept, 5u);  // A's launches in B's window
}

// Ranges that are not the window's launches (a launch that did not run, a kernel the
// callbacks did not see): the window's wanted launches are dropped, none is guessed.
TEST(SweepDriver, AWindowWhoseRangesAreNotItsLaunchesKeepsNothing) {
  SweepSim sim(SweepOptions(/*per_signature=*/0));
  sim.calls.lose_a_range = true;
  for (int i = 0; i < 4; ++i) sim.Run(Sig("A"));
  sim.Run(Sig("B"), /*matches=*/false);  // not wanted: not counted as dropped
  sim.Cut();
  EXPECT_TRUE(sim.kept.empty());
  EXPECT_EQ(sim.dropped(DropReason::kNotDecoded), 4u);
  EXPECT_EQ(sim.stats().sets_complete, 0u);
  EXPECT_EQ(sim.stats().windows_unproductive, 1u);
  // Decoding that fails: the same.
  sim.calls.lose_a_range = false;
  sim.calls.decode_fails = true;
  sim.Run(Sig("A"));
  sim.Cut();
  EXPECT_EQ(sim.dropped(DropReason::kNotDecoded), 5u);
  EXPECT_EQ(sim.stats().windows_unproductive, 2u);
}

TEST(SweepDriver, ValuesThatDoNotEvaluateAreDropped) {
  SweepSim sim(SweepOptions(/*per_signature=*/0));
  sim.calls.evaluation_fails = true;
  for (int i = 0; i < 3; ++i) sim.Run(Sig("A"));
  sim.Cut();
  EXPECT_EQ(sim.dropped(DropReason::kEvaluate), 3u);
  EXPECT_EQ(sim.stats().windows_unproductive, 1u);
}

// Windows that keep nothing, in a row: from the third, no window opens for a while,
// the wait doubling; a window that keeps a sample ends the waits.
TEST(SweepDriver, UnproductiveWindowsBackOff) {
  SweepSim sim(SweepOptions(/*per_signature=*/0));
  sim.calls.evaluation_fails = true;
  auto window = [&sim] {  // one launch, then a graph launch closes its window
    sim.Run(Sig("A"));
    sim.Cut();
  };
  for (size_t i = 0; i < SweepDriver::kFailuresBeforeBackoff; ++i) window();
  EXPECT_EQ(sim.stats().windows_opened, 3u);
  EXPECT_EQ(sim.stats().backoffs, 1u);
  // kFirstBackoff launches go by unmeasured; the next opens a window.
  for (size_t i = 0; i < SweepDriver::kFirstBackoff; ++i) sim.Run(Sig("A"));
  EXPECT_EQ(sim.stats().windows_opened, 3u);
  EXPECT_EQ(sim.stats().backoff_launches, SweepDriver::kFirstBackoff);
  window();
  EXPECT_EQ(sim.stats().windows_opened, 4u);
  EXPECT_EQ(sim.stats().backoffs, 2u);
  EXPECT_EQ(sim.stats().longest_backoff, 2 * SweepDriver::kFirstBackoff);
  for (size_t i = 0; i < 2 * SweepDriver::kFirstBackoff; ++i) sim.Run(Sig("A"));
  EXPECT_EQ(sim.stats().windows_opened, 4u);
  // Values evaluate again: the window keeps its sample, the waits end.
  sim.calls.evaluation_fails = false;
  window();
  EXPECT_EQ(sim.stats().windows_opened, 5u);
  EXPECT_EQ(sim.kept.size(), 1u);
  window();
  EXPECT_EQ(sim.stats().windows_opened, 6u);
  EXPECT_EQ(sim.stats().backoffs, 2u);
  EXPECT_EQ(sim.stats().windows_unproductive, 4u);
  // The summary says so.
  const std::string summary = sim.planner.Describe();
  EXPECT_NE(summary.find("6 windows opened (4 kept no sample)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("backed off 2 times"), std::string::npos) << summary;
}

TEST(SweepDriver, TheWaitIsBounded) {
  SweepSim sim(SweepOptions(/*per_signature=*/0));
  sim.calls.evaluation_fails = true;
  for (int w = 0; w < 12; ++w) {
    sim.Run(Sig("A"));
    sim.Cut();
    for (size_t i = 0; i < SweepDriver::kMaxBackoff; ++i) sim.Run(Sig("B"), /*matches=*/false);
  }
  EXPECT_EQ(sim.stats().longest_backoff, SweepDriver::kMaxBackoff);
  EXPECT_EQ(sim.stats().windows_opened, 12u);  // each wait ended within kMaxBackoff
}

// Launches that the per-signature budget leaves out do not open a window; a launch of a
// signature whose budget the window's wanted launches fill adds nothing.
TEST(SweepDriver, TheBudgetCountsTheWindowsWantedLaunches) {
  SweepSim sim(SweepOptions(/*per_signature=*/2));
  for (int i = 0; i < 2 + static_cast<int>(SweepDriver::kSweepIdleClose); ++i) sim.Run(Sig("A"));
  EXPECT_FALSE(sim.c.window_open);
  EXPECT_EQ(sim.planner.Samples(Sig("A")), 2u);
  sim.Run(Sig("A"));
  EXPECT_FALSE(sim.c.window_open);
  EXPECT_EQ(sim.stats().windows_opened, 1u);
}

// The GPT-2 training step recorded on the H200 (809 launches in step 0, then 581 of 96
// signatures a step): with one sample per signature, the first two steps hold every
// window, and later steps run unmeasured; with every launch measured, each step is
// measured whole in windows of kSweepWindow.
TEST(SweepDriver, RecordedGpt2Steps) {
  std::vector<std::vector<Recorded>> steps = LoadSteps("h200-gpt2-step-trace.sqlite");
  ASSERT_EQ(steps.size(), 4u);
  for (int per_signature : {1, 0}) {
    SweepSim sim(SweepOptions(per_signature));
    std::vector<uint64_t> windows, measured;  // per step
    for (size_t s = 0; s < 6; ++s) {
      const CounterStats before = sim.stats();
      for (const Recorded& r : StepAt(steps, s)) sim.Run(r.sig);
      windows.push_back(sim.stats().windows_opened - before.windows_opened);
      measured.push_back(sim.stats().launches_measured - before.launches_measured);
      std::cerr << "per_signature=" << per_signature << " step " << s << ": " << windows.back()
                << " windows, " << measured.back() << " launches measured\n";
    }
    sim.Cut();
    const Coverage cov = CoverageOf(sim.planner, steps[1]);
    std::cerr << sim.planner.Describe() << "; coverage " << cov.signatures * 100
              << "% of signatures, " << cov.time * 100 << "% of GPU time\n";
    EXPECT_EQ(cov.signatures, 1.0);
    EXPECT_EQ(sim.stats().sets_dropped, 0u);
    EXPECT_EQ(sim.stats().windows_unproductive, 0u);
    if (per_signature == 1) {
      for (size_t s = 2; s < windows.size(); ++s) EXPECT_EQ(windows[s], 0u) << "step " << s;
    } else {
      for (size_t s = 1; s < windows.size(); ++s) EXPECT_EQ(measured[s], steps[1].size());
    }
  }
}

}  // namespace
}  // namespace cuscope::collect
