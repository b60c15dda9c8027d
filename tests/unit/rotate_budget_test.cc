// Rotate's time budget (lib/collect/set_budget.h) alone, and through the rotate driver
// on a simulated clock where a launch inside a window costs what a range costs on the
// GPU and decoding a set what it costs on the host.
#include <string>

#include "gtest/gtest.h"
#include "lib/collect/planner.h"
#include "lib/collect/set_budget.h"
#include "tests/unit/rotate_sim.h"

namespace cuscope::collect {
namespace {

constexpr uint64_t kMs = 1000000;

Signature Sig(int i) { return Signature{"k" + std::to_string(i), {1, 1, 1}, {128, 1, 1}}; }

TEST(SetBudget, ASetBeginsWhileOneMoreLikeTheRecentOnesFits) {
  SetBudget b(50);
  EXPECT_TRUE(b.Allows(5 * kMs));  // no set yet: the time before is not credit
  EXPECT_EQ(b.AllowedAt(), 0u);
  b.Began(10 * kMs);
  b.Charge(10 * kMs, 40 * kMs);  // 30 ms
  EXPECT_EQ(b.charged_ns(), 30 * kMs);
  // 30 charged + 30 expected need 120 ms outside: from 10 ms, 30 in sets, so at 160.
  EXPECT_EQ(b.AllowedAt(), 160 * kMs);
  EXPECT_FALSE(b.Allows(100 * kMs));
  EXPECT_FALSE(b.Allows(160 * kMs - 1));
  EXPECT_TRUE(b.Allows(160 * kMs));
  EXPECT_EQ(b.waits(), 2u);
  EXPECT_EQ(b.Describe(),
            "sets took 0.0 s, 25% of the time outside them (budget 50%); 2 launches passed "
            "while it was spent and the callbacks on");
  b.Observe(400 * kMs);  // the end of the run, callbacks off: the share up to it
  EXPECT_NE(b.Describe().find(", 8% of the time outside them"), std::string::npos)
      << b.Describe();  // 30 of 360 ms
}

// A set stretched by a pause (a checkpoint while a window was open) is the guess of
// the next set's cost only until kRecent sets came after it.
TEST(SetBudget, ALongSetIsForgottenAfterTheNextFew) {
  SetBudget b(50);
  b.Began(1);
  b.Charge(1, 1 + 10000 * kMs);
  EXPECT_EQ(b.NextSetNs(), 10000 * kMs);
  for (size_t i = 0; i < SetBudget::kRecent - 1; ++i) b.Charge(0, 30 * kMs);
  EXPECT_EQ(b.NextSetNs(), 10000 * kMs);
  b.Charge(0, 30 * kMs);
  EXPECT_EQ(b.NextSetNs(), 30 * kMs);
}

TEST(SetBudget, DisabledAllowsAlwaysAndSaysNothing) {
  SetBudget b(0);
  EXPECT_FALSE(b.enabled());
  b.Began(1);
  b.Charge(1, 1000);
  EXPECT_TRUE(b.Allows(2));
  EXPECT_EQ(b.AllowedAt(), 0u);
  EXPECT_EQ(b.charged_ns(), 0u);
  EXPECT_EQ(b.Describe(), "");
  // A budget years long does not overflow (pct x outside in 64 bits would).
  SetBudget big(100000);
  big.Began(1);
  big.Charge(1, 1 + 1000 * kMs);
  EXPECT_TRUE(big.Allows(uint64_t{1} << 62));
}

struct Loop {
  uint64_t measured_ns = 0, other_ns = 0;  // the simulated clock's own account
  uint64_t charged_ns = 0, sets = 0, samples = 0, clock_reads = 0, cut = 0;
  size_t signatures = 0;
};

// A step of 60 launches of 12 signatures, repeated: a launch costs 20 us, one inside a
// window 1 ms (the Range Profiler's per-range cost with the speed-of-light set), and
// decoding a set 50 ms. Every `graph_every` steps (0: never) a graph launch.
Loop RunLoop(int budget_pct, int steps, int graph_every = 0, int shift_every = 0) {
  CounterOptions o = RotateOptions(/*window=*/128);
  o.rotate_budget_pct = budget_pct;
  RotateSim sim(o, /*passes=*/3);
  sim.calls.now_ns = 1;
  sim.calls.decode_cost_ns = 50 * kMs;
  Loop l;
  for (int step = 0; step < steps; ++step) {
    if (graph_every > 0 && step % graph_every == graph_every - 1) sim.Graph();
    // Every `shift_every` steps, two launches of other kernels in a row, changing from
    // step to step: the driver cuts the set in progress at the second (in the launch's
    // API_ENTER).
    const bool shift = shift_every > 0 && step % shift_every == shift_every - 1;
    for (int i = 0; i < 60; ++i) {
      const uint64_t cost = sim.c.window_open ? kMs : 20000;
      (sim.c.window_open ? l.measured_ns : l.other_ns) += cost;
      sim.calls.now_ns += cost;
      const int other = i == 30 ? 100 + step % 11 : 200 + step % 13;  // no period
      sim.Run(Sig(shift && (i == 30 || i == 31) ? other : i % 12));
    }
  }
  sim.End();
  l.measured_ns += sim.calls.decodes * 50 * kMs;
  l.charged_ns = sim.planner.budget().charged_ns();
  l.sets = sim.planner.stats().sets_started;
  l.samples = sim.planner.stats().sets_complete;
  l.clock_reads = sim.calls.clock_reads;
  l.cut = sim.dropped(DropReason::kInterrupted) + sim.dropped(DropReason::kGraph);
  for (int i = 0; i < 12; ++i) l.signatures += sim.planner.Samples(Sig(i)) > 0 ? 1 : 0;
  return l;
}

TEST(RotateBudget, SetsTakeAtMostTheBudgetOfALongLoop) {
  const Loop free = RunLoop(/*budget_pct=*/0, /*steps=*/2000);
  const Loop budget = RunLoop(/*budget_pct=*/50, /*steps=*/2000);
  // Without a budget, sets follow each other (most of the time is in them), and the
  // clock is never read.
  EXPECT_GT(free.measured_ns, 5 * free.other_ns);
  EXPECT_EQ(free.clock_reads, 0u);
  // With one, at most half the time outside them, and the budget is used.
  EXPECT_LE(budget.measured_ns, budget.other_ns / 2);
  EXPECT_GT(budget.measured_ns, budget.other_ns / 4);
  // The charge is the clock's: from the exit that opened a set to the end of the exit
  // that decoded it (the launch that opened it is outside, the last one inside).
  EXPECT_NEAR(static_cast<double>(budget.charged_ns), static_cast<double>(budget.measured_ns),
              0.02 * static_cast<double>(budget.measured_ns));
  // Sets still begin again and again: every signature sampled, many times.
  EXPECT_GE(budget.sets, 8u);
  EXPECT_EQ(budget.signatures, 12u);
  EXPECT_GE(budget.samples, 8u * 12u);
  EXPECT_LT(budget.sets, free.sets);
}

// Graph launches cut sets short (their passes submitted empty, then decoded): the cut
// set is charged at the end of the graph launch's call, and the budget still holds.
TEST(RotateBudget, SetsCutByGraphLaunchesAreCharged) {
  const Loop l = RunLoop(/*budget_pct=*/50, /*steps=*/2000, /*graph_every=*/3);
  EXPECT_GT(l.cut, 0u);
  EXPECT_LE(l.measured_ns, l.other_ns / 2);
  EXPECT_NEAR(static_cast<double>(l.charged_ns), static_cast<double>(l.measured_ns),
              0.02 * static_cast<double>(l.measured_ns));
}

// Sets cut in a launch's API_ENTER (the sequence left its period) are charged too.
TEST(RotateBudget, SetsCutByAShiftedSequenceAreCharged) {
  const Loop l = RunLoop(/*budget_pct=*/50, /*steps=*/2000, /*graph_every=*/0,
                         /*shift_every=*/2);
  EXPECT_GT(l.cut, 0u);
  EXPECT_LE(l.measured_ns, l.other_ns / 2);
  EXPECT_NEAR(static_cast<double>(l.charged_ns), static_cast<double>(l.measured_ns),
              0.02 * static_cast<double>(l.measured_ns));
}

// Two contexts share the budget. One stops launching with a set open (its loop ended):
// that set is not charged while it waits, and the other context's sets go on.
TEST(RotateBudget, AQuietContextsOpenSetDoesNotStopTheOthers) {
  CounterOptions o = RotateOptions(/*window=*/128);
  o.rotate_budget_pct = 50;
  RotateSim a(o, /*passes=*/3);
  ContextPlan quiet;
  SimCalls quiet_calls(a.planner, quiet);
  uint64_t now = 1;
  // The quiet context runs until a set is open on it, then stops.
  for (int i = 0; !quiet.in_set && i < 5000; ++i) {
    now += 20000;
    quiet_calls.now_ns = a.calls.now_ns = now;
    ++a.planner.stats().launches_seen;
    Launch launch{Sig(50 + i % 4), static_cast<uint32_t>(100000 + i),
                  a.planner.WantSample(Sig(50 + i % 4), true, a.stack)};
    RotateDriver(a.planner, quiet_calls).Enter(quiet, launch);
    RotateDriver(a.planner, quiet_calls).Exit(quiet);
  }
  ASSERT_TRUE(quiet.in_set);
  const uint64_t sets_before = a.planner.stats().sets_started;
  for (int step = 0; step < 2000; ++step) {
    for (int i = 0; i < 60; ++i) {
      now += a.c.window_open ? kMs : 20000;
      quiet_calls.now_ns = a.calls.now_ns = now;
      a.Run(Sig(i % 12));
    }
  }
  EXPECT_GE(a.planner.stats().sets_started - sets_before, 8u);
  EXPECT_EQ(a.planner.Samples(Sig(0)) > 0, true);
  const uint64_t charged = a.planner.budget().charged_ns();
  now += kMs;
  quiet_calls.now_ns = now;
  RotateDriver(a.planner, quiet_calls).End(quiet);  // charged when it ends
  EXPECT_GT(a.planner.budget().charged_ns(), charged + 100 * kMs);
}

// A set still running when collection ends is charged by End.
TEST(RotateBudget, EndChargesTheSetInProgress) {
  CounterOptions o = RotateOptions(/*window=*/128);
  o.rotate_budget_pct = 50;
  RotateSim sim(o, /*passes=*/3);
  sim.calls.now_ns = 1;
  while (!sim.c.in_set && sim.next_id < 1000) {
    sim.calls.now_ns += 20000;
    sim.Run(Sig(static_cast<int>(sim.next_id % 4)));
  }
  ASSERT_TRUE(sim.c.in_set);
  const uint64_t began = sim.calls.now_ns;
  sim.calls.now_ns += 7 * kMs;
  sim.End();
  EXPECT_EQ(sim.planner.budget().charged_ns(), sim.calls.now_ns - began);
}

}  // namespace
}  // namespace cuscope::collect
