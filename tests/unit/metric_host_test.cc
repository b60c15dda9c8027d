// The Profiler Host API works without a GPU: metric names and pass counts for the
// H200's chip (GH100) are checked here.
#include "lib/collect/metric_host.h"

#include <iostream>

#include "gtest/gtest.h"
#include "lib/model/metrics.h"

namespace cuscope::collect {
namespace {

class MetricHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host = MetricHost::Create("GH100");
    if (!host.ok()) GTEST_SKIP() << "CUPTI host API unavailable: " << host.status();
    host_ = std::move(*host);
  }
  std::unique_ptr<MetricHost> host_;
};

TEST(ExpandMetrics, SetsExpandedRawNamesKeptEachOnce) {
  std::vector<std::string> roofline = metrics::SetMetrics("roofline");
  std::vector<std::string> got =
      metrics::ExpandMetrics({"dram__bytes.sum", "roofline", metrics::kDuration, "x.sum"});
  ASSERT_EQ(got.size(), roofline.size() + 1);  // dram__bytes.sum and duration are in roofline
  EXPECT_EQ(got.front(), "dram__bytes.sum");
  EXPECT_EQ(got.back(), "x.sum");
  EXPECT_TRUE(metrics::ExpandMetrics({}).empty());
}

TEST_F(MetricHostTest, EveryNamedSetIsValidOnHopper) {
  for (const auto& set : metrics::SetNames()) {
    auto config = host_->BuildConfig(metrics::SetMetrics(set));
    ASSERT_TRUE(config.ok()) << set << ": " << config.status();
    EXPECT_GE(config->passes, 1u) << set;
    EXPECT_FALSE(config->image.empty());
  }
}

TEST_F(MetricHostTest, PassCountsMatchWhatWasMeasuredOnTheH200) {
  // measured.md: {duration, DRAM read, DRAM write} 1 pass; FP32 add/mul/fma 1;
  // both together 2.
  std::vector<std::string> mem = {"gpu__time_duration.sum", "dram__bytes_read.sum",
                                  "dram__bytes_write.sum"};
  std::vector<std::string> fp32 = {metrics::kFadd, metrics::kFmul, metrics::kFfma};
  std::vector<std::string> both = mem;
  both.insert(both.end(), fp32.begin(), fp32.end());
  EXPECT_EQ(host_->BuildConfig(mem)->passes, 1u);
  EXPECT_EQ(host_->BuildConfig(fp32)->passes, 1u);
  EXPECT_EQ(host_->BuildConfig(both)->passes, 2u);
}

TEST_F(MetricHostTest, RooflinePassesOnHopper) {
  // The roofline set: FLOPs by precision (the six tensor-op counters take one pass
  // each on GH100), bytes, peaks, and ncu's SM % and memory % with their breakdown
  // (ncu's SpeedOfLight section alone replays 10 passes on the H200).
  auto roofline = host_->BuildConfig(metrics::SetMetrics("roofline"));
  ASSERT_TRUE(roofline.ok()) << roofline.status();
  std::cerr << "roofline: " << metrics::SetMetrics("roofline").size() << " metrics, "
            << roofline->passes << " passes on GH100\n";
  EXPECT_LE(roofline->passes, 16u);
  auto sol = host_->BuildConfig(metrics::SetMetrics("sol"));
  ASSERT_TRUE(sol.ok()) << sol.status();
  EXPECT_LE(sol->passes, 10u);
}

TEST_F(MetricHostTest, UnknownNameIsRefusedWithTheNearestNames) {
  absl::Status st = host_->Validate("dram__byte.sum");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  std::string msg(st.message());
  EXPECT_NE(msg.find("metric \"dram__byte.sum\" is not available on GH100"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("dram__bytes"), std::string::npos) << msg;
  // ncu computes launch__* itself; the host API has no such metric.
  EXPECT_FALSE(host_->Validate("launch__occupancy_limit_registers").ok());
  EXPECT_TRUE(host_->Validate("dram__bytes.sum").ok());
  auto config = host_->BuildConfig({"gpu__time_duration.sum", "no_such_metric.sum"});
  EXPECT_FALSE(config.ok());
}

TEST(MetricHost, UnknownChipIsAClearError) {
  auto host = MetricHost::Create("NOT_A_CHIP");
  ASSERT_FALSE(host.ok());
  EXPECT_NE(std::string(host.status().message()).find("NOT_A_CHIP"), std::string::npos);
}

}  // namespace
}  // namespace cuscope::collect
