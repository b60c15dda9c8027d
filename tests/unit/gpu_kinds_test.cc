// The GPU kind switch (lib/collect/gpu_kinds.h) against the fake CUPTI
// (tests/fake_cupti): which kinds record after capture pauses and counters hold, and
// that DisableAll leaves nothing on.
#include "lib/collect/gpu_kinds.h"

#include <cupti.h>

#include "gtest/gtest.h"
#include "tests/fake_cupti/fake_cupti.h"

namespace cuscope::collect {
namespace {

using fake_cupti::Kind;

class GpuKindsTest : public ::testing::Test {
 protected:
  void SetUp() override { fake_cupti::Reset(); }
  void TearDown() override {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    fake_cupti::Reset();
  }
  // Whether a record of `kind` would be made now (the fake makes none: no buffer is
  // handed out without registered callbacks, so made records are dropped).
  static bool Records(Kind kind) { return fake_cupti::Emit(kind, 1); }

  GpuKindSwitch kinds_;
};

TEST_F(GpuKindsTest, EnableTurnsTheKindsOn) {
  ASSERT_TRUE(kinds_
                  .Enable({CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                           CUPTI_ACTIVITY_KIND_MEMCPY},
                          /*with_cuda_events=*/false)
                  .ok());
  EXPECT_TRUE(Records(Kind::kKernel));
  EXPECT_TRUE(Records(Kind::kMemcpy));
  EXPECT_FALSE(Records(Kind::kRuntimeApi)) << "API calls were not asked for";
  EXPECT_FALSE(kinds_.KernelRecordsHeldOff());
}

TEST_F(GpuKindsTest, PauseSwitchesGpuKindsButNotApiCalls) {
  ASSERT_TRUE(kinds_
                  .Enable({CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                           CUPTI_ACTIVITY_KIND_RUNTIME},
                          false)
                  .ok());
  kinds_.Pause(true);
  EXPECT_FALSE(Records(Kind::kKernel));
  EXPECT_FALSE(Records(Kind::kMemcpy));
  EXPECT_TRUE(Records(Kind::kRuntimeApi)) << "API calls stay recorded while paused";
  EXPECT_FALSE(kinds_.KernelRecordsHeldOff()) << "capture paused them, not counters";
  kinds_.Pause(false);
  EXPECT_TRUE(Records(Kind::kKernel));
  EXPECT_TRUE(Records(Kind::kMemcpy));
}

// Counters hold the kinds off whatever capture says; kernels count as held off only
// while capture would have recorded them.
TEST_F(GpuKindsTest, CountersHoldWinsOverCapture) {
  ASSERT_TRUE(kinds_.Enable({CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL}, false).ok());
  kinds_.Hold(true);
  EXPECT_FALSE(Records(Kind::kKernel));
  EXPECT_TRUE(kinds_.KernelRecordsHeldOff());
  kinds_.Pause(false);  // a capture window opens: still held
  EXPECT_FALSE(Records(Kind::kKernel));
  kinds_.Pause(true);
  EXPECT_FALSE(kinds_.KernelRecordsHeldOff()) << "capture would not record them either";
  kinds_.Hold(false);
  EXPECT_FALSE(Records(Kind::kKernel)) << "capture still pauses them";
  kinds_.Pause(false);
  EXPECT_TRUE(Records(Kind::kKernel));
  EXPECT_FALSE(kinds_.KernelRecordsHeldOff());
}

TEST_F(GpuKindsTest, DisableAllLeavesNothingToSwitchOn) {
  ASSERT_TRUE(kinds_
                  .Enable({CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME},
                          /*with_cuda_events=*/true)
                  .ok());
  kinds_.Hold(true);
  const uint64_t before = fake_cupti::Disables();
  kinds_.DisableAll();
  // Kernels (held off), API calls and CUDA events: every enabled kind once.
  EXPECT_EQ(fake_cupti::Disables() - before, 3u);
  EXPECT_FALSE(kinds_.KernelRecordsHeldOff());
  kinds_.Hold(false);
  kinds_.Pause(false);
  EXPECT_FALSE(Records(Kind::kKernel)) << "a switch after DisableAll turned kernels on";
  EXPECT_FALSE(Records(Kind::kRuntimeApi));
}

}  // namespace
}  // namespace cuscope::collect
