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

TEST(Compare, EmptyProfiles) {
  model::Profile a, b;
  Comparison c = Compare(a, b);
  EXPECT_TRUE(c.kernels.empty());
  EXPECT_TRUE(c.regions.empty());
  EXPECT_EQ(c.base_kernel_ns, 0u);
}

}  // namespace
}  // namespace cuscope::analysis
