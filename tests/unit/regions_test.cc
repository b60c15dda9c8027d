#include "lib/analysis/regions.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/builders.h"

namespace cuscope::analysis {
namespace {

using testing::ProfileBuilder;
constexpr uint32_t kNone = KernelRangeAttribution::kNone;

const RegionSummaryRow* Find(const std::vector<RegionSummaryRow>& rows, const std::string& path,
                             const std::string& domain = "") {
  for (const auto& r : rows) {
    if (r.path == path && r.domain == domain) return &r;
  }
  return nullptr;
}

// A kernel launched by an API call on `thread` at `api_start`.
void Launch(ProfileBuilder& b, const std::string& kernel, uint32_t correlation, uint64_t api_start,
            uint32_t thread, uint64_t kernel_start, uint64_t kernel_end) {
  b.Api("cudaLaunchKernel", api_start, api_start + 5, correlation, thread);
  b.Kernel(kernel, kernel_start, kernel_end, 7, correlation);
}

// Two threads; depth hints are all left at 0 so nesting must come from containment.
//   thread 100: step [1000,2000] { forward [1100,1500] { attention [1200,1300] },
//                                  backward [1500,1900] }
//               step [3000,4000] { forward [3100,3400] }
//   thread 200: step [1000,1800] { load [1100,1200] }
ProfileBuilder NestedProfile() {
  ProfileBuilder b;
  b.Range("step", 1000, 2000, 0, 100);
  b.Range("attention", 1200, 1300, 0, 100);  // out of order on purpose
  b.Range("forward", 1100, 1500, 0, 100);
  b.Range("backward", 1500, 1900, 0, 100);
  b.Range("step", 3000, 4000, 0, 100);
  b.Range("forward", 3100, 3400, 0, 100);
  b.Range("step", 1000, 1800, 0, 200);
  b.Range("load", 1100, 1200, 0, 200);
  return b;
}

TEST(RegionsTest, PathsFromContainmentOnTwoThreads) {
  ProfileBuilder b = NestedProfile();
  std::vector<RegionSummaryRow> rows = SummarizeRegions(b.profile());
  ASSERT_EQ(rows.size(), 5u);

  const RegionSummaryRow* step = Find(rows, "step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->stats.count, 3u);  // two on thread 100, one on thread 200
  EXPECT_EQ(step->stats.total_ns, 2800u);
  EXPECT_DOUBLE_EQ(step->stats.median_ns, 1000.0);
  EXPECT_EQ(step->stats.min_ns, 800u);

  const RegionSummaryRow* forward = Find(rows, "step/forward");
  ASSERT_NE(forward, nullptr);
  EXPECT_EQ(forward->stats.count, 2u);
  EXPECT_EQ(forward->stats.total_ns, 700u);
  EXPECT_DOUBLE_EQ(forward->stats.avg_ns, 350.0);

  const RegionSummaryRow* attention = Find(rows, "step/forward/attention");
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(attention->stats.count, 1u);
  EXPECT_EQ(attention->stats.total_ns, 100u);

  // backward starts where forward ends: not inside forward.
  ASSERT_NE(Find(rows, "step/backward"), nullptr);
  // load is under thread 200's step only.
  const RegionSummaryRow* load = Find(rows, "step/load");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->stats.count, 1u);

  // Ranked by total wall time.
  EXPECT_EQ(rows[0].path, "step");
  EXPECT_EQ(rows[1].path, "step/forward");
  EXPECT_EQ(rows[2].path, "step/backward");
}

TEST(RegionsTest, KernelsAttributedThroughCorrelationToEnclosingRegions) {
  ProfileBuilder b = NestedProfile();
  // Launched inside attention (thread 100); the kernel itself runs much later.
  Launch(b, "attn_kernel", 1, 1250, 100, 9000, 9050);
  // Launched inside backward.
  Launch(b, "bwd_kernel", 2, 1600, 100, 9100, 9170);
  // Launched on thread 200 at 1250: inside thread 200's step but not in load.
  Launch(b, "io_kernel", 3, 1250, 200, 9200, 9230);
  // Launched at 1250 on a thread without regions: nowhere.
  Launch(b, "other_kernel", 4, 1250, 300, 9300, 9310);
  // Launched on thread 100 between the steps: nowhere.
  Launch(b, "gap_kernel", 5, 2500, 100, 9400, 9410);
  // A kernel without a matching API call: nowhere.
  b.Kernel("orphan", 9500, 9600, 7, 99);

  std::vector<RegionSummaryRow> rows = SummarizeRegions(b.profile());
  const RegionSummaryRow* step = Find(rows, "step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->kernel_count, 3u);
  EXPECT_EQ(step->gpu_time_ns, 50u + 70u + 30u);
  ASSERT_EQ(step->top_kernels.size(), 3u);
  EXPECT_EQ(step->top_kernels[0].name, "bwd_kernel");
  EXPECT_EQ(step->top_kernels[0].total_ns, 70u);
  EXPECT_EQ(step->top_kernels[1].name, "attn_kernel");
  EXPECT_EQ(step->top_kernels[2].name, "io_kernel");

  const RegionSummaryRow* forward = Find(rows, "step/forward");
  ASSERT_NE(forward, nullptr);
  EXPECT_EQ(forward->kernel_count, 1u);
  EXPECT_EQ(forward->gpu_time_ns, 50u);

  const RegionSummaryRow* attention = Find(rows, "step/forward/attention");
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(attention->kernel_count, 1u);
  ASSERT_EQ(attention->top_kernels.size(), 1u);
  EXPECT_EQ(attention->top_kernels[0].name, "attn_kernel");
  EXPECT_EQ(attention->top_kernels[0].count, 1u);

  const RegionSummaryRow* backward = Find(rows, "step/backward");
  ASSERT_NE(backward, nullptr);
  EXPECT_EQ(backward->kernel_count, 1u);
  EXPECT_EQ(backward->gpu_time_ns, 70u);

  const RegionSummaryRow* load = Find(rows, "step/load");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->kernel_count, 0u);
  EXPECT_TRUE(load->top_kernels.empty());
}

TEST(RegionsTest, RangeBoundsAreInclusive) {
  ProfileBuilder b;
  b.Range("r", 1000, 2000);
  Launch(b, "at_start", 1, 1000, 100, 5000, 5010);
  Launch(b, "at_end", 2, 2000, 100, 5100, 5110);
  Launch(b, "after", 3, 2001, 100, 5200, 5210);
  Launch(b, "before", 4, 999, 100, 5300, 5310);
  std::vector<RegionSummaryRow> rows = SummarizeRegions(b.profile());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kernel_count, 2u);
  EXPECT_EQ(rows[0].gpu_time_ns, 20u);
}

TEST(RegionsTest, StartEndRangeAttributedToStartingThread) {
  ProfileBuilder b;
  // Started on thread 100, ended on thread 200: recorded with thread 100.
  model::RangeRecord& io = b.Range("io", 5000, 6000, 0, 100);
  io.source = model::RangeSource::kNvtxStartEnd;
  Launch(b, "on_starter", 1, 5500, 100, 7000, 7100);
  Launch(b, "on_ender", 2, 5500, 200, 7200, 7240);
  std::vector<RegionSummaryRow> rows = SummarizeRegions(b.profile());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].path, "io");
  EXPECT_EQ(rows[0].kernel_count, 1u);
  EXPECT_EQ(rows[0].gpu_time_ns, 100u);
  ASSERT_EQ(rows[0].top_kernels.size(), 1u);
  EXPECT_EQ(rows[0].top_kernels[0].name, "on_starter");
}

TEST(RegionsTest, StartEndRangeEnclosingPushPopRangesNests) {
  ProfileBuilder b;
  model::RangeRecord& epoch = b.Range("epoch", 1000, 9000, 0, 100);
  epoch.source = model::RangeSource::kNvtxStartEnd;
  b.Range("batch", 2000, 3000, 0, 100);
  b.Range("batch", 4000, 5000, 0, 100);
  Launch(b, "k", 1, 2500, 100, 9500, 9600);
  std::vector<RegionSummaryRow> rows = SummarizeRegions(b.profile());
  const RegionSummaryRow* batch = Find(rows, "epoch/batch");
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(batch->stats.count, 2u);
  EXPECT_EQ(batch->kernel_count, 1u);
  const RegionSummaryRow* e = Find(rows, "epoch");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kernel_count, 1u);
}

TEST(RegionsTest, MarksAndInvalidRangesExcluded) {
  ProfileBuilder b;
  b.Range("real", 1000, 2000);
  model::RangeRecord& mark = b.Range("mark", 1500, 1500);
  mark.source = model::RangeSource::kNvtxMark;
  b.Range("zero", 1600, 1600);    // start == end: a mark
  b.Range("unended", 1700, 0);    // end before start
  b.Range("unstarted", 0, 1800);  // start unset
  std::vector<RegionSummaryRow> rows = SummarizeRegions(b.profile());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].path, "real");
}

TEST(RegionsTest, DomainsAreSeparateRows) {
  ProfileBuilder b;
  b.Range("step", 1000, 2000, 0, 100, "");
  b.Range("step", 3000, 3500, 0, 100, "pytorch");
  std::vector<RegionSummaryRow> rows = SummarizeRegions(b.profile());
  ASSERT_EQ(rows.size(), 2u);
  const RegionSummaryRow* plain = Find(rows, "step", "");
  const RegionSummaryRow* torch = Find(rows, "step", "pytorch");
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(plain->stats.total_ns, 1000u);
  EXPECT_EQ(torch->stats.total_ns, 500u);
}

TEST(RegionsTest, TopKernelsLimitedToFiveByTotal) {
  ProfileBuilder b;
  b.Range("r", 1000, 2000);
  // Kernels k0..k6 with totals 10, 20, ..., 70; k6 launched twice (35 + 35).
  for (uint32_t i = 0; i < 6; ++i) {
    Launch(b, "k" + std::to_string(i), 10 + i, 1100 + i, 100, 5000 + 100 * i,
           5000 + 100 * i + 10 * (i + 1));
  }
  Launch(b, "k6", 20, 1200, 100, 6000, 6035);
  Launch(b, "k6", 21, 1300, 100, 6100, 6135);
  std::vector<RegionSummaryRow> rows = SummarizeRegions(b.profile());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kernel_count, 8u);
  EXPECT_EQ(rows[0].gpu_time_ns, 10u + 20 + 30 + 40 + 50 + 60 + 70);
  ASSERT_EQ(rows[0].top_kernels.size(), 5u);
  EXPECT_EQ(rows[0].top_kernels[0].name, "k6");
  EXPECT_EQ(rows[0].top_kernels[0].count, 2u);
  EXPECT_EQ(rows[0].top_kernels[0].total_ns, 70u);
  EXPECT_EQ(rows[0].top_kernels[1].name, "k5");
  EXPECT_EQ(rows[0].top_kernels[4].name, "k2");
}

TEST(AttributeKernelsToRangesTest, InnermostRangeAndParents) {
  ProfileBuilder b = NestedProfile();
  Launch(b, "attn_kernel", 1, 1250, 100, 9000, 9050);  // kernel index 0
  Launch(b, "io_kernel", 2, 1150, 200, 9100, 9130);    // kernel index 1, in load
  Launch(b, "gap_kernel", 3, 2500, 100, 9200, 9210);   // kernel index 2
  KernelRangeAttribution a = AttributeKernelsToRanges(b.profile());
  ASSERT_EQ(a.kernel_range.size(), 3u);
  EXPECT_EQ(a.kernel_range[0], 1u);     // attention
  EXPECT_EQ(a.range_parent[1], 2u);     // attention in forward
  EXPECT_EQ(a.range_parent[2], 0u);     // forward in step
  EXPECT_EQ(a.range_parent[0], kNone);  // step at the top
  EXPECT_EQ(a.range_parent[3], 0u);     // backward in step
  EXPECT_EQ(a.range_parent[5], 4u);     // second forward in second step
  EXPECT_EQ(a.kernel_range[1], 7u);     // load
  EXPECT_EQ(a.range_parent[7], 6u);     // load in thread 200's step
  EXPECT_EQ(a.kernel_range[2], kNone);
  EXPECT_EQ(a.order.size(), 8u);
}

TEST(AttributeKernelsToRangesTest, ManyRangesAndKernels) {
  // 2 threads x 2000 steps, each with an inner range; one kernel per inner range
  // and one per step outside the inner range.
  ProfileBuilder b;
  uint32_t correlation = 1;
  for (uint32_t thread : {100u, 200u}) {
    for (uint64_t i = 0; i < 2000; ++i) {
      const uint64_t base = 1000 + i * 1000;
      b.Range("step", base, base + 900, 0, thread);
      b.Range("inner", base + 100, base + 400, 0, thread);
      Launch(b, "in_inner", correlation++, base + 200, thread, 5000000 + i, 5000000 + i + 10);
      Launch(b, "in_step", correlation++, base + 600, thread, 6000000 + i, 6000000 + i + 20);
    }
  }
  std::vector<RegionSummaryRow> rows = SummarizeRegions(b.profile());
  ASSERT_EQ(rows.size(), 2u);
  const RegionSummaryRow* step = Find(rows, "step");
  const RegionSummaryRow* inner = Find(rows, "step/inner");
  ASSERT_NE(step, nullptr);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(step->stats.count, 4000u);
  EXPECT_EQ(step->kernel_count, 8000u);
  EXPECT_EQ(step->gpu_time_ns, 4000u * 10 + 4000u * 20);
  EXPECT_EQ(inner->stats.count, 4000u);
  EXPECT_EQ(inner->kernel_count, 4000u);
  EXPECT_EQ(inner->gpu_time_ns, 4000u * 10);
}

TEST(ApiByCorrelationTest, DenseIdsRuntimePreferredInvalidSkipped) {
  ProfileBuilder b;
  b.Api("cudaLaunchKernel", 100, 110, 1);                                   // index 0
  b.Api("cuLaunchKernel", 200, 205, 2).domain = model::ApiDomain::kDriver;  // index 1
  b.Api("cudaLaunchKernel", 198, 210, 2);                                   // index 2
  b.Api("cuLaunchKernel", 212, 215, 2).domain = model::ApiDomain::kDriver;  // index 3
  b.Api("cudaLaunchKernel", 300, 290, 3);                                   // index 4, end < start
  b.Api("cudaGetDevice", 400, 410, 0);                                      // index 5, no id
  ApiByCorrelation apis(b.profile());
  EXPECT_EQ(apis.Find(1), 0u);
  EXPECT_EQ(apis.Find(2), 2u);
  EXPECT_EQ(apis.Find(3), ApiByCorrelation::kNone);
  EXPECT_EQ(apis.Find(0), ApiByCorrelation::kNone);
  EXPECT_EQ(apis.Find(4), ApiByCorrelation::kNone);
  EXPECT_EQ(apis.Find(1u << 31), ApiByCorrelation::kNone);
  EXPECT_EQ(ApiByCorrelation().Find(1), ApiByCorrelation::kNone);
}

TEST(ApiByCorrelationTest, SparseIds) {
  ProfileBuilder b;
  b.Api("cudaLaunchKernel", 100, 110, 4000000000u);
  b.Api("cudaLaunchKernel", 200, 210, 7);
  ApiByCorrelation apis(b.profile());
  EXPECT_EQ(apis.Find(4000000000u), 0u);
  EXPECT_EQ(apis.Find(7), 1u);
  EXPECT_EQ(apis.Find(8), ApiByCorrelation::kNone);
  // Attribution works the same through the sparse index.
  b.Range("r", 50, 150);
  b.Kernel("k", 1000, 1100, 7, 4000000000u);
  KernelRangeAttribution a = AttributeKernelsToRanges(b.profile());
  EXPECT_EQ(a.kernel_range[0], 0u);
}

}  // namespace
}  // namespace cuscope::analysis
