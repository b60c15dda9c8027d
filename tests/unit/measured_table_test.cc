// Which kernel records belong to measured launches (lib/collect/measured_table.h):
// the launch's own record, CUPTI's kernels that carry its correlation id, and those of
// a launch in whose call a window was stopped.
#include "lib/collect/measured_table.h"

#include "gtest/gtest.h"

namespace cuscope::collect {
namespace {

using Kind = MeasuredLaunches::Kind;

TEST(MeasuredTableTest, AMeasuredLaunchsOwnRecordAndCuptisKernels) {
  MeasuredTable t;
  t.Mark(7, "saxpy(int, float*)");
  EXPECT_EQ(t.Classify(7, "saxpy(int, float*)"), Kind::kMeasured);
  EXPECT_EQ(t.Classify(7, "cupti_internal_kernel"), Kind::kProfilerKernel);
  EXPECT_EQ(t.Classify(8, "saxpy(int, float*)"), Kind::kNotMeasured);
  // Without a name nothing can be told apart: every record of the launch counts.
  t.Mark(9, "");
  EXPECT_EQ(t.Classify(9, "cupti_internal_kernel"), Kind::kMeasured);
}

// Another thread's launch, not measured, during whose call the window stopped: its own
// record stays the program's, CUPTI's kernels with its correlation id are told apart.
TEST(MeasuredTableTest, ALaunchWhoseCallStoppedAWindowKeepsItsRecord) {
  MeasuredTable t;
  t.MarkCall(11, "gemm(float*)");
  EXPECT_EQ(t.Classify(11, "gemm(float*)"), Kind::kNotMeasured);
  EXPECT_EQ(t.Classify(11, "cupti_internal_kernel"), Kind::kProfilerKernel);
  EXPECT_EQ(t.Classify(11, ""), Kind::kNotMeasured);
  // A measured launch's mark comes first.
  t.Mark(11, "gemm(float*)");
  EXPECT_EQ(t.Classify(11, "gemm(float*)"), Kind::kMeasured);
  // A call without a name is not kept: nothing to tell apart.
  t.MarkCall(12, "");
  EXPECT_EQ(t.Classify(12, "anything"), Kind::kNotMeasured);
  t.Clear();
  EXPECT_EQ(t.Classify(11, "cupti_internal_kernel"), Kind::kNotMeasured);
}

}  // namespace
}  // namespace cuscope::collect
