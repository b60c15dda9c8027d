// Several ranks' profiles side by side (lib/analysis/ranks.h) and their text
// (lib/report/ranks_text.h), on synthetic profiles.
#include "lib/analysis/ranks.h"

#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/report/ranks_text.h"
#include "tests/unit/builders.h"

namespace cuscope::analysis {
namespace {

using cuscope::testing::ProfileBuilder;
using ::testing::HasSubstr;

// A rank of a DDP job: `steps` step regions of `step_ns` each (plus `extra_ns` on
// step `slow_step`), one gemm and one NCCL all-reduce per step.
ProfileBuilder Rank(int rank, int steps, uint64_t step_ns, uint64_t nccl_ns, uint64_t extra_ns = 0,
                    int slow_step = -1) {
  ProfileBuilder b;
  b.profile().run.rank = rank;
  b.profile().run.pid = 100 + rank;
  b.profile().run.start_ns = 1000;
  uint64_t t = 1000;
  for (int i = 0; i < steps; ++i) {
    const uint64_t d = step_ns + (i == slow_step ? extra_ns : 0);
    b.Range("step", t, t + d);
    b.Kernel("gemm", t + 10, t + 110);
    b.Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
             t + 200, t + 200 + nccl_ns);
    t += d + 10;
  }
  b.profile().run.end_ns = t;
  return b;
}

TEST(IsStepName, StepsAndNotSteps) {
  for (const char* yes : {"step", "Step", "step 3", "step_12", "ProfilerStep#4", "train_step",
                          "training_step", "STEP#1"}) {
    EXPECT_TRUE(IsStepName(yes)) << yes;
  }
  for (const char* no : {"steps", "stepper", "forward", "optimizer.step_size", "", "backstep"}) {
    EXPECT_FALSE(IsStepName(no)) << no;
  }
}

TEST(CompareRanks, PerRankTimesNcclAndStragglersBySteps) {
  ProfileBuilder r1 = Rank(1, 4, 10000, 3000, /*extra_ns=*/5000, /*slow_step=*/2);
  ProfileBuilder r0 = Rank(0, 4, 10000, 8000);
  // Given out of order: sorted by rank.
  RankComparison c = CompareRanks({{&r1.profile(), "b.sqlite"}, {&r0.profile(), "a.sqlite"}});
  ASSERT_EQ(c.ranks.size(), 2u);
  EXPECT_EQ(c.ranks[0].rank, 0);
  EXPECT_EQ(c.ranks[0].label, "a.sqlite");
  EXPECT_EQ(c.ranks[1].rank, 1);
  EXPECT_EQ(c.ranks[0].kernel_count, 8u);
  EXPECT_EQ(c.ranks[0].kernel_ns, 4u * (100 + 8000));
  EXPECT_EQ(c.ranks[0].nccl_ns, 4u * 8000);
  EXPECT_EQ(c.ranks[0].nccl_count, 4u);
  EXPECT_EQ(c.ranks[1].nccl_ns, 4u * 3000);
  // Rank 0 waited in the all-reduce for rank 1.
  EXPECT_EQ(c.ranks[0].nccl_excess_ns, 4u * 5000);
  EXPECT_EQ(c.ranks[1].nccl_excess_ns, 0u);
  EXPECT_EQ(c.ranks[1].step_ns, (std::vector<uint64_t>{10000, 10000, 15000, 10000}));
  const Stragglers& s = c.stragglers;
  EXPECT_EQ(s.basis, "steps");
  EXPECT_EQ(s.step_name, "step");
  EXPECT_EQ(s.steps_compared, 4u);
  EXPECT_EQ(s.max_skew_ns, 5000u);
  EXPECT_EQ(s.max_skew_step, 2u);
  EXPECT_EQ(s.median_skew_ns, 0u);
  // Kernels: both ranks' names, by the sum over ranks.
  ASSERT_EQ(c.kernels.size(), 2u);
  EXPECT_THAT(c.kernels[0].name, HasSubstr("ncclDevKernel_AllReduce"));
  EXPECT_EQ(c.kernels[0].total_ns, (std::vector<uint64_t>{32000, 12000}));
  EXPECT_EQ(c.kernels[1].name, "gemm");
  EXPECT_EQ(c.kernels[1].count, (std::vector<uint64_t>{4, 4}));
}

TEST(CompareRanks, SlowestRankByMedianStep) {
  ProfileBuilder r0 = Rank(0, 5, 10000, 1000);
  ProfileBuilder r1 = Rank(1, 5, 12000, 1000);
  ProfileBuilder r2 = Rank(2, 3, 11000, 1000);  // fewer steps: 3 compared
  RankComparison c =
      CompareRanks({{&r0.profile(), "0"}, {&r1.profile(), "1"}, {&r2.profile(), "2"}});
  EXPECT_EQ(c.stragglers.steps_compared, 3u);
  EXPECT_EQ(c.stragglers.slowest, 1u);
  EXPECT_EQ(c.stragglers.fastest, 0u);
  EXPECT_DOUBLE_EQ(c.stragglers.skew_percent, 20.0);
  EXPECT_EQ(c.stragglers.median_skew_ns, 2000u);
}

TEST(CompareRanks, WithoutCommonStepsByWallTime) {
  ProfileBuilder r0 = Rank(0, 0, 0, 0);
  r0.Kernel("gemm", 1000, 2000);
  r0.profile().run.end_ns = 2001000;
  ProfileBuilder r1 = Rank(1, 2, 10000, 500);
  RankComparison c = CompareRanks({{&r0.profile(), "0"}, {&r1.profile(), "1"}});
  EXPECT_EQ(c.stragglers.basis, "wall");
  EXPECT_EQ(c.stragglers.slowest, 0u);
  EXPECT_EQ(c.stragglers.fastest, 1u);
  EXPECT_EQ(c.stragglers.max_skew_ns, c.ranks[0].wall_ns - c.ranks[1].wall_ns);
  EXPECT_EQ(c.ranks[0].nccl_count, 0u);
  EXPECT_EQ(c.ranks[0].nccl_excess_ns, 0u);
}

TEST(CompareRanks, ProfilesWithoutARankComeLastInTheirOrder) {
  ProfileBuilder a = Rank(-1, 1, 100, 10), b = Rank(3, 1, 100, 10), n = Rank(-1, 1, 100, 10);
  RankComparison c = CompareRanks({{&a.profile(), "a"}, {&b.profile(), "b"}, {&n.profile(), "n"}});
  EXPECT_EQ(c.ranks[0].label, "b");
  EXPECT_EQ(c.ranks[1].label, "a");
  EXPECT_EQ(c.ranks[2].label, "n");
}

TEST(WriteRanksText, RanksStragglersAndKernels) {
  ProfileBuilder r0 = Rank(0, 4, 10000, 8000);
  ProfileBuilder r1 = Rank(1, 4, 10000, 3000, 5000, 2);
  RankComparison c =
      CompareRanks({{&r0.profile(), "ddp.0.sqlite"}, {&r1.profile(), "ddp.1.sqlite"}});
  std::ostringstream out;
  report::WriteRanksText(c, {}, out);
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("cuscope report: 2 profiles\n"));
  EXPECT_THAT(text, HasSubstr("ddp.0.sqlite\n"));
  EXPECT_THAT(text, HasSubstr("32.000 us (4)"));  // rank 0's NCCL time and count
  EXPECT_THAT(text, HasSubstr("by step regions \"step\": 4 steps in every rank"));
  EXPECT_THAT(text, HasSubstr("max 5.000 us at step 2"));
  EXPECT_THAT(text, HasSubstr("Rank 0     Rank 1  Name"));
  EXPECT_THAT(text, HasSubstr("gemm\n"));
}

}  // namespace
}  // namespace cuscope::analysis
