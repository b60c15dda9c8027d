// The API calls recorded by default (lib/collect/api_calls.h): the names, and the
// per-call switch against the fake CUPTI (tests/fake_cupti).
#include "lib/collect/api_calls.h"

#include <cupti.h>

#include "gtest/gtest.h"
#include "tests/fake_cupti/fake_cupti.h"

namespace cuscope::collect {
namespace {

TEST(ApiCallsTest, DefaultNames) {
  EXPECT_TRUE(IsDefaultRuntimeApi("cudaLaunchKernel_v7000"));
  EXPECT_TRUE(IsDefaultRuntimeApi("cudaMemcpyAsync_v3020"));
  EXPECT_TRUE(IsDefaultRuntimeApi("cudaStreamSynchronize_v3020"));
  EXPECT_FALSE(IsDefaultRuntimeApi("cudaGetDevice_v3020"));
  EXPECT_FALSE(IsDefaultRuntimeApi("cudaEventQuery_v3020"));
  EXPECT_TRUE(IsDefaultDriverApi("cuLaunchKernel"));
  EXPECT_TRUE(IsDefaultDriverApi("cuLaunchKernelEx"));
  EXPECT_TRUE(IsDefaultDriverApi("cuModuleLoadData"));
  EXPECT_FALSE(IsDefaultDriverApi("cuCtxGetCurrent"));
  EXPECT_FALSE(IsDefaultDriverApi("cudaLaunchKernel"));
}

TEST(ApiCallsTest, EnablesTheDefaultCallsAndDisablesThemAgain) {
  fake_cupti::Reset();
  DefaultApiCalls calls;
  calls.Enable();
  // The fake names three calls: cudaLaunchKernel, cudaMemcpy and cuLaunchKernel.
  EXPECT_EQ(calls.runtime_cbids(),
            (std::vector<uint32_t>{CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
                                   CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000}));
  EXPECT_EQ(calls.driver_cbids(), (std::vector<uint32_t>{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel}));
  EXPECT_TRUE(fake_cupti::Emit(fake_cupti::Kind::kRuntimeApi, 1)) << "launch records on";
  calls.Disable();
  EXPECT_TRUE(calls.runtime_cbids().empty());
  EXPECT_TRUE(calls.driver_cbids().empty());
  EXPECT_FALSE(fake_cupti::Emit(fake_cupti::Kind::kRuntimeApi, 2)) << "launch records left on";
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  fake_cupti::Reset();
}

}  // namespace
}  // namespace cuscope::collect
