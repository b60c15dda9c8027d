// Source hotspots from a recorded profile (no GPU): examples/source_hotspots run with
// `cuscope run --source` on an H100 (tests/gpu/run.sh tests writes it). Its kernel
// `mixed_kernel` has one line of dependent, uncoalesced loads (HOT_MEMORY) and one long
// FMA chain (HOT_MATH); a cuBLAS SGEMM has no line info; a graph-launched kernel and two
// kernels on concurrent streams have theirs.
#include <string>

#include "gtest/gtest.h"
#include "lib/analysis/source_hotspots.h"
#include "lib/model/pc_samples.h"
#include "lib/store/reader.h"

namespace cuscope::analysis {
namespace {

class RecordedSource : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) +
                                "/real/h100-source-hotspots.sqlite");
    ASSERT_TRUE(p.ok()) << p.status();
    profile_ = *std::move(p);
    HotspotOptions options;
    options.top_functions = 0;
    hot_ = FindSourceHotspots(profile_, options);
  }

  const FunctionHotspots* Function(const std::string& prefix) const {
    for (const FunctionHotspots& f : hot_.functions) {
      if (f.name.rfind(prefix, 0) == 0 || f.name.find(prefix) != std::string::npos) return &f;
    }
    return nullptr;
  }

  model::Profile profile_;
  SourceHotspots hot_;
};

TEST_F(RecordedSource, TheMemoryLineFirstWaitingOnMemoryThenTheMathLine) {
  const FunctionHotspots* f = Function("mixed_kernel");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->has_lines);
  ASSERT_GE(f->lines.size(), 2u);
  const HotLine& memory = f->lines[0];
  const HotLine& math = f->lines[1];
  EXPECT_NE(memory.text.find("HOT_MEMORY"), std::string::npos) << memory.text;
  EXPECT_NE(math.text.find("HOT_MATH"), std::string::npos) << math.text;
  EXPECT_GT(memory.pct, 50.0);
  ASSERT_FALSE(memory.stalls.empty());
  EXPECT_EQ(memory.stalls[0].kind, model::StallKind::kLongScoreboard);
  EXPECT_GT(memory.stalls[0].pct, 80.0);
  ASSERT_FALSE(math.stalls.empty());
  // A dependent FMA chain waits on each result's fixed latency, or issues.
  EXPECT_TRUE(math.stalls[0].kind == model::StallKind::kWait ||
              math.stalls[0].kind == model::StallKind::kSelected ||
              math.stalls[0].kind == model::StallKind::kMathPipeThrottle)
      << static_cast<int>(math.stalls[0].kind);
  EXPECT_NE(math.stalls[0].kind, model::StallKind::kLongScoreboard);
}

TEST_F(RecordedSource, CublasByFunctionGraphAndStreamKernelsByLine) {
  const FunctionHotspots* gemm = Function("sgemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_FALSE(gemm->has_lines);
  EXPECT_GT(gemm->samples, 0u);
  for (const char* name : {"graph_kernel", "stream_kernel_a", "stream_kernel_b"}) {
    const FunctionHotspots* f = Function(name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_TRUE(f->has_lines) << name;
    EXPECT_GT(f->samples, 0u) << name;
  }
  EXPECT_EQ(hot_.function_count, 5u);
}

}  // namespace
}  // namespace cuscope::analysis
