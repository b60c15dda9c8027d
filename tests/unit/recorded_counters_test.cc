// The analysis on counters recorded on the H200 (tests/data/h200-counters-demo.sqlite:
// `cuscope run --metrics=roofline -- counters_demo 5 3 1000`, kernel replay, one
// sample per signature).
#include <string>

#include "gtest/gtest.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/report/verdict_text.h"
#include "lib/store/reader.h"

namespace cuscope::analysis {
namespace {

const KernelCounters* Find(const std::vector<KernelCounters>& all, const std::string& prefix) {
  for (const auto& k : all) {
    if (k.name.rfind(prefix, 0) == 0) return &k;
  }
  return nullptr;
}

class RecordedCounters : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/h200-counters-demo.sqlite");
    ASSERT_TRUE(p.ok()) << p.status();
    profile_ = std::move(*p);
    all_ = AnalyzeCounters(profile_);
  }
  model::Profile profile_;
  std::vector<KernelCounters> all_;
};

TEST_F(RecordedCounters, CeilingsComeFromTheH200) {
  Ceilings c = ComputeCeilings(profile_, 0);
  ASSERT_TRUE(c.valid);
  // 132 SMs x 128 FP32 lanes x 2 FLOPs at ~1.98 GHz; HBM3e ~4.8 TB/s.
  EXPECT_NEAR(PeakFlops(c, Precision::kFp32) / 1e12, 66.9, 1.5);
  EXPECT_NEAR(c.peak_dram_bytes_per_s / 1e12, 4.8, 0.2);
  EXPECT_NEAR(PeakFlops(c, Precision::kTensorBf16) / 1e12, 1070, 60);  // dense
  EXPECT_GT(c.peak_l1_bytes_per_s, c.peak_l2_bytes_per_s);
  EXPECT_GT(c.peak_l2_bytes_per_s, c.peak_dram_bytes_per_s);
}

TEST_F(RecordedCounters, ExactFlopsAndVerdicts) {
  const auto* saxpy = Find(all_, "saxpy");
  const auto* sgemm = Find(all_, "sgemm_naive");
  const auto* tiny = Find(all_, "one_block");
  ASSERT_TRUE(saxpy && sgemm && tiny);
  const double n = 1 << 26, m = 2048;
  EXPECT_EQ(saxpy->fp32_flops, 2 * n);
  EXPECT_EQ(sgemm->fp32_flops, 2 * m * m * m);
  EXPECT_NEAR(saxpy->dram_bytes, 12 * n, 0.03 * 12 * n);
  const std::string saxpy_reason = report::CountersReason(*saxpy);
  EXPECT_EQ(saxpy->verdict.bound, Bound::kDram) << saxpy_reason;
  EXPECT_EQ(sgemm->verdict.bound, Bound::kL1) << report::CountersReason(*sgemm);
  EXPECT_EQ(tiny->verdict.bound, Bound::kLatency) << report::CountersReason(*tiny);
  EXPECT_TRUE(tiny->verdict.small_grid);
  EXPECT_NE(saxpy_reason.find("DRAM-bound; AI 0.17 FLOP/B (DRAM)"), std::string::npos)
      << saxpy_reason;
  for (const auto& k : all_) {
    EXPECT_EQ(k.StrategyNames(), "kernel replay");
    EXPECT_EQ(k.measured_launches, 1u);
  }
}

TEST_F(RecordedCounters, MeasuredLaunchesAreMarkedAndLeftOutOfTiming) {
  int measured = 0;
  for (const auto& k : profile_.kernels)
    measured += (k.flags & model::kKernelCountersMeasured) != 0;
  EXPECT_EQ(measured, 3);
  EXPECT_EQ(profile_.kernels.size(), 1008u);
}

}  // namespace
}  // namespace cuscope::analysis
