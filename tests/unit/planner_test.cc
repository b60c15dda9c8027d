// The counter planner (lib/collect/planner.h) over synthetic launch sequences: which
// launches are measured, how windows open, close and grow, and how passes become
// sets. No CUPTI: the Range Profiler is simulated where a sequence needs one.
#include "lib/collect/planner.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace cuscope::collect {
namespace {

class FakeStack : public RegionStack {
 public:
  std::vector<std::string> names;
  mutable int asked = 0;
  const std::vector<std::string>& ThreadRegions() const override {
    ++asked;
    return names;
  }
};

Signature Sig(const std::string& name, uint32_t grid = 1) {
  return Signature{name, {grid, 1, 1}, {128, 1, 1}};
}

// Drives a rotate planner as the sampler's launch callbacks do, with a simulated
// Range Profiler: all passes are submitted when a set has `passes` windows, and
// decoding gives one range per launch of the first window.
struct RotateSim {
  Planner planner;
  ContextPlan c;
  FakeStack stack;
  size_t max_ranges;
  uint32_t next_id = 1;
  std::vector<RangeMatch> sets;  // complete ones, in order

  RotateSim(const CounterOptions& o, size_t passes)
      : planner(o, /*rotate=*/true, /*region_mode=*/false), max_ranges(o.window) {
    planner.set_passes(passes);
  }
  void Close() {
    if (!c.window_open) return;
    c.window_open = false;
    if (c.windows.size() < planner.passes()) return;
    std::vector<std::vector<collect::Launch>> windows = std::move(c.windows);
    c.windows.clear();
    for (RangeMatch& m : planner.Match(windows, windows[0].size())) {
      if (!m.complete) continue;
      planner.SetComplete(m.sig);
      sets.push_back(m);
    }
  }
  void Run(const Signature& sig) {
    const uint32_t id = next_id++;
    const bool want = planner.WantSample(sig, true, stack);
    if (planner.MustCloseBefore(c, sig, want)) Close();
    c.last_sig = sig;
    c.last_wanted = want;
    if (want && c.window_open) {
      c.windows.back().push_back(collect::Launch{sig, id});
      planner.CountMeasured();
    }
    // API_EXIT
    if (c.window_open) {
      if (!planner.WindowFull(c)) return;
      Close();
    }
    if (planner.ShouldOpenAfter(c)) planner.OpenWindow(c, *c.last_sig, max_ranges);
  }
};

CounterOptions RotateOptions() {
  CounterOptions o;
  o.metrics = {"roofline"};
  o.per_signature = 0;
  o.window = 32;
  return o;
}

TEST(Planner, Strategy) {
  CounterOptions o;
  o.per_signature = 0;
  EXPECT_TRUE(UsesRotate(o));
  o.per_signature = 1;
  EXPECT_FALSE(UsesRotate(o));
  o.replay = ReplayMode::kRotate;
  EXPECT_TRUE(UsesRotate(o));
  o.replay = ReplayMode::kKernel;
  o.per_signature = 0;
  EXPECT_FALSE(UsesRotate(o));
}

TEST(Planner, WindowsGrowAndTurnOverBetweenSignatures) {
  RotateSim sim(RotateOptions(), /*passes=*/2);
  // The first launch of a signature opens the way for the next: launch 1 is not
  // measured; launches 2 and 3 are the two passes of the first set.
  for (int i = 0; i < 5; ++i) sim.Run(Sig("A"));
  ASSERT_EQ(sim.sets.size(), 1u);
  EXPECT_EQ(sim.sets[0].sig, Sig("A"));
  EXPECT_EQ(sim.sets[0].correlation_ids, (std::vector<uint32_t>{2, 3}));
  // After a complete set the windows of A hold 2 launches: 4 and 5 fill the first.
  EXPECT_TRUE(sim.c.window_open);
  EXPECT_EQ(sim.c.window_cap, 2u);
  ASSERT_EQ(sim.c.windows.size(), 2u);
  EXPECT_EQ(sim.c.windows[0].size(), 2u);
  EXPECT_EQ(sim.planner.stats().launches_measured, 4u);

  // B ends A's window before its first launch; A's set has an empty second pass and
  // its two ranges are dropped. B's windows start at one launch again.
  sim.Run(Sig("B"));
  EXPECT_EQ(sim.planner.stats().sets_dropped, 2u);
  EXPECT_EQ(sim.c.window_sig, Sig("B"));
  EXPECT_EQ(sim.c.window_cap, 1u);
  sim.Run(Sig("B"));
  sim.Run(Sig("B"));
  ASSERT_EQ(sim.sets.size(), 2u);
  EXPECT_EQ(sim.sets[1].sig, Sig("B"));
  EXPECT_EQ(sim.sets[1].correlation_ids, (std::vector<uint32_t>{7, 8}));
  EXPECT_EQ(sim.planner.Samples(Sig("A")), 1u);
  EXPECT_EQ(sim.planner.Samples(Sig("B")), 1u);
}

TEST(Planner, WindowGrowthStopsAtTheImage) {
  CounterOptions o = RotateOptions();
  o.window = 4;
  RotateSim sim(o, /*passes=*/1);
  for (int i = 0; i < 40; ++i) sim.Run(Sig("A"));
  EXPECT_EQ(sim.c.window_cap, 4u);
  size_t launches = 0;
  for (const RangeMatch& m : sim.sets) launches += m.correlation_ids.size();
  EXPECT_EQ(launches, sim.sets.size());  // one pass: one launch per set
  EXPECT_GT(sim.sets.size(), 30u);
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
  Planner p(o, /*rotate=*/true, /*region_mode=*/false);
  p.set_passes(1);
  ContextPlan c;
  for (int i = 0; i < 2; ++i) {  // grow A's windows: 1, then 2, then 4
    p.OpenWindow(c, Sig("A"), 32);
    c.windows.clear();
  }
  p.SetComplete(Sig("A"));
  p.SetComplete(Sig("A"));
  p.OpenWindow(c, Sig("A"), 32);
  EXPECT_EQ(c.window_cap, 1u);  // one sample left to take
  // A spent budget opens no new set after a launch.
  p.SetComplete(Sig("A"));
  ContextPlan d;
  d.last_sig = Sig("A");
  d.last_wanted = true;
  EXPECT_FALSE(p.ShouldOpenAfter(d));
  d.last_sig = Sig("B");
  EXPECT_TRUE(p.ShouldOpenAfter(d));
  d.last_wanted = false;
  EXPECT_FALSE(p.ShouldOpenAfter(d));
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
