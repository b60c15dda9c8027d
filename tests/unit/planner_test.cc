// The counter planner (lib/collect/planner.h) and rotate's driver (rotate_driver.h)
// over synthetic launch sequences: which launches are measured, how windows open,
// close and grow, and how passes become sets. No CUPTI: the Range Profiler is
// simulated (tests/unit/rotate_sim.h). Recorded sequences: rotate_real_test.cc.
#include "lib/collect/planner.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/rotate_sim.h"

namespace cuscope::collect {
namespace {

Signature Sig(const std::string& name, uint32_t grid = 1) {
  return Signature{name, {grid, 1, 1}, {128, 1, 1}};
}

TEST(Planner, Strategy) {
  CounterOptions o;
  o.metrics = {"roofline"};  // instruction counters: never the sweep
  ASSERT_TRUE(NeedsInstrumentedCounters(o));
  o.per_signature = 0;
  EXPECT_EQ(ChooseLaunchMode(o, 0), LaunchMode::kRotate);
  o.per_signature = 1;
  EXPECT_EQ(ChooseLaunchMode(o, 0), LaunchMode::kKernelReplay);
  EXPECT_EQ(ChooseLaunchMode(o, 1), LaunchMode::kKernelReplay);
  o.replay = ReplayMode::kRotate;
  EXPECT_EQ(ChooseLaunchMode(o, 0), LaunchMode::kRotate);
  o.replay = ReplayMode::kKernel;
  o.per_signature = 0;
  EXPECT_EQ(ChooseLaunchMode(o, 0), LaunchMode::kKernelReplay);
  o.replay = ReplayMode::kSweep;
  EXPECT_EQ(ChooseLaunchMode(o, 0), LaunchMode::kRefused);
  EXPECT_NE(SweepRefusal(o, 0).find("instrumented counters"), std::string::npos);
}

// Without instruction counters the passes decide: one pass is the sweep's, explicit
// flags keep their strategies, and --replay=sweep refuses more passes.
TEST(Planner, ThePassesChooseTheSweep) {
  CounterOptions o;
  o.metrics = {"dram__bytes.sum", "gpu__time_duration.sum"};
  ASSERT_FALSE(NeedsInstrumentedCounters(o));
  for (int per_signature : {0, 1}) {
    o.per_signature = per_signature;
    o.replay = ReplayMode::kAuto;
    EXPECT_EQ(ChooseLaunchMode(o, 0), LaunchMode::kPending);
    EXPECT_EQ(ChooseLaunchMode(o, 1), LaunchMode::kSweep);
    EXPECT_EQ(ChooseLaunchMode(o, 3),
              per_signature == 0 ? LaunchMode::kRotate : LaunchMode::kKernelReplay);
    o.replay = ReplayMode::kSweep;
    EXPECT_EQ(ChooseLaunchMode(o, 0), LaunchMode::kPending);
    EXPECT_EQ(ChooseLaunchMode(o, 1), LaunchMode::kSweep);
    EXPECT_EQ(ChooseLaunchMode(o, 2), LaunchMode::kRefused);
    o.replay = ReplayMode::kKernel;
    EXPECT_EQ(ChooseLaunchMode(o, 1), LaunchMode::kKernelReplay);
    o.replay = ReplayMode::kRotate;
    EXPECT_EQ(ChooseLaunchMode(o, 1), LaunchMode::kRotate);
  }
  o.replay = ReplayMode::kSweep;
  EXPECT_EQ(SweepRefusal(o, 2),
            "--replay=sweep measures configurations of one pass without instrumented counters, "
            "and it takes 2 passes: no counters (--replay=auto, kernel or rotate measure it)");
  // A pending planner is decided by the passes: the sweep is user replay without a
  // time budget; rotate keeps its budget.
  o.replay = ReplayMode::kAuto;
  o.per_signature = 0;
  o.rotate_budget_pct = 25;
  Planner one(o, /*rotate=*/false, /*region_mode=*/false);
  one.SetMode(ChooseLaunchMode(o, 0));
  EXPECT_EQ(one.mode(), LaunchMode::kPending);
  one.set_passes(1);
  EXPECT_EQ(one.mode(), LaunchMode::kSweep);
  EXPECT_TRUE(one.sweep());
  EXPECT_TRUE(one.rotate());
  EXPECT_FALSE(one.budget().enabled());
  EXPECT_STREQ(one.StrategyName(), "sweep");
  Planner three(o, /*rotate=*/false, /*region_mode=*/false);
  three.SetMode(ChooseLaunchMode(o, 0));
  three.set_passes(3);
  EXPECT_EQ(three.mode(), LaunchMode::kRotate);
  EXPECT_FALSE(three.sweep());
  EXPECT_TRUE(three.budget().enabled());
  EXPECT_STREQ(three.StrategyName(), "rotate");
}

// NCCL's kernels wait on other GPUs: never measured, whatever the filter says.
TEST(Planner, NcclKernelsAreNeverMeasured) {
  EXPECT_TRUE(IsNcclKernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"));
  EXPECT_TRUE(
      IsNcclKernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
  EXPECT_TRUE(IsNcclKernel("ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)"));
  EXPECT_TRUE(IsNcclKernel("ncclSymkDevKernel_AllReduce_AGxLL_R_sum_f32(ncclSymkDevWorkArgs4K)"));
  EXPECT_TRUE(
      IsNcclKernel("void ncclAllReduceRingLLKernel<2, FuncSum<float>, float>(CollectiveArgs)"));
  EXPECT_TRUE(IsNcclKernel("ncclDevKernel_SendRecv"));  // no parameters
  EXPECT_FALSE(IsNcclKernel("void at::native::elementwise_kernel<128, 4>(int, ncclKernelLike)"));
  EXPECT_FALSE(IsNcclKernel("my_nccl_free_kernel(float*)"));
  EXPECT_FALSE(IsNcclKernel("ncclReduceHelper(float*)"));  // no Kernel in its name
  EXPECT_FALSE(IsNcclKernel("sm90_xmma_gemm_bf16bf16_bf16f32"));
  EXPECT_FALSE(IsNcclKernel(""));

  CounterOptions o;
  o.per_signature = 1;
  Planner p(o, /*rotate=*/false, /*region_mode=*/false);
  const std::string nccl =
      "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";
  bool is_nccl = false;
  const auto& name = p.KernelName(nccl.c_str(), &is_nccl);
  EXPECT_TRUE(is_nccl);
  EXPECT_EQ(name.first.rfind("ncclDevKernel_AllReduce", 0), 0u) << name.first;
  EXPECT_FALSE(name.second);  // not wanted, whatever the filter
  FakeStack stack;
  const Signature sig{name.first, {8, 1, 1}, {512, 1, 1}};
  EXPECT_FALSE(p.WantSample(sig, name.second, stack));
  EXPECT_TRUE(p.Settled(sig, name.second));  // nothing to measure: the idle switch may go off
  const std::string saxpy = "_Z5saxpyifPfS_";
  EXPECT_TRUE(p.KernelName(saxpy.c_str(), &is_nccl).second);
  EXPECT_FALSE(is_nccl);
}

// The GPT-2 step on the H200 (session 9): 101 launches replayed for 14.2 s among 17,659.
TEST(Planner, ReplayAdviceForALoopThatPaidSecondsOfReplay) {
  CounterOptions o;
  o.metrics = {"roofline"};
  o.per_signature = 1;
  Planner replay(o, /*rotate=*/false, /*region_mode=*/false);
  CounterStats& s = replay.stats();
  EXPECT_EQ(replay.ReplayAdviceOnce(), "");  // nothing replayed yet: not given, kept for later
  s.launches_measured = 101;
  s.launches_seen = 17659;
  s.measure_ns = 14200000000ull;
  EXPECT_EQ(replay.ReplayAdvice(),
            "kernel replay took 14.2 s for 101 launches (141 ms each) in a program of 17659 "
            "kernel launches: for a loop, --replay=rotate --per-signature=1 measures each "
            "signature on later launches without replay, once the loop has run twice as many "
            "times as the metrics take passes, then stops measuring; with instruction "
            "counters, the launches it measures get kernel records made from their launch "
            "calls (docs/counters.md)");
  // The progress line gives it once.
  EXPECT_EQ(replay.ReplayAdviceOnce(), replay.ReplayAdvice());
  EXPECT_EQ(replay.ReplayAdviceOnce(), "");
  EXPECT_NE(replay.ReplayAdvice(), "");
  s.launches_seen = 1000;  // a program that runs its kernels a few times: no loop to use
  EXPECT_EQ(replay.ReplayAdvice(), "");
  s.launches_seen = 17659;
  s.measure_ns = 1500000000ull;  // cheap enough
  EXPECT_EQ(replay.ReplayAdvice(), "");
  Planner rotate(o, /*rotate=*/true, /*region_mode=*/false);
  rotate.stats() = s;
  rotate.stats().measure_ns = 14200000000ull;
  EXPECT_EQ(rotate.ReplayAdvice(), "");
}

TEST(Planner, WindowsGrowAndTurnOverBetweenSignatures) {
  RotateSim sim(RotateOptions(), /*passes=*/2);
  // Nothing known yet: the first launch opens the way for the next (runs of one
  // signature); launches 2 and 3 are the two passes of the first set.
  for (int i = 0; i < 5; ++i) sim.Run(Sig("A"));
  ASSERT_EQ(sim.sets.size(), 1u);
  EXPECT_EQ(sim.sets[0].sig, Sig("A"));
  EXPECT_EQ(sim.sets[0].correlation_ids, (std::vector<uint32_t>{2, 3}));
  // After a clean set the windows hold 2 launches (period 1, doubled): 4 and 5 fill
  // the first pass, the second is open.
  EXPECT_TRUE(sim.c.window_open);
  EXPECT_EQ(sim.c.period, 1u);
  EXPECT_EQ(sim.c.window_cap, 2u);
  ASSERT_EQ(sim.c.windows.size(), 2u);
  EXPECT_EQ(sim.c.windows[0].size(), 2u);
  EXPECT_EQ(sim.planner.stats().launches_measured, 4u);
  EXPECT_EQ(sim.calls.measured, (std::vector<uint32_t>{2, 3, 4, 5}));

  // B is not the launch the period predicts: the set is cut before it (its second
  // pass submitted empty) and its two ranges are dropped. B's windows start at one
  // launch again.
  sim.Run(Sig("B"));
  EXPECT_EQ(sim.dropped(DropReason::kInterrupted), 2u);
  EXPECT_EQ(sim.planner.stats().sets_dropped, 2u);
  EXPECT_TRUE(sim.c.window_open);
  EXPECT_EQ(sim.c.window_cap, 1u);
  sim.Run(Sig("B"));
  sim.Run(Sig("B"));
  ASSERT_EQ(sim.sets.size(), 2u);
  EXPECT_EQ(sim.sets[1].sig, Sig("B"));
  EXPECT_EQ(sim.sets[1].correlation_ids, (std::vector<uint32_t>{7, 8}));
  EXPECT_EQ(sim.planner.Samples(Sig("A")), 1u);
  EXPECT_EQ(sim.planner.Samples(Sig("B")), 1u);
  EXPECT_EQ(sim.dropped(DropReason::kMismatch), 0u);
  // The end: the set in progress (B's launch 9 opened it) is dropped, and no pass
  // stays open.
  sim.Run(Sig("B"));
  sim.End();
  EXPECT_FALSE(sim.calls.in_pass());
  EXPECT_EQ(sim.calls.starts, sim.calls.stops);
  EXPECT_EQ(sim.dropped(DropReason::kEnd), 1u);
}

TEST(Planner, CountersDemoCompletes) {
  // examples/counters_demo 5 3 1000 as tests/gpu/gpu_test.cc runs it with rotate
  // (6 metrics, 2 passes): saxpy x5, sgemm x3, one_block x1000.
  RotateSim sim(RotateOptions(/*window=*/2048), /*passes=*/2);
  for (int i = 0; i < 5; ++i) sim.Run(Sig("saxpy", 262144));
  for (int i = 0; i < 3; ++i) sim.Run(Sig("sgemm_naive", 64));
  for (int i = 0; i < 1000; ++i) sim.Run(Sig("one_block"));
  sim.End();
  EXPECT_GE(sim.planner.Samples(Sig("saxpy", 262144)), 1u);
  EXPECT_GE(sim.planner.Samples(Sig("sgemm_naive", 64)), 1u);  // launches 2 and 3
  EXPECT_GT(sim.planner.Samples(Sig("one_block")), 100u);
  EXPECT_GE(sim.planner.stats().sets_complete * 2, 900u);
  for (const RangeMatch& m : sim.sets) EXPECT_EQ(m.correlation_ids.size(), 2u);
  EXPECT_EQ(sim.dropped(DropReason::kMismatch), 0u);
}

TEST(Planner, WindowGrowthStopsAtTheImage) {
  RotateSim sim(RotateOptions(/*window=*/4), /*passes=*/1);
  for (int i = 0; i < 40; ++i) sim.Run(Sig("A"));
  EXPECT_EQ(sim.c.window_cap, 4u);
  size_t launches = 0;
  for (const RangeMatch& m : sim.sets) launches += m.correlation_ids.size();
  EXPECT_EQ(launches, sim.sets.size());  // one pass: one launch per set
  EXPECT_GT(sim.sets.size(), 30u);
}

TEST(Planner, WindowsStopGrowingAt32Launches) {
  RotateSim sim(RotateOptions(/*window=*/2048), /*passes=*/2);
  for (int i = 0; i < 1000; ++i) sim.Run(Sig("A"));
  EXPECT_EQ(sim.c.window_cap, RotateDriver::kGrowTo);
  // A run ends in an incomplete set of at most 2 x 32 launches.
  sim.Run(Sig("B"));
  EXPECT_GE(sim.sets.size() * 2, 1000u - 1 - 2 * 32);
}

TEST(Planner, InterleavedSignaturesUseThePeriod) {
  // A B C A B C ...: windows of 3 launches (then 6, 12, 24, 30), every pass starts
  // at an A, every range matches.
  RotateSim sim(RotateOptions(), /*passes=*/3);
  for (int i = 0; i < 300; ++i) sim.Run(Sig(std::string(1, static_cast<char>('A' + i % 3))));
  EXPECT_EQ(sim.c.period, 3u);
  EXPECT_EQ(sim.c.window_cap, 30u);
  EXPECT_EQ(sim.dropped(DropReason::kMismatch), 0u);
  for (const char* s : {"A", "B", "C"}) EXPECT_GT(sim.planner.Samples(Sig(s)), 20u) << s;
  // Each sample's launches are one period-multiple apart: the same launch of the step.
  for (const RangeMatch& m : sim.sets) {
    ASSERT_EQ(m.correlation_ids.size(), 3u);
    EXPECT_EQ((m.correlation_ids[1] - m.correlation_ids[0]) % 3, 0u);
  }
}

// A loop too short for the passes (4 layers of 5 kernels: 20 launches of period 5, a set
// of 9 passes of 5 needs 45) is tried once: a set on that period waits for a longer run
// (RotateDriver::RunTooShort). The steps differ after the loop (no step period), so
// only the loop's period is ever found. A loop of 40 layers later is measured.
TEST(Planner, ALoopTooShortForThePassesIsNotTriedAgain) {
  for (bool remember : {true, false}) {
    RotateSim sim(RotateOptions(/*window=*/2048), /*passes=*/9);
    int step = 0;
    size_t loop_sets = 0;  // sets begun on the loop's period
    auto run = [&](const Signature& sig) {
      const uint64_t before = sim.planner.stats().sets_started;
      sim.Run(sig);
      if (sim.planner.stats().sets_started > before && sim.c.period == 5) ++loop_sets;
      if (!remember) sim.c.short_runs.clear();
    };
    auto one_step = [&](int layers) {
      for (int k = 0; k < 3; ++k) run(Sig("pre" + std::to_string(k)));
      for (int l = 0; l < layers; ++l) {
        for (int k = 0; k < 5; ++k) run(Sig("layer" + std::to_string(k)));
      }
      for (int k = 0; k < 10; ++k)
        run(Sig("post" + std::to_string(step) + "_" + std::to_string(k)));
      ++step;
    };
    for (int i = 0; i < 60; ++i) one_step(4);
    if (remember) {
      EXPECT_LE(loop_sets, 1u);
      EXPECT_GE(sim.planner.stats().sets_held_off, 10u);
      ASSERT_EQ(sim.c.short_runs.count(5), 1u);
      EXPECT_GE(sim.c.short_runs[5], 15u);
      EXPECT_LE(sim.c.short_runs[5], 23u);
      EXPECT_EQ(sim.planner.Samples(Sig("layer0")), 0u);
      // A longer run of the same period is another loop: measured once it outgrows the short one.
      one_step(40);
      EXPECT_GT(sim.planner.Samples(Sig("layer0")), 0u);
    } else {
      EXPECT_GE(loop_sets, 4u) << "without the memory the loop is tried again and again";
    }
  }
}

// A loop of P + 1 layers cannot hold a set either: its period is found after two layers,
// so the set would need P + 2.
// Steps of `layers` layers of 5 kernels, then 10 kernels new in each step (no step
// period): the sets begun on the layers' period.
size_t RunLayerSteps(RotateSim& sim, int steps, int layers) {
  size_t loop_sets = 0;
  for (int step = 0; step < steps; ++step) {
    for (int l = 0; l < layers; ++l) {
      for (int k = 0; k < 5; ++k) {
        const uint64_t before = sim.planner.stats().sets_started;
        sim.Run(Sig("layer" + std::to_string(k)));
        if (sim.planner.stats().sets_started > before && sim.c.period == 5) ++loop_sets;
      }
    }
    for (int k = 0; k < 10; ++k)
      sim.Run(Sig("post" + std::to_string(step) + "_" + std::to_string(k)));
  }
  return loop_sets;
}

TEST(Planner, ALoopOfOneLayerMoreThanThePassesIsTooShortToo) {
  RotateSim sim(RotateOptions(/*window=*/2048), /*passes=*/9);
  EXPECT_LE(RunLayerSteps(sim, 60, 10), 1u);
  EXPECT_EQ(sim.c.short_runs.count(5), 1u);
}

// A step longer than the launch history (P = 9, 1,200 launches a step: a set needs
// 10,800 launches of the period, the history holds 8,256) that is cut at its end (an
// evaluation between epochs) is not judged short: its start was never seen. A review
// found it held off for good (0 samples in 48,000 launches).
TEST(Planner, AStepLongerThanTheHistoryIsNeverHeldOff) {
  CounterOptions o = RotateOptions(/*window=*/2048);
  RotateSim sim(o, /*passes=*/9);
  auto step = [&] {
    for (int k = 0; k < 1200; ++k) sim.Run(Sig("k" + std::to_string(k)));
  };
  for (int s = 0; s < 12; ++s) step();
  for (int k = 0; k < 50; ++k) sim.Run(Sig("eval" + std::to_string(k)));
  const uint64_t samples = sim.planner.stats().sets_complete;
  for (int s = 0; s < 40; ++s) step();
  EXPECT_TRUE(sim.c.short_runs.empty());
  EXPECT_EQ(sim.planner.stats().sets_held_off, 0u);
  EXPECT_GE(sim.planner.stats().sets_complete, samples + 2 * 1200);
}

// With a budget, a run of one kernel begins a set once it has lasted as long as the set
// (5 one-launch passes: 5 launches); a run of 8 then ends 2 launches short. PyTorch's
// AdamW fills its state with such runs in the first step (H200, 2026-12-02: 0.6-0.9 s
// of step 0 in sets on them, none completed). The run is remembered for that kernel
// (ContextPlan::short_single_runs): later runs as short wait, a kernel of another
// signature does not, and a longer run of it is measured.
TEST(Planner, WithABudgetARunOfOneKernelTooShortIsNotTriedAgain) {
  CounterOptions o = RotateOptions(/*window=*/2048);
  o.per_signature = 1;
  RotateSim sim(o, /*passes=*/5);
  size_t sets_on_fill = 0;
  auto run = [&](const Signature& sig) {
    const uint64_t before = sim.planner.stats().sets_started;
    sim.Run(sig);
    if (sim.planner.stats().sets_started > before && sig == Sig("fill")) ++sets_on_fill;
  };
  // No step period: each step's other kernels are new.
  auto step = [&](int s, const char* kernel, int length) {
    for (int k = 0; k < 3; ++k) run(Sig("pre" + std::to_string(s) + "_" + std::to_string(k)));
    for (int k = 0; k < length; ++k) run(Sig(kernel));
  };
  for (int s = 0; s < 20; ++s) step(s, "fill", 8);
  EXPECT_EQ(sets_on_fill, 1u);
  EXPECT_EQ(sim.planner.Samples(Sig("fill")), 0u);
  ASSERT_EQ(sim.c.short_single_runs.size(), 1u);
  EXPECT_EQ(sim.c.short_single_runs.begin()->second, 8u);
  EXPECT_GT(sim.planner.stats().sets_held_off, 0u);
  // Runs of 8 of another kernel are tried once, on their own.
  const uint64_t sets = sim.planner.stats().sets_started;
  for (int s = 20; s < 24; ++s) step(s, "copy", 8);
  EXPECT_EQ(sim.c.short_single_runs.size(), 2u);
  EXPECT_EQ(sim.planner.stats().sets_started, sets + 1);
  // A run of 16 outgrows the short one: the set begins after its 9th launch, its 5
  // one-launch passes are launches 10 to 14.
  step(24, "fill", 16);
  EXPECT_EQ(sim.planner.Samples(Sig("fill")), 1u);
  EXPECT_EQ(sim.c.short_single_runs.count(sim.planner.Intern(Sig("fill"))), 0u);
  EXPECT_EQ(sets_on_fill, 2u);
}

// The same step with a budget: a set waits until the run fills the history (a set of
// 9 x 1,200 launches is longer), then holds every signature of the step.
TEST(Planner, WithABudgetAStepLongerThanTheHistoryIsSampled) {
  CounterOptions o = RotateOptions(/*window=*/2048);
  o.per_signature = 1;
  RotateSim sim(o, /*passes=*/9);
  for (int s = 0; s < 20; ++s) {
    for (int k = 0; k < 1200; ++k) sim.Run(Sig("k" + std::to_string(k)));
  }
  EXPECT_EQ(sim.planner.stats().sets_complete, 1200u);
  EXPECT_GT(sim.planner.stats().sets_deferred, 0u);
}

// A step longer than the history, cut once by an evaluation after its set began: the
// run (longer than the history) is not remembered as short, or no later run, seen at
// most as long as the history, could outgrow it (a review found 0 samples in 60,000
// launches after the evaluation). With a budget and without.
TEST(Planner, ALoopCutAfterOutgrowingTheHistoryIsNotHeldOff) {
  for (int budget : {1, 0}) {
    CounterOptions o = RotateOptions(/*window=*/2048);
    o.per_signature = budget;
    RotateSim sim(o, /*passes=*/9);
    auto step = [&](int n) {
      for (int k = 0; k < n; ++k) sim.Run(Sig("k" + std::to_string(k)));
    };
    for (int k = 0; k < 100; ++k) sim.Run(Sig("warm" + std::to_string(k)));
    for (int s = 0; s < 15; ++s) step(600);
    for (int k = 0; k < 50; ++k) sim.Run(Sig("eval" + std::to_string(k)));
    const uint64_t samples = sim.planner.stats().sets_complete;
    for (int s = 0; s < 100; ++s) step(600);
    EXPECT_TRUE(sim.c.short_runs.empty()) << "budget " << budget;
    EXPECT_GE(sim.planner.stats().sets_complete, samples + (budget ? 600 - samples : 600))
        << "budget " << budget;
    EXPECT_EQ(sim.planner.stats().sets_held_off, 0u) << "budget " << budget;
  }
}

// With a budget, a loop of layers too short for a set is remembered as without one:
// after its first cut set (begun once the run had lasted as long as the set), its
// later runs as short wait.
TEST(Planner, WithABudgetALoopTooShortIsRemembered) {
  CounterOptions o = RotateOptions(/*window=*/2048);
  o.per_signature = 1;
  RotateSim sim(o, /*passes=*/5);
  // 8 layers: a set of 5 passes of 5 begins after 25 launches of the run and needs 25
  // more; the loop ends after 40.
  EXPECT_EQ(RunLayerSteps(sim, 40, 8), 1u);
  ASSERT_EQ(sim.c.short_runs.count(5), 1u);
  EXPECT_GE(sim.c.short_runs[5], 35u);
  EXPECT_GT(sim.planner.stats().sets_held_off, 10u);
}

TEST(Planner, AGraphLaunchCutsTheSet) {
  RotateSim sim(RotateOptions(), /*passes=*/2);
  for (int i = 0; i < 40; ++i) sim.Run(Sig(i % 2 ? "B" : "A"));
  const uint64_t before = sim.planner.stats().sets_complete;
  EXPECT_TRUE(sim.c.in_set);
  sim.Graph();
  EXPECT_FALSE(sim.c.in_set);
  EXPECT_FALSE(sim.calls.in_pass());
  EXPECT_GT(sim.dropped(DropReason::kGraph), 0u);
  // The next set re-aligns (once the period is found again, 16 launches later): later
  // launches complete again, without mismatches.
  for (int i = 0; i < 40; ++i) sim.Run(Sig(i % 2 ? "B" : "A"));
  EXPECT_GE(sim.planner.stats().sets_complete, before + 6);
  EXPECT_EQ(sim.dropped(DropReason::kMismatch), 0u);
}

TEST(Planner, FilteredLaunchesInsideWindowsAreNotKept) {
  CounterOptions o = RotateOptions();
  o.kernels = "^A$";
  RotateSim sim(o, /*passes=*/2);
  for (int i = 0; i < 60; ++i) {
    const std::string name = i % 2 ? "B" : "A";
    sim.Run(Sig(name), name == "A");
  }
  EXPECT_GT(sim.planner.Samples(Sig("A")), 5u);
  EXPECT_EQ(sim.planner.Samples(Sig("B")), 0u);
  EXPECT_GT(sim.planner.stats().not_kept, 5u);  // B's ranges: measured, not kept
  for (const RangeMatch& m : sim.sets) EXPECT_EQ(m.sig, Sig("A"));
}

TEST(Planner, ASetWhosePassesSawDifferentSignaturesIsDropped) {
  Planner p(RotateOptions(), /*rotate=*/true, /*region_mode=*/false);
  p.set_passes(2);
  std::vector<std::vector<Launch>> windows = {{{Sig("A"), 1}, {Sig("B"), 2}},
                                              {{Sig("A"), 3}, {Sig("C"), 4}}};
  std::vector<RangeMatch> m = p.Match(windows, 2);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_TRUE(m[0].complete);
  EXPECT_EQ(m[0].sig, Sig("A"));
  EXPECT_EQ(m[0].correlation_ids, (std::vector<uint32_t>{1, 3}));
  EXPECT_FALSE(m[1].complete);
  EXPECT_EQ(p.stats().sets_dropped, 1u);
  EXPECT_EQ(p.stats().dropped_by[static_cast<int>(DropReason::kMismatch)], 1u);
  // Same name, another grid: another signature.
  windows = {{{Sig("A", 1), 5}}, {{Sig("A", 2), 6}}};
  m = p.Match(windows, 1);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_FALSE(m[0].complete);
  EXPECT_EQ(p.stats().sets_dropped, 2u);
}

TEST(Planner, MissingPassesAndShortDecodesAreDropped) {
  Planner p(RotateOptions(), /*rotate=*/true, /*region_mode=*/false);
  p.set_passes(3);
  std::vector<std::vector<Launch>> windows = {{{Sig("A"), 1}}, {{Sig("A"), 2}}};
  std::vector<RangeMatch> m = p.Match(windows, 1);  // 2 of 3 passes ran
  ASSERT_EQ(m.size(), 1u);
  EXPECT_FALSE(m[0].complete);
  EXPECT_EQ(p.stats().sets_dropped, 1u);
  // Four launches, two ranges decoded: the two without a range are dropped.
  p.set_passes(1);
  windows = {{{Sig("A"), 1}, {Sig("A"), 2}, {Sig("A"), 3}, {Sig("A"), 4}}};
  m = p.Match(windows, 2);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_TRUE(m[0].complete && m[1].complete);
  EXPECT_EQ(p.stats().sets_dropped, 3u);
}

TEST(Planner, PerSignatureBudgets) {
  CounterOptions o;
  o.per_signature = 2;
  Planner p(o, /*rotate=*/false, /*region_mode=*/false);
  FakeStack stack;
  EXPECT_TRUE(p.WantSample(Sig("A"), true, stack));
  p.SetComplete(Sig("A"));
  EXPECT_TRUE(p.WantSample(Sig("A"), true, stack));
  p.SetComplete(Sig("A"));
  EXPECT_FALSE(p.WantSample(Sig("A"), true, stack));  // two samples: done
  EXPECT_FALSE(p.WantSample(Sig("A"), true, stack));
  EXPECT_TRUE(p.WantSample(Sig("A", 2), true, stack));  // another grid: its own budget
  EXPECT_TRUE(p.WantSample(Sig("B"), true, stack));
  EXPECT_EQ(p.stats().sets_complete, 2u);
}

TEST(Planner, PerSignatureBudgetBoundsRotateWindows) {
  CounterOptions o = RotateOptions();
  o.per_signature = 3;
  RotateSim sim(o, /*passes=*/1);
  for (int i = 0; i < 10; ++i) sim.Run(Sig("A"));
  // Windows of 1, then 2 (the samples still wanted), then none: the budget is spent.
  EXPECT_EQ(sim.planner.Samples(Sig("A")), 3u);
  EXPECT_EQ(sim.planner.stats().launches_measured, 3u);
  EXPECT_FALSE(sim.c.in_set);
  // A signature with fewer samples opens sets again, once its run has lasted as long
  // as the set (a window of 3, 1 pass): 3 launches, then 3 measured.
  for (int i = 0; i < 5; ++i) sim.Run(Sig("B"));
  EXPECT_EQ(sim.planner.Samples(Sig("B")), 0u);
  sim.Run(Sig("B"));
  EXPECT_EQ(sim.planner.Samples(Sig("B")), 3u);
  EXPECT_EQ(sim.planner.stats().not_kept, 0u);
}

// What the idle launch callbacks rely on (lib/collect/launch_switch.h): a launch is
// settled when nothing can be measured on it any more.
TEST(Planner, SettledSignaturesAndTheirSnapshot) {
  CounterOptions o;
  o.per_signature = 1;
  o.kernels = "^saxpy";
  Planner p(o, /*rotate=*/false, /*region_mode=*/false);
  const std::string saxpy = "_Z5saxpyifPKfPf", gemm = "_Z4gemmv";
  const Signature a{p.KernelName(saxpy.c_str()).first, {4, 1, 1}, {256, 1, 1}};
  const Signature g{p.KernelName(gemm.c_str()).first, {4, 1, 1}, {256, 1, 1}};
  EXPECT_TRUE(p.CanSettle());
  EXPECT_FALSE(p.Settled(a, true));  // no sample yet
  EXPECT_TRUE(p.Settled(g, false));  // the filter leaves it out
  p.SetComplete(a);
  EXPECT_TRUE(p.Settled(a, true));
  Signature a2 = a;
  a2.grid.x = 8;
  EXPECT_FALSE(p.Settled(a2, true));  // another grid: its own budget
  SettledSignatures s = p.SettledSnapshot();
  EXPECT_FALSE(s.all);
  EXPECT_TRUE(s.Contains(a));
  EXPECT_FALSE(s.Contains(a2));
  EXPECT_TRUE(s.Contains(g));  // every grid of a name the filter leaves out
  Signature g2 = g;
  g2.block.x = 64;
  EXPECT_TRUE(s.Contains(g2));

  // launch_count reached: everything is settled, also what was never seen.
  CounterOptions counted;
  counted.per_signature = 0;
  counted.launch_count = 2;
  Planner c(counted, /*rotate=*/false, /*region_mode=*/false);
  EXPECT_TRUE(c.CanSettle());
  EXPECT_FALSE(c.Settled(a, true));
  c.CountMeasured();
  c.CountMeasured();
  EXPECT_TRUE(c.Settled(a, true));
  EXPECT_TRUE(c.SettledSnapshot().Contains(Signature{"never seen", {1, 1, 1}, {1, 1, 1}}));

  // Every launch measured, or counters limited to regions: never settled.
  CounterOptions all;
  all.per_signature = 0;
  Planner every(all, /*rotate=*/true, /*region_mode=*/false);
  every.SetComplete(a);
  EXPECT_FALSE(every.CanSettle());
  EXPECT_FALSE(every.Settled(a, true));
  EXPECT_FALSE(every.Settled(g, false));
  EXPECT_FALSE(every.SettledSnapshot().Contains(g));
  CounterOptions regions;
  regions.regions = "^forward$";
  Planner in_regions(regions, /*rotate=*/false, /*region_mode=*/false);
  in_regions.SetComplete(a);
  EXPECT_FALSE(in_regions.Settled(a, true));
}

// The callbacks were off: a mark in the history, so the launches before it and after
// it are not read as one sequence; no set begins from the launch before the gap.
TEST(Planner, ResumedForgetsTheHistoryAndWaitsTwoPeriods) {
  RotateSim sim(RotateOptions(), /*passes=*/2);
  for (int i = 0; i < 40; ++i) sim.Run(Sig(i % 2 ? "B" : "A"));
  ASSERT_EQ(sim.c.period, 2u);
  const uint64_t total = sim.c.history.total();
  sim.c.last_wanted = true;
  RotateDriver::Resumed(sim.c);
  EXPECT_EQ(sim.c.history.total(), total);  // the count of launches goes on
  EXPECT_EQ(sim.c.history.size(), 0u);
  EXPECT_FALSE(sim.c.last_wanted);
  EXPECT_GE(sim.c.start_after, total + 4);
  // The sequence goes on from another place: B first. No set before two periods.
  const uint64_t sets = sim.planner.stats().sets_started;
  for (int i = 0; i < 4; ++i) sim.Run(Sig(i % 2 ? "A" : "B"));
  EXPECT_EQ(sim.planner.stats().sets_started, sets);
}

TEST(Planner, LaunchSkipAndCount) {
  CounterOptions o;
  o.per_signature = 0;
  o.launch_skip = 2;
  o.launch_count = 3;
  Planner p(o, /*rotate=*/false, /*region_mode=*/false);
  FakeStack stack;
  EXPECT_FALSE(p.WantSample(Sig("other"), false, stack));  // not matching: not counted
  EXPECT_FALSE(p.WantSample(Sig("A"), true, stack));       // skipped 1
  EXPECT_FALSE(p.WantSample(Sig("A"), true, stack));       // skipped 2
  int measured = 0;
  for (int i = 0; i < 10; ++i) {
    if (p.WantSample(Sig("A"), true, stack)) {
      p.CountMeasured();
      ++measured;
    }
  }
  EXPECT_EQ(measured, 3);
  EXPECT_EQ(p.stats().launches_measured, 3u);
  EXPECT_EQ(stack.asked, 0);  // no region filter: the stack is never asked
}

TEST(Planner, CountersLimitedToRegions) {
  CounterOptions o;
  o.per_signature = 0;
  o.regions = "^forward$";
  o.launch_skip = 1;
  Planner p(o, /*rotate=*/false, /*region_mode=*/false);
  FakeStack stack;
  EXPECT_FALSE(p.WantSample(Sig("A"), true, stack));  // outside: not counted for the skip
  stack.names = {"step 1", "forward"};
  EXPECT_FALSE(p.WantSample(Sig("A"), true, stack));  // inside, skipped
  EXPECT_TRUE(p.WantSample(Sig("A"), true, stack));
  stack.names = {"forward pass"};
  EXPECT_FALSE(p.WantSample(Sig("A"), true, stack));
}

TEST(Planner, KernelNamesAreDemangledAndFiltered) {
  CounterOptions o;
  o.kernels = "^saxpy";
  Planner p(o, /*rotate=*/false, /*region_mode=*/false);
  const std::string saxpy = "_Z5saxpyifPKfPf";
  const auto& a = p.KernelName(saxpy.c_str());
  EXPECT_EQ(a.first, "saxpy(int, float, float const*, float*)");
  EXPECT_TRUE(a.second);
  const std::string gemm = "_Z4gemmv";
  const auto& b = p.KernelName(gemm.c_str());
  EXPECT_EQ(b.first, "gemm()");
  EXPECT_FALSE(b.second);
}

TEST(Planner, RegionInstancesAreThePassesOfOneSet) {
  CounterOptions o;
  o.per_signature = 1;
  o.regions = "forward|backward";
  o.region_counters = true;
  Planner p(o, /*rotate=*/true, /*region_mode=*/true);
  p.set_passes(2);
  ContextPlan c;
  EXPECT_FALSE(p.WantRegion("optimizer"));  // does not match
  ASSERT_TRUE(p.WantRegion("forward"));
  p.AddRegionPass(c, "forward", "step 1/forward");
  // While forward's set is in progress, other regions wait.
  EXPECT_FALSE(p.WantRegion("backward"));
  ASSERT_TRUE(p.WantRegion("forward"));
  p.AddRegionPass(c, "forward", "step 2/forward");
  EXPECT_EQ(p.stats().launches_measured, 2u);
  ASSERT_EQ(c.windows.size(), 2u);
  // Every pass carries the first instance's path, so the passes match.
  std::vector<RangeMatch> m = p.Match(c.windows, 1);
  ASSERT_EQ(m.size(), 1u);
  ASSERT_TRUE(m[0].complete);
  EXPECT_EQ(m[0].sig.name, "step 1/forward");
  EXPECT_TRUE(m[0].correlation_ids.empty());
  p.SetComplete(m[0].sig);
  p.EndRegionSet(/*completed=*/true);
  // One sample per region: forward is done, backward's turn.
  EXPECT_FALSE(p.WantRegion("forward"));
  EXPECT_TRUE(p.WantRegion("backward"));
}

TEST(Planner, RegionSkipAndCountCountSets) {
  CounterOptions o;
  o.per_signature = 0;
  o.regions = "fwd";
  o.launch_skip = 1;
  o.launch_count = 2;
  Planner p(o, /*rotate=*/true, /*region_mode=*/true);
  p.set_passes(2);
  ContextPlan c;
  EXPECT_FALSE(p.WantRegion("fwd"));  // skipped
  ASSERT_TRUE(p.WantRegion("fwd"));
  p.AddRegionPass(c, "fwd", "fwd");
  ASSERT_TRUE(p.WantRegion("fwd"));  // a set in progress: no skip, no count check
  p.AddRegionPass(c, "fwd", "fwd");
  p.EndRegionSet(/*completed=*/false);
  EXPECT_FALSE(p.WantRegion("fwd"));  // two instances measured: the count is spent
}

}  // namespace
}  // namespace cuscope::collect
