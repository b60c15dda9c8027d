// Descriptions of full metric names from their base metric's (lib/collect/metric_describe.h):
// no GPU and no CUPTI.
#include "lib/collect/metric_describe.h"

#include "gtest/gtest.h"

namespace cuscope::collect {
namespace {

constexpr char kDram[] = "# of bytes accessed in DRAM";

// The names `cuscope metrics --set roofline` printed with the base description alone.
TEST(DescribeMetric, SubmetricsSayWhatTheyAre) {
  EXPECT_EQ(DescribeMetric("dram__bytes.sum.peak_sustained", kDram),
            "peak sustained rate per cycle of: # of bytes accessed in DRAM");
  EXPECT_EQ(
      DescribeMetric("l1tex__t_bytes.sum.pct_of_peak_sustained_elapsed", "# of bytes requested"),
      "% of peak sustained rate over the elapsed cycles of: # of bytes requested");
  EXPECT_EQ(DescribeMetric("sm__cycles_elapsed.avg.per_second", "# of cycles elapsed on SM"),
            "per second (rate) of: # of cycles elapsed on SM (average over units)");
  EXPECT_EQ(DescribeMetric("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
                           "# of cycles where tensor pipe was active"),
            "% of peak sustained rate over the elapsed cycles of: # of cycles where tensor pipe "
            "was active (average over units)");
  EXPECT_EQ(DescribeMetric("sm__inst_executed.sum.per_cycle_elapsed", "# of warp instructions"),
            "per elapsed cycle (rate) of: # of warp instructions");
  EXPECT_EQ(DescribeMetric("dram__bytes.sum.peak_sustained_elapsed.per_second", kDram),
            "peak sustained rate per second of: # of bytes accessed in DRAM");
}

TEST(DescribeMetric, RollupsPlainly) {
  EXPECT_EQ(DescribeMetric("dram__bytes", kDram), kDram);
  EXPECT_EQ(DescribeMetric("dram__bytes.sum", kDram), kDram);
  EXPECT_EQ(DescribeMetric("dram__bytes.avg", kDram),
            "# of bytes accessed in DRAM (average over units)");
  EXPECT_EQ(DescribeMetric("dram__bytes.max", kDram),
            "# of bytes accessed in DRAM (maximum over units)");
  EXPECT_EQ(DescribeMetric("dram__bytes.min", kDram),
            "# of bytes accessed in DRAM (minimum over units)");
}

TEST(DescribeMetric, UnknownSubmetricIsNamedAndNoDescriptionStaysNone) {
  EXPECT_EQ(DescribeMetric("dram__bytes.sum.per_fortnight", kDram),
            "(submetric per_fortnight) of: # of bytes accessed in DRAM");
  EXPECT_EQ(
      DescribeMetric("smsp__thread_inst_executed_per_inst_executed.ratio", "threads per inst"),
      "as a ratio: threads per inst");
  EXPECT_EQ(DescribeMetric("dram__bytes.sum.peak_sustained", ""), "");
}

}  // namespace
}  // namespace cuscope::collect
