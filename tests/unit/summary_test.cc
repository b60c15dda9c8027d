#include "lib/analysis/summary.h"

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/builders.h"

namespace cuscope::analysis {
namespace {

using model::MemcpyKind;
using model::MemoryKind;
using testing::ProfileBuilder;

const KernelSummaryRow* FindKernel(const Summary& s, const std::string& name) {
  for (const auto& r : s.kernels) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

const MemorySummaryRow* FindMemory(const Summary& s, const std::string& op) {
  for (const auto& r : s.memory) {
    if (r.operation == op) return &r;
  }
  return nullptr;
}

TEST(ComputeStatsTest, OddCount) {
  DurationStats s = ComputeStats({5, 1, 3});
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.total_ns, 9u);
  EXPECT_DOUBLE_EQ(s.avg_ns, 3.0);
  EXPECT_DOUBLE_EQ(s.median_ns, 3.0);
  EXPECT_EQ(s.min_ns, 1u);
  EXPECT_EQ(s.max_ns, 5u);
  // Deviations -2, 2, 0: sum of squares 8, over n-1 = 2 -> 4, sqrt -> 2.
  EXPECT_DOUBLE_EQ(s.stddev_ns, 2.0);
}

TEST(ComputeStatsTest, EvenCountMedianIsMeanOfMiddleTwo) {
  DurationStats s = ComputeStats({10, 3, 1, 2});
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.total_ns, 16u);
  EXPECT_DOUBLE_EQ(s.avg_ns, 4.0);
  EXPECT_DOUBLE_EQ(s.median_ns, 2.5);
  EXPECT_EQ(s.min_ns, 1u);
  EXPECT_EQ(s.max_ns, 10u);
  // Deviations -3, -2, -1, 6: 9 + 4 + 1 + 36 = 50, / 3, sqrt.
  EXPECT_NEAR(s.stddev_ns, std::sqrt(50.0 / 3.0), 1e-9);
}

TEST(ComputeStatsTest, EvenMedianOfLargeValuesDoesNotOverflow) {
  const uint64_t big = uint64_t{1} << 63;
  DurationStats s = ComputeStats({big, big + 2});
  EXPECT_DOUBLE_EQ(s.median_ns, static_cast<double>(big) + 1.0);
}

TEST(ComputeStatsTest, SingleValue) {
  DurationStats s = ComputeStats({7});
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.total_ns, 7u);
  EXPECT_DOUBLE_EQ(s.avg_ns, 7.0);
  EXPECT_DOUBLE_EQ(s.median_ns, 7.0);
  EXPECT_EQ(s.min_ns, 7u);
  EXPECT_EQ(s.max_ns, 7u);
  EXPECT_DOUBLE_EQ(s.stddev_ns, 0.0);
}

TEST(ComputeStatsTest, Empty) {
  DurationStats s = ComputeStats({});
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.total_ns, 0u);
  EXPECT_DOUBLE_EQ(s.median_ns, 0.0);
}

TEST(UnionLengthTest, MergesOverlapsAndTouchingIntervals) {
  EXPECT_EQ(UnionLength({}), 0u);
  EXPECT_EQ(UnionLength({{10, 20}}), 10u);
  // [0,10) [5,15) overlap -> [0,15); [15,20) touches -> [0,20); [30,40) apart.
  EXPECT_EQ(UnionLength({{30, 40}, {5, 15}, {0, 10}, {15, 20}}), 30u);
  // Contained interval adds nothing; empty and reversed intervals are ignored.
  EXPECT_EQ(UnionLength({{0, 100}, {20, 30}, {50, 50}, {70, 60}}), 100u);
}

TEST(SummarizeTest, KernelsRankedByTotalWithTimePercent) {
  ProfileBuilder b;
  b.Kernel("small", 1000, 1050);   // 50
  b.Kernel("medium", 2000, 2100);  // 100
  b.Kernel("medium", 3000, 3300);  // 300
  b.Kernel("large", 4000, 4600);   // 600
  Summary s = Summarize(b.profile());
  ASSERT_EQ(s.kernels.size(), 3u);
  EXPECT_EQ(s.kernels[0].name, "large");
  EXPECT_EQ(s.kernels[1].name, "medium");
  EXPECT_EQ(s.kernels[2].name, "small");
  // Total kernel time 1050.
  EXPECT_NEAR(s.kernels[0].time_percent, 600.0 / 1050.0 * 100.0, 1e-9);
  EXPECT_NEAR(s.kernels[1].time_percent, 400.0 / 1050.0 * 100.0, 1e-9);
  EXPECT_NEAR(s.kernels[2].time_percent, 50.0 / 1050.0 * 100.0, 1e-9);
  const KernelSummaryRow& medium = s.kernels[1];
  EXPECT_EQ(medium.stats.count, 2u);
  EXPECT_EQ(medium.stats.total_ns, 400u);
  EXPECT_DOUBLE_EQ(medium.stats.avg_ns, 200.0);
  EXPECT_DOUBLE_EQ(medium.stats.median_ns, 200.0);
  EXPECT_EQ(medium.stats.min_ns, 100u);
  EXPECT_EQ(medium.stats.max_ns, 300u);
  EXPECT_NEAR(medium.stats.stddev_ns, std::sqrt(20000.0), 1e-9);
  EXPECT_EQ(s.kernel_count, 4u);
}

TEST(SummarizeTest, EqualTotalsRankedByName) {
  ProfileBuilder b;
  b.Kernel("b_kernel", 1000, 1100);
  b.Kernel("a_kernel", 2000, 2100);
  Summary s = Summarize(b.profile());
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[0].name, "a_kernel");
  EXPECT_EQ(s.kernels[1].name, "b_kernel");
  EXPECT_DOUBLE_EQ(s.kernels[0].time_percent, 50.0);
}

TEST(SummarizeTest, MeasuredLaunchesExcludedWhenUnmeasuredOnesExist) {
  ProfileBuilder b;
  b.Kernel("gemm", 1000, 1100);                                            // 100
  b.Kernel("gemm", 2000, 2120);                                            // 120
  b.Kernel("gemm", 3000, 8000).flags = model::kKernelCountersMeasured;     // 5000, slowed
  b.Kernel("probe", 10000, 11000).flags = model::kKernelCountersMeasured;  // 1000
  b.Kernel("probe", 12000, 14000).flags = model::kKernelCountersMeasured;  // 2000
  Summary s = Summarize(b.profile());
  const KernelSummaryRow* gemm = FindKernel(s, "gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->stats.count, 2u);
  EXPECT_EQ(gemm->stats.total_ns, 220u);
  EXPECT_EQ(gemm->stats.max_ns, 120u);
  EXPECT_EQ(gemm->measured_launches, 1u);
  EXPECT_FALSE(gemm->all_measured);
  const KernelSummaryRow* probe = FindKernel(s, "probe");
  ASSERT_NE(probe, nullptr);
  EXPECT_EQ(probe->stats.count, 2u);
  EXPECT_EQ(probe->stats.total_ns, 3000u);
  EXPECT_EQ(probe->measured_launches, 2u);
  EXPECT_TRUE(probe->all_measured);
  // probe ranks first (3000 > 220); percentages from the totals used.
  EXPECT_EQ(s.kernels[0].name, "probe");
  EXPECT_NEAR(probe->time_percent, 3000.0 / 3220.0 * 100.0, 1e-9);
}

TEST(SummarizeTest, KernelWithoutDemangledNameFallsBackToMangled) {
  ProfileBuilder b;
  model::KernelRecord& k = b.Kernel("foo", 1000, 1100);
  k.name = model::kEmptyString;  // mangled_name stays "_Z3foov"
  Summary s = Summarize(b.profile());
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].name, "_Z3foov");
}

TEST(SummarizeTest, ApiSummaryByName) {
  ProfileBuilder b;
  b.Api("cudaLaunchKernel", 100, 110, 1);       // 10
  b.Api("cudaLaunchKernel", 200, 230, 2);       // 30
  b.Api("cudaMemcpyAsync", 300, 400, 3);        // 100
  b.Api("cudaStreamSynchronize", 500, 520, 4);  // 20
  Summary s = Summarize(b.profile());
  ASSERT_EQ(s.api.size(), 3u);
  EXPECT_EQ(s.api[0].name, "cudaMemcpyAsync");
  EXPECT_EQ(s.api[1].name, "cudaLaunchKernel");
  EXPECT_EQ(s.api[2].name, "cudaStreamSynchronize");
  EXPECT_EQ(s.api[1].stats.count, 2u);
  EXPECT_EQ(s.api[1].stats.total_ns, 40u);
  EXPECT_DOUBLE_EQ(s.api[1].stats.median_ns, 20.0);
  EXPECT_NEAR(s.api[0].time_percent, 100.0 / 160.0 * 100.0, 1e-9);
  EXPECT_EQ(s.api_count, 4u);
}

TEST(SummarizeTest, MemoryGroupedByKindAndHostMemoryWithBandwidth) {
  ProfileBuilder b;
  b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPageable, 1000, 1000, 1100);  // 100 ns
  b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPageable, 1000, 2000, 2300);  // 300 ns
  b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPinned, 4000, 3000, 3100);    // 100 ns
  b.Memcpy(MemcpyKind::kDtoH, MemoryKind::kPinned, 800, 4000, 4200);     // 200 ns
  b.Memcpy(MemcpyKind::kDtoD, MemoryKind::kDevice, 6000, 5000, 5100);    // 100 ns
  b.Memset(500, 6000, 6050);                                             // 50 ns
  b.Memset(1500, 7000, 7050);                                            // 50 ns
  Summary s = Summarize(b.profile());
  ASSERT_EQ(s.memory.size(), 5u);

  const MemorySummaryRow* pageable = FindMemory(s, "[CUDA memcpy HtoD pageable]");
  ASSERT_NE(pageable, nullptr);
  EXPECT_EQ(pageable->stats.count, 2u);
  EXPECT_EQ(pageable->stats.total_ns, 400u);
  EXPECT_EQ(pageable->total_bytes, 2000u);
  EXPECT_DOUBLE_EQ(pageable->bandwidth_gbps, 5.0);  // 2000 B / 400 ns

  const MemorySummaryRow* pinned = FindMemory(s, "[CUDA memcpy HtoD pinned]");
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(pinned->total_bytes, 4000u);
  EXPECT_DOUBLE_EQ(pinned->bandwidth_gbps, 40.0);

  const MemorySummaryRow* dtoh = FindMemory(s, "[CUDA memcpy DtoH pinned]");
  ASSERT_NE(dtoh, nullptr);
  EXPECT_DOUBLE_EQ(dtoh->bandwidth_gbps, 4.0);

  const MemorySummaryRow* dtod = FindMemory(s, "[CUDA memcpy DtoD]");
  ASSERT_NE(dtod, nullptr);
  EXPECT_DOUBLE_EQ(dtod->bandwidth_gbps, 60.0);

  const MemorySummaryRow* memset = FindMemory(s, "[CUDA memset]");
  ASSERT_NE(memset, nullptr);
  EXPECT_EQ(memset->stats.count, 2u);
  EXPECT_EQ(memset->total_bytes, 2000u);
  EXPECT_DOUBLE_EQ(memset->bandwidth_gbps, 20.0);

  // Ranked by total time: pageable (400) first; total memory time 900.
  EXPECT_EQ(s.memory[0].operation, "[CUDA memcpy HtoD pageable]");
  EXPECT_NEAR(s.memory[0].time_percent, 400.0 / 900.0 * 100.0, 1e-9);
  EXPECT_EQ(s.memcpy_count, 5u);
  EXPECT_EQ(s.memset_count, 2u);
}

TEST(SummarizeTest, DeviceBusyIsUnionOfIntervals) {
  ProfileBuilder b;
  b.Kernel("a", 100, 200);
  b.Kernel("b", 150, 250).stream_id = 8;                           // overlaps a on another stream
  b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPinned, 64, 240, 300);  // overlaps b
  b.Memset(64, 400, 450);
  b.Kernel("c", 500, 600).device_id = 1;
  Summary s = Summarize(b.profile());
  // Wall: records span 100..600.
  EXPECT_EQ(s.wall_ns, 500u);
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].device_id, 0u);
  EXPECT_EQ(s.devices[0].device_name, "NVIDIA H200");
  EXPECT_EQ(s.devices[0].kernel_ns, 150u);  // [100,250)
  EXPECT_EQ(s.devices[0].busy_ns, 250u);    // [100,300) + [400,450)
  EXPECT_DOUBLE_EQ(s.devices[0].busy_percent, 50.0);
  EXPECT_EQ(s.devices[1].device_id, 1u);
  EXPECT_EQ(s.devices[1].device_name, "");
  EXPECT_EQ(s.devices[1].kernel_ns, 100u);
  EXPECT_EQ(s.devices[1].busy_ns, 100u);
  EXPECT_DOUBLE_EQ(s.devices[1].busy_percent, 20.0);
}

TEST(SummarizeTest, WallTimeFromRunWindowClipsBusyTime) {
  ProfileBuilder b;
  b.profile().run.start_ns = 1000;
  b.profile().run.end_ns = 2000;
  b.Kernel("a", 1500, 2500);  // only [1500,2000) is inside the run window
  Summary s = Summarize(b.profile());
  EXPECT_EQ(s.wall_ns, 1000u);
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].busy_ns, 500u);
  EXPECT_DOUBLE_EQ(s.devices[0].busy_percent, 50.0);
  // The kernel's own statistics are not clipped.
  EXPECT_EQ(s.kernels[0].stats.total_ns, 1000u);
}

TEST(SummarizeTest, InsaneRunWindowFallsBackToTimeSpan) {
  ProfileBuilder b;
  b.profile().run.start_ns = 5000;
  b.profile().run.end_ns = 4000;  // end before start
  b.Kernel("a", 1000, 1200);
  b.Api("cudaLaunchKernel", 900, 950, 1);
  Summary s = Summarize(b.profile());
  EXPECT_EQ(s.wall_ns, 300u);  // 900..1200
}

TEST(SummarizeTest, InvalidRecordsAreSkippedNotNegative) {
  ProfileBuilder b;
  b.Kernel("good", 1000, 1100);
  b.Kernel("good", 2000, 1500);  // end before start
  b.Kernel("good", 0, 300);      // start unset
  b.Kernel("bad", 3000, 2000);   // only invalid launches
  b.Api("cudaLaunchKernel", 50, 40, 1);
  b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPinned, 100, 700, 600);
  b.Memset(100, 0, 10);
  Summary s = Summarize(b.profile());
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].name, "good");
  EXPECT_EQ(s.kernels[0].stats.count, 1u);
  EXPECT_EQ(s.kernels[0].stats.total_ns, 100u);
  EXPECT_TRUE(s.api.empty());
  EXPECT_TRUE(s.memory.empty());
  EXPECT_EQ(s.kernel_count, 4u);
  EXPECT_EQ(s.invalid_records, 6u);
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].busy_ns, 100u);
}

TEST(SummarizeTest, CountsAndDroppedRecords) {
  ProfileBuilder b;
  b.profile().run.dropped_records = 17;
  b.Kernel("k", 100, 200);
  b.Api("cudaLaunchKernel", 50, 60, 1);
  b.Api("cudaLaunchKernel", 70, 80, 2);
  b.Sync(model::SyncType::kStreamSynchronize, 300, 400);
  b.Range("r", 10, 500);
  b.Range("r2", 20, 30);
  b.Memset(10, 600, 610);
  Summary s = Summarize(b.profile());
  EXPECT_EQ(s.kernel_count, 1u);
  EXPECT_EQ(s.api_count, 2u);
  EXPECT_EQ(s.sync_count, 1u);
  EXPECT_EQ(s.range_count, 2u);
  EXPECT_EQ(s.memcpy_count, 0u);
  EXPECT_EQ(s.memset_count, 1u);
  EXPECT_EQ(s.dropped_records, 17u);
  EXPECT_EQ(s.invalid_records, 0u);
  EXPECT_EQ(s.wall_ns, 600u);  // 10..610
}

TEST(SummarizeTest, EmptyProfile) {
  model::Profile p;
  Summary s = Summarize(p);
  EXPECT_EQ(s.wall_ns, 0u);
  EXPECT_TRUE(s.kernels.empty());
  EXPECT_TRUE(s.api.empty());
  EXPECT_TRUE(s.memory.empty());
  EXPECT_TRUE(s.devices.empty());
}

}  // namespace
}  // namespace cuscope::analysis
