#include "lib/analysis/compare.h"

#include <cmath>

#include "gtest/gtest.h"
#include "tests/unit/builders.h"

namespace cuscope::analysis {
namespace {

TEST(Compare, KernelsAndRegionsRankedByChange) {
  testing::ProfileBuilder base, next;
  // Base: gemm 2 x 100 ns, relu 1 x 50 ns; new: gemm 2 x 40 ns (faster), fused 1 x 30 (new).
  base.Range("step", 1, 1001);
  base.Api("cudaLaunchKernel", 10, 20, 1);
  base.Kernel("gemm", 100, 200, 7, 1);
  base.Api("cudaLaunchKernel", 30, 40, 2);
  base.Kernel("gemm", 300, 400, 7, 2);
  base.Api("cudaLaunchKernel", 50, 60, 3);
  base.Kernel("relu", 500, 550, 7, 3);
  next.Range("step", 1, 601);
  next.Api("cudaLaunchKernel", 10, 20, 1);
  next.Kernel("gemm", 100, 140, 7, 1);
  next.Api("cudaLaunchKernel", 30, 40, 2);
  next.Kernel("gemm", 300, 340, 7, 2);
  next.Api("cudaLaunchKernel", 50, 60, 3);
  next.Kernel("fused", 400, 430, 7, 3);
  Comparison c = Compare(base.profile(), next.profile());
  EXPECT_EQ(c.base_kernel_ns, 250u);
  EXPECT_EQ(c.next_kernel_ns, 110u);
  EXPECT_EQ(c.base_kernel_count, 3u);
  EXPECT_EQ(c.next_kernel_count, 3u);
  ASSERT_EQ(c.kernels.size(), 3u);
  EXPECT_EQ(c.kernels[0].name, "gemm");  // -120 ns, the largest change
  EXPECT_EQ(c.kernels[0].total_change_ns(), -120);
  EXPECT_DOUBLE_EQ(c.kernels[0].total_change_percent(), -60.0);
  EXPECT_EQ(c.kernels[1].name, "relu");  // gone: -50
  EXPECT_EQ(c.kernels[1].next.count, 0u);
  EXPECT_DOUBLE_EQ(c.kernels[1].total_change_percent(), -100.0);
  EXPECT_EQ(c.kernels[2].name, "fused");  // new: +30
  EXPECT_TRUE(std::isinf(c.kernels[2].total_change_percent()));
  ASSERT_EQ(c.regions.size(), 1u);
  EXPECT_EQ(c.regions[0].name, "step");
  EXPECT_EQ(c.regions[0].total_change_ns(), -400);
  EXPECT_EQ(c.regions[0].base.kernels, 3u);
  EXPECT_EQ(c.regions[0].next.kernels, 3u);
  EXPECT_EQ(c.regions[0].base.gpu_time_ns, 250u);
  EXPECT_EQ(c.regions[0].next.gpu_time_ns, 110u);
}

TEST(Compare, ChangePercent) {
  EXPECT_DOUBLE_EQ(ChangePercent(200, 50), -75.0);
  EXPECT_DOUBLE_EQ(ChangePercent(200, 300), 50.0);
  EXPECT_DOUBLE_EQ(ChangePercent(200, 0), -100.0);
  EXPECT_DOUBLE_EQ(ChangePercent(0, 0), 0.0);
  EXPECT_TRUE(std::isinf(ChangePercent(0, 5)));
}

// Copies by direction and host memory kind, memsets; their counts, bytes and times.
TEST(Compare, MemoryDeltasPerDirectionAndHostKind) {
  using model::MemcpyKind;
  using model::MemoryKind;
  testing::ProfileBuilder base, next;
  // Base: 2 pageable HtoD copies of 1000 B (400 ns each), 1 pinned DtoH (100 ns), 1 memset.
  base.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPageable, 1000, 100, 500);
  base.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPageable, 1000, 600, 1000);
  base.Memcpy(MemcpyKind::kDtoH, MemoryKind::kPinned, 500, 1100, 1200);
  base.Memset(64, 1300, 1310);
  // New: the HtoD copies from pinned memory (100 ns each), the same DtoH, 3 memsets, a DtoD.
  next.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPinned, 1000, 100, 200);
  next.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPinned, 1000, 300, 400);
  next.Memcpy(MemcpyKind::kDtoH, MemoryKind::kPinned, 500, 1100, 1200);
  next.Memcpy(MemcpyKind::kDtoD, MemoryKind::kDevice, 4000, 1200, 1250);
  for (uint64_t t : {1300, 1400, 1500}) next.Memset(64, t, t + 10);
  Comparison c = Compare(base.profile(), next.profile());
  ASSERT_EQ(c.memory.size(), 5u);
  // By |change of time|: pageable gone (-800), pinned new (+200), DtoD new (+50), memset (+20).
  EXPECT_EQ(c.memory[0].name, "[CUDA memcpy HtoD pageable]");
  EXPECT_EQ(c.memory[0].base.count, 2u);
  EXPECT_EQ(c.memory[0].base.bytes, 2000u);
  EXPECT_EQ(c.memory[0].base.total_ns, 800u);
  EXPECT_DOUBLE_EQ(c.memory[0].base.gbps(), 2.5);
  EXPECT_EQ(c.memory[0].next.count, 0u);
  EXPECT_EQ(c.memory[0].time_change_ns(), -800);
  EXPECT_DOUBLE_EQ(c.memory[0].time_change_percent(), -100.0);
  EXPECT_EQ(c.memory[1].name, "[CUDA memcpy HtoD pinned]");
  EXPECT_EQ(c.memory[1].next.total_ns, 200u);
  EXPECT_TRUE(std::isinf(c.memory[1].time_change_percent()));
  EXPECT_EQ(c.memory[2].name, "[CUDA memcpy DtoD]");
  EXPECT_EQ(c.memory[3].name, "[CUDA memset]");
  EXPECT_EQ(c.memory[3].base.count, 1u);
  EXPECT_EQ(c.memory[3].next.count, 3u);
  EXPECT_EQ(c.memory[3].count_change(), 2);
  EXPECT_DOUBLE_EQ(c.memory[3].count_change_percent(), 200.0);
  EXPECT_DOUBLE_EQ(c.memory[3].bytes_change_percent(), 200.0);
  EXPECT_DOUBLE_EQ(c.memory[3].time_change_percent(), 200.0);
  EXPECT_EQ(c.memory[4].name, "[CUDA memcpy DtoH pinned]");
  EXPECT_EQ(c.memory[4].time_change_ns(), 0);
  EXPECT_DOUBLE_EQ(c.memory[4].time_change_percent(), 0.0);
  // All copies, memsets left out: 3 -> 4 copies, 2500 -> 6500 B, 900 -> 350 ns.
  EXPECT_EQ(c.copies.base.count, 3u);
  EXPECT_EQ(c.copies.next.count, 4u);
  EXPECT_EQ(c.copies.base.bytes, 2500u);
  EXPECT_EQ(c.copies.next.bytes, 6500u);
  EXPECT_EQ(c.copies.base.total_ns, 900u);
  EXPECT_EQ(c.copies.next.total_ns, 350u);
  EXPECT_DOUBLE_EQ(c.copies.bytes_change_percent(), 160.0);
}

// API calls by name; synchronizing calls flagged and summed.
TEST(Compare, ApiDeltasFlagSynchronizingCalls) {
  testing::ProfileBuilder base, next;
  for (uint32_t i = 0; i < 4; ++i) base.Api("cudaLaunchKernel", 100 * i + 1, 100 * i + 11, i + 1);
  base.Api("cudaDeviceSynchronize", 500, 900, 9);
  base.Api("cudaMemcpy", 1000, 1300, 10);
  for (uint32_t i = 0; i < 8; ++i) next.Api("cudaLaunchKernel", 100 * i + 1, 100 * i + 11, i + 1);
  next.Api("cudaDeviceSynchronize", 900, 950, 9);
  next.Api("cudaGraphLaunch", 1000, 1005, 10);
  Comparison c = Compare(base.profile(), next.profile());
  ASSERT_EQ(c.api.size(), 4u);
  // By |change of time|: sync -350, memcpy -300, launches +40, graph launch +5.
  EXPECT_EQ(c.api[0].name, "cudaDeviceSynchronize");
  EXPECT_TRUE(c.api[0].synchronizing);
  EXPECT_EQ(c.api[0].time_change_ns(), -350);
  EXPECT_DOUBLE_EQ(c.api[0].time_change_percent(), -87.5);
  EXPECT_EQ(c.api[1].name, "cudaMemcpy");
  EXPECT_TRUE(c.api[1].synchronizing);  // a synchronous copy blocks the CPU too
  EXPECT_EQ(c.api[1].next.count, 0u);
  EXPECT_EQ(c.api[2].name, "cudaLaunchKernel");
  EXPECT_FALSE(c.api[2].synchronizing);
  EXPECT_EQ(c.api[2].base.count, 4u);
  EXPECT_EQ(c.api[2].next.count, 8u);
  EXPECT_DOUBLE_EQ(c.api[2].count_change_percent(), 100.0);
  EXPECT_EQ(c.api[2].time_change_ns(), 40);
  EXPECT_EQ(c.api[3].name, "cudaGraphLaunch");
  EXPECT_FALSE(c.api[3].synchronizing);
  EXPECT_EQ(c.sync_calls.base.count, 2u);
  EXPECT_EQ(c.sync_calls.next.count, 1u);
  EXPECT_EQ(c.sync_calls.base.total_ns, 700u);
  EXPECT_EQ(c.sync_calls.next.total_ns, 50u);
}

// GPU busy: the union of kernels, copies and memsets per device, within the wall time.
TEST(Compare, GpuBusyPerDevice) {
  testing::ProfileBuilder base, next;
  base.profile().run.start_ns = 1;
  base.profile().run.end_ns = 1001;  // wall 1000 ns
  base.Kernel("a", 100, 300);
  base.Memcpy(model::MemcpyKind::kHtoD, model::MemoryKind::kPinned, 8, 250, 400);  // overlaps
  base.Memset(8, 500, 600);
  next.profile().run.start_ns = 1;
  next.profile().run.end_ns = 501;  // wall 500 ns
  next.Kernel("a", 100, 200);
  next.Kernel("b", 300, 400).device_id = 1;  // a second GPU, only in the new run
  Comparison c = Compare(base.profile(), next.profile());
  EXPECT_EQ(c.base_wall_ns, 1000u);
  EXPECT_EQ(c.next_wall_ns, 500u);
  ASSERT_EQ(c.busy.size(), 2u);
  EXPECT_EQ(c.busy[0].device_id, 0u);
  EXPECT_EQ(c.busy[0].device_name, "NVIDIA H200");
  EXPECT_EQ(c.busy[0].base.busy_ns, 400u);  // [100, 400) and [500, 600)
  EXPECT_EQ(c.busy[0].base.kernel_ns, 200u);
  EXPECT_DOUBLE_EQ(c.busy[0].base.busy_percent, 40.0);
  EXPECT_EQ(c.busy[0].next.busy_ns, 100u);
  EXPECT_DOUBLE_EQ(c.busy[0].next.busy_percent, 20.0);
  EXPECT_EQ(c.busy[0].change_ns(), -300);
  EXPECT_DOUBLE_EQ(c.busy[0].change_percent(), -75.0);
  EXPECT_DOUBLE_EQ(c.busy[0].change_points(), -20.0);
  EXPECT_EQ(c.busy[1].device_id, 1u);
  EXPECT_EQ(c.busy[1].base.busy_ns, 0u);
  EXPECT_EQ(c.busy[1].next.busy_ns, 100u);
  EXPECT_TRUE(std::isinf(c.busy[1].change_percent()));
}

// Regions: wall time, instances, kernels and their GPU time on both sides.
TEST(Compare, RegionDeltasKeepGpuTime) {
  testing::ProfileBuilder base, next;
  base.Range("step", 1, 1001);
  base.Range("fwd", 10, 500, 1);
  base.Api("cudaLaunchKernel", 20, 30, 1);  // inside step/fwd: its kernel is the region's
  base.Kernel("k", 100, 400, 7, 1);
  next.Range("step", 1, 701);
  next.Range("fwd", 10, 200, 1);
  next.Api("cudaLaunchKernel", 20, 30, 1);
  next.Kernel("k", 100, 150, 7, 1);
  Comparison c = Compare(base.profile(), next.profile());
  ASSERT_EQ(c.regions.size(), 2u);
  EXPECT_EQ(c.regions[0].name, "step");
  EXPECT_EQ(c.regions[0].total_change_ns(), -300);
  EXPECT_DOUBLE_EQ(c.regions[0].total_change_percent(), -30.0);
  EXPECT_EQ(c.regions[1].name, "step/fwd");
  EXPECT_EQ(c.regions[1].total_change_ns(), -300);
  EXPECT_EQ(c.regions[1].base.gpu_time_ns, 300u);
  EXPECT_EQ(c.regions[1].next.gpu_time_ns, 50u);
}

TEST(Compare, EmptyProfiles) {
  model::Profile a, b;
  Comparison c = Compare(a, b);
  EXPECT_TRUE(c.kernels.empty());
  EXPECT_TRUE(c.regions.empty());
  EXPECT_EQ(c.base_kernel_ns, 0u);
  EXPECT_TRUE(c.memory.empty());
  EXPECT_TRUE(c.api.empty());
  EXPECT_EQ(c.copies.base.count + c.copies.next.count, 0u);
  EXPECT_EQ(c.sync_calls.base.count + c.sync_calls.next.count, 0u);
}

}  // namespace
}  // namespace cuscope::analysis
