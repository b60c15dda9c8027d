// Profile::work_record_count: a process whose only records are CUPTI's overhead
// records and cuscope's device probes did no CUDA work (its profile is removed at exit,
// the torchrun launcher's case); any record of the program's own makes it count.
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
