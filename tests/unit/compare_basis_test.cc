// `cuscope diff` compares like with like (lib/analysis/compare_basis.h): kernel time
// over the launches both profiles timed alike, what each profiler removed, and findings
// resolved only when the program's own quantity changed.
#include "lib/analysis/compare_basis.h"

#include <cmath>
#include <string>

#include "gtest/gtest.h"
#include "lib/analysis/compare.h"
#include "lib/analysis/summary.h"
#include "tests/unit/builders.h"

namespace cuscope::analysis {
namespace {

using model::MemcpyKind;
using model::MemoryKind;

// `launches` launches of "k" of `ns` each, one per microsecond, each with its API call;
// every `measured_every`-th one (1-based; 0: none) measured with counters and slowed 3x.
void Kernels(testing::ProfileBuilder& b, int launches, uint64_t ns, int measured_every = 0) {
  for (int i = 0; i < launches; ++i) {
    const uint64_t start = 1000 + 1000 * uint64_t(i);
    const uint32_t correlation = 1 + uint32_t(i);
    b.Api("cudaLaunchKernel", start - 100, start - 50, correlation);
    const bool measured = measured_every > 0 && (i + 1) % measured_every == 0;
    model::KernelRecord& k = b.Kernel("k", start, start + (measured ? 3 * ns : ns), 7, correlation);
    if (measured) k.flags |= model::kKernelCountersMeasured;
  }
}

// What rotate notes: its strategy, the launches it measured, records held off in sets.
void RotateNotes(testing::ProfileBuilder& b, int64_t launches_measured) {
  model::RunNotes& notes = b.profile().run.notes;
  notes.counters_strategy = "rotate";
  notes.counters_launches_measured = launches_measured;
  notes.counters_kernel_trace = "kernel, copy, memset, sync and event records are held off";
}

TEST(KernelTime, MeasuredLaunchesLeftOutWhileTheirKernelHasOthers) {
  testing::ProfileBuilder b;
  Kernels(b, 6, 100, 3);                                                // k: 4 x 100 ns, 2 measured
  b.Kernel("all", 9000, 9500).flags |= model::kKernelCountersMeasured;  // every launch measured
  const Summary s = Summarize(b.profile());
  EXPECT_EQ(s.kernel_count, 7u);
  EXPECT_EQ(s.kernel_ns, 400u + 500u);
  EXPECT_EQ(s.timed_launches, 5u);
  EXPECT_EQ(s.measured_launches, 3u);
  EXPECT_EQ(s.measured_left_out, 2u);
  const std::vector<uint8_t> mask = KernelTimeMask(b.profile());
  EXPECT_EQ(mask, (std::vector<uint8_t>{1, 1, 0, 1, 1, 0, 1}));
}

TEST(CompareBasis, TraceAgainstCountersOfOneProgramIsNoChange) {
  testing::ProfileBuilder trace, counters;
  Kernels(trace, 9, 100);
  Kernels(counters, 9, 100, 3);  // a third measured, three times as long
  RotateNotes(counters, 3);
  counters.profile().run.notes.counters_measure_ms = "2541.2";
  const Comparison c = Compare(trace.profile(), counters.profile());
  EXPECT_EQ(c.base_kernel_ns, 900u);  // each profile's own kernel time
  EXPECT_EQ(c.next_kernel_ns, 600u);
  EXPECT_FALSE(c.kernel_time.whole);
  EXPECT_EQ(c.kernel_time.base.total_ns, 600u);  // the 6 launches both timed by CUPTI
  EXPECT_EQ(c.kernel_time.next.total_ns, 600u);
  EXPECT_EQ(c.kernel_time.base.left_out, 3u);
  EXPECT_EQ(c.kernel_time.next.left_out, 3u);
  EXPECT_FALSE(c.kernel_time.changed());
  EXPECT_TRUE(c.kernel_count_compared);
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_EQ(c.kernels[0].total_change_ns(), 0);
  EXPECT_EQ(c.kernels[0].left_out, LeftOut::kMeasured);
  EXPECT_EQ(c.next_profiler.measured_launches, 3u);
  EXPECT_EQ(c.next_profiler.launches_without_records, 0u);
  EXPECT_DOUBLE_EQ(c.next_profiler.held_ms, 2541.2);
  EXPECT_TRUE(c.base_profiler.plain());
  EXPECT_FALSE(c.next_profiler.plain());
}

TEST(CompareBasis, AChangeBeyondThreePercentIsReported) {
  for (const auto& [ns, changed] :
       {std::pair{102, false}, std::pair{97, false}, std::pair{104, true}, std::pair{90, true}}) {
    testing::ProfileBuilder base, next;
    Kernels(base, 9, 100);
    Kernels(next, 9, ns, 3);
    RotateNotes(next, 3);
    const Comparison c = Compare(base.profile(), next.profile());
    EXPECT_EQ(c.kernel_time.changed(), changed) << ns;
    EXPECT_NEAR(c.kernel_time.change_percent(), double(ns) - 100, 1e-9) << ns;
  }
}

TEST(CompareBasis, LaunchesAddedByTheProgramCountWhereRecordsAreComplete) {
  testing::ProfileBuilder base, next;
  Kernels(base, 9, 100);
  Kernels(next, 12, 100);  // three more launches: the program's change
  const Comparison c = Compare(base.profile(), next.profile());
  EXPECT_TRUE(c.kernel_time.whole);
  EXPECT_EQ(c.kernel_time.next.total_ns, 1200u);
  EXPECT_TRUE(c.kernel_time.changed());
  EXPECT_TRUE(c.kernel_count_compared);
}

TEST(CompareBasis, LaunchesWithoutRecordsAreNotCompared) {
  // Rotate that kept no record of the 4 launches it measured: NEW has 5 of the 9.
  testing::ProfileBuilder base, next;
  Kernels(base, 9, 100);
  Kernels(next, 5, 100);
  RotateNotes(next, 4);
  const Comparison c = Compare(base.profile(), next.profile());
  EXPECT_EQ(c.next_profiler.launches_without_records, 4u);
  EXPECT_FALSE(c.kernel_count_compared);
  EXPECT_EQ(c.kernel_time.base.launches, 5u);  // the base's extra launches: no partner
  EXPECT_EQ(c.kernel_time.base.left_out, 4u);
  EXPECT_FALSE(c.kernel_time.changed());
  EXPECT_EQ(c.kernels[0].left_out, LeftOut::kNoRecord);
}

TEST(CompareBasis, MemsetsHeldOffInSetsAreNotCompared) {
  testing::ProfileBuilder base, next, plain;
  for (uint64_t t : {100, 200, 300}) base.Memset(64, t, t + 10);
  next.Memset(64, 100, 110);
  plain.Memset(64, 100, 110);
  RotateNotes(next, 0);
  Comparison c = Compare(base.profile(), next.profile());
  ASSERT_EQ(c.memory.size(), 1u);
  EXPECT_TRUE(c.memory[0].not_compared);
  EXPECT_TRUE(c.next_profiler.copies_held);
  // The same fewer memsets from a plain trace: the program's change.
  c = Compare(base.profile(), plain.profile());
  EXPECT_FALSE(c.memory[0].not_compared);
  // Equal counts are compared even where records were held off.
  c = Compare(next.profile(), next.profile());
  EXPECT_FALSE(c.memory[0].not_compared);
}

TEST(CompareBasis, TraceSettingThatLeavesMemoryOutIsNotCompared) {
  testing::ProfileBuilder base, next;
  base.Memset(64, 100, 110);
  next.profile().run.notes.settings = {{"trace", "kernel,api"}};
  const Comparison c = Compare(base.profile(), next.profile());
  EXPECT_TRUE(c.next_profiler.memory_untraced);
  ASSERT_EQ(c.memory.size(), 1u);
  EXPECT_TRUE(c.memory[0].not_compared);
}

// Pageable copies that fall under the minimum gain of a wall time the profiler stretched:
// the copies are the same, so the finding stayed.
TEST(CompareBasis, FindingUnderAStretchedWallTimeStayed) {
  auto copies = [](testing::ProfileBuilder& b, uint64_t wall_ns) {
    b.profile().run.start_ns = 1;
    b.profile().run.end_ns = 1 + wall_ns;
    b.Api("cudaMemcpy", 50, 400, 1001);
    b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPageable, 1000000, 100, 300100);
  };
  testing::ProfileBuilder base, next, fixed;
  copies(base, 1000000);
  copies(next, 1000000000);  // 1 s of wall: the copies' gain is under 0.5% of it
  RotateNotes(next, 0);
  fixed.profile().run.start_ns = 1;
  fixed.profile().run.end_ns = 1000001;
  fixed.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPinned, 1000000, 100, 20100);
  Comparison c = Compare(base.profile(), next.profile());
  int seen = 0;
  for (const FindingChange& f : c.findings) {
    if (f.rule != "pageable_copies") continue;
    ++seen;
    EXPECT_EQ(f.kind, FindingChangeKind::kStayed);
    EXPECT_EQ(f.side, FindingSide::kNext);
    EXPECT_EQ(f.why, FindingWhy::kUnderMinimum);
    EXPECT_GT(f.next_gain_ns, 0);
  }
  EXPECT_EQ(seen, 1);
  // Pinned copies: the program's own change resolved it.
  c = Compare(base.profile(), fixed.profile());
  bool resolved = false;
  for (const FindingChange& f : c.findings) {
    resolved |= f.rule == "pageable_copies" && f.kind == FindingChangeKind::kResolved;
  }
  EXPECT_TRUE(resolved);
}

// A kernel rule fired from counters in one profile is not compared against a profile
// that measured no counters of that kernel.
TEST(CompareBasis, CounterFindingAgainstATraceIsNotCompared) {
  std::vector<FindingChange> changes(1);
  changes[0].kind = FindingChangeKind::kAppeared;
  changes[0].rule = "small_grid";
  changes[0].kernel = "k";
  changes[0].gpu_basis = true;
  testing::ProfileBuilder trace, counters;
  Kernels(trace, 3, 100);
  Kernels(counters, 3, 100);
  ConfirmFindingChanges(trace.profile(), EffectsOf(trace.profile()), counters.profile(),
                        EffectsOf(counters.profile()), {}, changes);
  EXPECT_EQ(changes[0].kind, FindingChangeKind::kNotCompared);
  EXPECT_EQ(changes[0].side, FindingSide::kBase);
  EXPECT_EQ(changes[0].why, FindingWhy::kNoCounters);
}

}  // namespace
}  // namespace cuscope::analysis
