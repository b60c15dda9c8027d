// Rotate's planner and driver (lib/collect/rotate_driver.h) on launch sequences
// recorded on the H200: a transformers GPT-2 training step (809 launches in step 0,
// then 581 launches of 96 signatures per step, interleaved) and the GEMM benchmarks.
// The recorded steps are repeated to 3P steps and run through the simulated Range
// Profiler of rotate_sim.h: the calls the sampler makes on the GPU.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/recorded_launches.h"

namespace cuscope::collect {
namespace {

class Gpt2Steps : public ::testing::TestWithParam<size_t> {};

TEST_P(Gpt2Steps, EverySignatureOfTheStepWithin3PSteps) {
  const size_t passes = GetParam();
  std::vector<std::vector<Recorded>> steps = LoadSteps("h200-gpt2-step-trace.sqlite");
  ASSERT_EQ(steps.size(), 4u);
  ASSERT_EQ(steps[0].size(), 809u);
  ASSERT_EQ(steps[1].size(), 581u);
  for (size_t i = 0; i < steps[1].size(); ++i) {
    ASSERT_EQ(steps[1][i].sig, steps[2][i].sig);
    ASSERT_EQ(steps[1][i].sig, steps[3][i].sig);
  }
  RotateSim sim(RotateOptions(/*window=*/2048), passes);
  // Step 0 (warm-up), then step 1 repeated: 3P steps in all.
  uint64_t mismatch_at_period = 0;
  bool period_known = false;
  for (size_t s = 0; s < 3 * passes; ++s) {
    for (const Recorded& r : StepAt(steps, s)) {
      sim.Run(r.sig);
      if (!period_known && sim.c.in_set && sim.c.period == steps[1].size()) {
        period_known = true;
        mismatch_at_period = sim.dropped(DropReason::kMismatch);
      }
    }
  }
  const Coverage cov = CoverageOf(sim, steps[1]);
  const CounterStats& st = sim.planner.stats();
  std::cerr << "P=" << passes << ": " << sim.planner.Describe() << "; coverage "
            << cov.signatures * 100 << "% of signatures, " << cov.time * 100
            << "% of GPU time; mismatches before the step's period was found " << mismatch_at_period
            << "; " << sim.calls.resets << " counter data initializations ("
            << sim.calls.ended_empty << " sets ended in an empty pass)\n";
  EXPECT_TRUE(period_known) << "the step's period (581 launches) was never used";
  EXPECT_GE(cov.signatures, 0.95);
  EXPECT_GE(cov.time, 0.95);
  // On the repeating steps, once the step's period is known, no range mismatches.
  EXPECT_EQ(sim.dropped(DropReason::kMismatch), mismatch_at_period);
  EXPECT_EQ(st.dropped_by[static_cast<int>(DropReason::kNotDecoded)], 0u);
  EXPECT_EQ(sim.calls.starts, sim.calls.stops + (sim.calls.in_pass() ? 1 : 0));
  // Sets share an image, except after a set that ended in an empty pass.
  EXPECT_LE(sim.calls.resets, sim.calls.ended_empty + 2);
  // Every sample's launches are whole steps apart: the same launch of the step.
  for (const RangeMatch& m : sim.sets) {
    ASSERT_EQ(m.correlation_ids.size(), passes);
  }
  sim.End();
  EXPECT_FALSE(sim.calls.in_pass());
}

// roofline, sol and full on GH100.
INSTANTIATE_TEST_SUITE_P(Passes, Gpt2Steps, ::testing::Values(7, 9, 22));

TEST(RotateReal, PerSignatureBudgetStopsAndReopens) {
  std::vector<std::vector<Recorded>> steps = LoadSteps("h200-gpt2-step-trace.sqlite");
  ASSERT_EQ(steps.size(), 4u);
  CounterOptions o = RotateOptions(2048);
  o.per_signature = 1;
  RotateSim sim(o, /*passes=*/7);
  for (size_t s = 0; s < 30; ++s) {
    for (const Recorded& r : StepAt(steps, s)) sim.Run(r.sig);
  }
  EXPECT_GE(CoverageOf(sim, steps[1]).signatures, 0.95);
  const uint64_t started = sim.planner.stats().sets_started;
  const uint64_t measured = sim.planner.stats().launches_measured;
  // Every signature of the step has its sample: further steps open no sets...
  for (size_t s = 0; s < 10; ++s) {
    for (const Recorded& r : steps[1]) sim.Run(r.sig);
  }
  EXPECT_LE(sim.planner.stats().sets_started, started + 1);
  // ...until a signature with fewer samples appears (the kernel of another grid).
  for (size_t s = 0; s < 10; ++s) {
    for (const Recorded& r : steps[1]) sim.Run(r.sig);
    sim.Run(Signature{"new_kernel", {1, 1, 1}, {32, 1, 1}});
    sim.Run(Signature{"new_kernel", {1, 1, 1}, {32, 1, 1}});
  }
  EXPECT_GT(sim.planner.stats().sets_started, started + 1);
  EXPECT_GT(sim.planner.stats().launches_measured, measured);
  for (const RangeMatch& m : sim.sets) {
    EXPECT_LE(sim.planner.Samples(m.sig), 1u) << m.sig.name;
  }
}

// On the H200 (session 9, `--metrics=sol --per-signature=1 --replay=rotate` on 30 GPT-2
// steps) steps 0 and 1 took 14-18 s against 1.7 s unprofiled: about 40 sets were begun
// on guessed periods (runs of one launch, the 34- and 53-launch layer periods) and cut
// by the next launch, each costing about 0.8 s of Range Profiler calls, one sample
// among them. Session 13's memory of short runs left step 0's (2026-12-02, H200,
// roofline: step 0 2,500 ms against 641 ms unprofiled, 1,092 ms of it inside 499
// measured launches, all for nothing). With a budget, a set on a period now waits until
// the period's run has lasted as long as the set (RotateDriver::RunNotYetLongEnough):
// the layer loops never do, the step's period does after P steps.
TEST(RotateReal, WithABudgetTheFirstStepsAreNotMeasuredForNothing) {
  std::vector<std::vector<Recorded>> steps = LoadSteps("h200-gpt2-step-trace.sqlite");
  ASSERT_EQ(steps.size(), 4u);
  for (size_t passes : {7, 9}) {
    CounterOptions o = RotateOptions(2048);
    o.per_signature = 1;
    RotateSim sim(o, passes);
    std::vector<size_t> measured;  // launches measured in each step
    size_t complete_at = 0;
    for (size_t s = 0; s < 3 * passes; ++s) {
      const size_t before = sim.calls.measured.size();
      for (const Recorded& r : StepAt(steps, s)) sim.Run(r.sig);
      measured.push_back(sim.calls.measured.size() - before);
      if (complete_at == 0 && CoverageOf(sim, steps[1]).signatures >= 0.95) complete_at = s + 1;
    }
    size_t before_period = 0;  // launches measured in steps 0 to P-1
    for (size_t s = 0; s < passes; ++s) before_period += measured[s];
    const CounterStats& st = sim.planner.stats();
    std::cerr << "P=" << passes << ": launches measured in step 0: " << measured[0]
              << ", steps 0 to P-1: " << before_period << "; 95% of signatures after "
              << complete_at << " steps; " << sim.calls.resets << " counter data initializations; "
              << sim.planner.Describe() << "\n";
    // A run of one kernel as long as the set is tried once (AdamW's state filled by runs
    // of 7-10 launches: on the H200 at 1f69f16, before short runs of one kernel were
    // remembered, 7 (P=7) and 3 (P=9) launches measured in step 0, as simulated here
    // then, in 4 and 3 sets costing 0.6 and 0.85 s).
    EXPECT_LE(measured[0], 2u) << "P=" << passes;
    EXPECT_LE(before_period, 4u) << "P=" << passes;
    EXPECT_LE(st.sets_started, 4u) << "P=" << passes;
    EXPECT_GT(complete_at, 0u) << "P=" << passes;
    EXPECT_LE(complete_at, 2 * passes + 2) << "P=" << passes;
    EXPECT_GE(CoverageOf(sim, steps[1]).time, 0.95) << "P=" << passes;
    // Hardly any set is cut.
    EXPECT_LE(st.sets_dropped, 3u) << "P=" << passes;
    EXPECT_GT(st.sets_deferred, 0u) << "P=" << passes;
    EXPECT_LE(sim.calls.resets, sim.calls.ended_empty + 2);
  }
}

// Every launch measured. GPT-2 has 6 layers: a loop of layers (34 launches forward, 53
// backward) holds 6 windows, fewer than 7 or 9 passes, so every set on a layer's period is cut.
// Without the memory of those short runs (ContextPlan::short_runs) the sets were tried again in
// steps 1 and 2, 272 launches measured for nothing at 9 passes, ~0.3 s on the H200 (1.2 ms a
// measured launch), and their failures grew the wait that delayed the set on the step's period deep
// into step 3.
TEST(RotateReal, LayerLoopsTooShortForThePassesAreNotTriedAgain) {
  std::vector<std::vector<Recorded>> steps = LoadSteps("h200-gpt2-step-trace.sqlite");
  ASSERT_EQ(steps.size(), 4u);
  for (size_t passes : {7, 9}) {
    CounterOptions o = RotateOptions(2048);
    o.per_signature = 0;  // every launch (with a budget, sets wait for long runs first)
    RotateSim sim(o, passes);
    size_t layer_sets_after_warmup = 0;  // sets on a period other than 1 and the step's
    std::vector<size_t> measured;        // launches measured in each step
    for (size_t s = 0; s < 14; ++s) {
      const size_t before = sim.calls.measured.size();
      for (const Recorded& r : StepAt(steps, s)) {
        const uint64_t sets = sim.planner.stats().sets_started;
        sim.Run(r.sig);
        const size_t period = sim.c.period;
        if (s > 0 && sim.planner.stats().sets_started > sets && period > 1 && period != 581) {
          ++layer_sets_after_warmup;
        }
      }
      measured.push_back(sim.calls.measured.size() - before);
    }
    std::cerr << "P=" << passes << ": launches measured in steps 0-3: " << measured[0] << ", "
              << measured[1] << ", " << measured[2] << ", " << measured[3] << "; "
              << sim.planner.stats().sets_held_off << " sets held off\n";
    EXPECT_EQ(layer_sets_after_warmup, 0u) << "P=" << passes;
    EXPECT_GE(sim.c.short_runs.size(), 2u);
    EXPECT_LE(measured[1] + measured[2], 20u) << "P=" << passes;
    // The set on the step's period begins early in step 3 (9 passes: at its first
    // launches; 7: after a wait from run-of-one guesses). It began 481 launches in.
    EXPECT_GE(measured[3], 400u) << "P=" << passes;
    EXPECT_GE(CoverageOf(sim, steps[1]).signatures, 0.95) << "P=" << passes;
  }
}

// Images sized to each set (the default since session 11): the
// warm-up's short sets, most of them cut (and so followed by a re-initialization),
// initialize 64-range images instead of 2,048-range ones. CUPTI's initialization costs
// in proportion (H200: 18 ms for 64 ranges, 590 ms for 2,048).
TEST(RotateReal, SizedImagesInitializeFewerRanges) {
  std::vector<std::vector<Recorded>> steps = LoadSteps("h200-gpt2-step-trace.sqlite");
  ASSERT_EQ(steps.size(), 4u);
  size_t initialized[2] = {0, 0};
  uint64_t samples[2] = {0, 0};
  size_t reenables[2] = {0, 0};
  for (int sized = 0; sized < 2; ++sized) {
    // Every launch (with a budget, the warm-up's guesses wait for long runs instead).
    RotateSim sim(RotateOptions(2048), /*passes=*/9);
    sim.calls.size_images = sized == 1;
    for (size_t s = 0; s < 30; ++s) {
      for (const Recorded& r : StepAt(steps, s)) sim.Run(r.sig);
    }
    initialized[sized] = sim.calls.ranges_initialized;
    reenables[sized] = sim.calls.reenables;
    samples[sized] = sim.planner.stats().sets_complete;
    std::cerr << (sized ? "sized: " : "fixed: ") << sim.calls.resets << " initializations, "
              << sim.calls.ranges_initialized << " ranges initialized, " << sim.calls.reenables
              << " new objects; " << sim.planner.Describe() << "\n";
  }
  EXPECT_EQ(samples[1], samples[0]);
  EXPECT_LE(4 * initialized[1], initialized[0]);
  // A new Range Profiler object for each larger image (the simulator fails a set that
  // outgrows its object), a few times a run, not every set.
  EXPECT_EQ(reenables[0], 0u);
  EXPECT_GE(reenables[1], 1u);
  EXPECT_LE(reenables[1], 4u);
}

// Runs too short for the passes (5 launches of each kernel, 9 passes): every set on a
// run-of-one guess fails, and the wait grows. Then kernels that never repeat: each
// would begin a set cut before its first launch, not judged, and the wait must hold
// those off too (each costs its passes on the GPU).
TEST(RotateReal, GuessesThatNeverPayAreHeldOff) {
  RotateSim sim(RotateOptions(2048), /*passes=*/9);
  int id = 0;
  auto sig = [](int k) { return Signature{"k" + std::to_string(k), {1, 1, 1}, {32, 1, 1}}; };
  for (int r = 0; r < 100; ++r) {
    const int k = id++;
    for (int j = 0; j < 5; ++j) sim.Run(sig(k));
  }
  EXPECT_EQ(sim.planner.stats().sets_complete, 0u);
  EXPECT_GT(sim.c.backoff, 0u);
  const uint64_t before = sim.planner.stats().sets_started;
  for (int j = 0; j < 60; ++j) sim.Run(sig(id++));
  EXPECT_LE(sim.planner.stats().sets_started - before, 2u) << sim.planner.Describe();
}

TEST(RotateReal, GemmBenchmarks) {
  // The GEMMs of bench/device/gemm_precisions.py 4096,8192 on the H200 (2 repetitions
  // after a warm-up: 10 GEMMs run 3 times in a row) and, with every kernel timed, on an
  // H100 80GB HBM3 on 2026-12-06 (1 repetition: each GEMM twice, no run of 3, so only
  // the loop below applies to it).
  const std::pair<const char*, size_t> kFiles[] = {{"h200-gemm-roofline.sqlite", 10},
                                                   {"h100-gemm-tensor-metrics.sqlite", 0}};
  for (const auto& [file, runs_of_3] : kFiles) {
    std::vector<std::vector<Recorded>> seq = LoadSteps(file);
    ASSERT_EQ(seq.size(), 1u);
    // As recorded, with 2 passes: a run of 3 launches of one GEMM gives a sample, but
    // where the run follows launches that alternate (no period, and no runs to
    // guess from: its first launch opens no set).
    RotateSim once(RotateOptions(), /*passes=*/2);
    for (const Recorded& r : seq[0]) once.Run(r.sig);
    once.End();
    EXPECT_EQ(once.dropped(DropReason::kMismatch), 0u) << file;
    std::map<std::string, int> run;  // the longest run of each name
    for (size_t i = 0, n = 1; i < seq[0].size(); ++i, ++n) {
      if (i > 0 && seq[0][i].sig != seq[0][i - 1].sig) n = 1;
      run[seq[0][i].sig.name] = std::max<int>(run[seq[0][i].sig.name], n);
    }
    size_t runs = 0, sampled = 0;
    for (const auto& [name, longest] : run) {
      if (longest < 3) continue;
      ++runs;
      for (const Recorded& r : seq[0]) {
        if (r.sig.name == name && once.planner.Samples(r.sig) > 0) {
          ++sampled;
          break;
        }
      }
    }
    EXPECT_EQ(runs, runs_of_3) << file;
    std::cerr << file << " as recorded: " << sampled << " of " << runs
              << " GEMMs run 3 times sampled; " << once.planner.Describe() << "\n";
    EXPECT_GE(sampled * 4, runs * 3) << file;
    // The benchmark as a loop, 3P times with P = 7: every signature.
    RotateSim loop(RotateOptions(2048), /*passes=*/7);
    for (int k = 0; k < 21; ++k) {
      for (const Recorded& r : seq[0]) loop.Run(r.sig);
    }
    EXPECT_GE(CoverageOf(loop, seq[0]).signatures, 0.95) << file;
    EXPECT_GE(CoverageOf(loop, seq[0]).time, 0.95) << file;
  }
}

TEST(RotateReal, AGraphLaunchInTheStep) {
  std::vector<std::vector<Recorded>> steps = LoadSteps("h200-gpt2-step-trace.sqlite");
  ASSERT_EQ(steps.size(), 4u);
  RotateSim sim(RotateOptions(2048), /*passes=*/7);
  // A graph launch after the forward of step 11 (one step): that set is cut, and
  // the next sets re-align.
  for (size_t s = 0; s < 30; ++s) {
    for (size_t i = 0; i < StepAt(steps, s).size(); ++i) {
      if (s == 11 && i == 200) sim.Graph();
      sim.Run(StepAt(steps, s)[i].sig);
    }
  }
  EXPECT_GT(sim.dropped(DropReason::kGraph), 0u);
  EXPECT_GE(CoverageOf(sim, steps[1]).signatures, 0.95);
  EXPECT_GE(CoverageOf(sim, steps[1]).time, 0.95);
  EXPECT_FALSE(sim.calls.in_pass() && !sim.c.window_open);
}

}  // namespace
}  // namespace cuscope::collect
