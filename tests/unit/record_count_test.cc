// Profile::work_record_count: a process whose only records are CUPTI's overhead
// records and cuscope's device probes did no CUDA work (its profile is removed at exit,
// the torchrun launcher's case), nor one whose only other records are GPU samples; any
// record of the program's own makes it count.
#include <gtest/gtest.h>

#include "lib/model/profile.h"

namespace cuscope::model {
namespace {

TEST(WorkRecordCount, OverheadsAndDeviceProbesAreNotWork) {
  Profile p;
  p.overheads.resize(12);
  p.device_metrics.resize(3);
  EXPECT_EQ(p.record_count(), 15u);
  EXPECT_EQ(p.work_record_count(), 0u);
}

// GPU samples (and their configurations) are records of the run, not the program's
// work: a process that did no CUDA work while its devices were sampled did none.
TEST(WorkRecordCount, GpuSamplesAreNotWork) {
  Profile p;
  p.sample_configs.resize(2);
  p.samples.resize(1000);
  p.overheads.resize(1);
  EXPECT_EQ(p.record_count(), 1003u);
  EXPECT_EQ(p.work_record_count(), 0u);
  p.kernels.resize(3);
  EXPECT_EQ(p.record_count(), 1006u);
  EXPECT_EQ(p.work_record_count(), 3u);
  p.ClearRecords();
  EXPECT_EQ(p.record_count(), 0u);
}

TEST(WorkRecordCount, TheProgramsRecordsAre) {
  Profile p;
  p.overheads.resize(2);
  p.kernels.resize(1);
  p.api_calls.resize(4);
  p.ranges.resize(1);
  EXPECT_EQ(p.work_record_count(), 6u);
}

}  // namespace
}  // namespace cuscope::model
