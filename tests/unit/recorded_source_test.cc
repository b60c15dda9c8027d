// Source hotspots from a recorded profile (no GPU): examples/source_hotspots run with
// `cuscope run --source` on an H100 (tests/gpu/run.sh tests writes it). Its kernel
// `mixed_kernel` has one line of dependent, uncoalesced loads (HOT_MEMORY) and one long
// FMA chain (HOT_MATH); a cuBLAS SGEMM has no line info; a graph-launched kernel and two
// kernels on concurrent streams have theirs.
#include <string>

#include "gtest/gtest.h"
#include "lib/analysis/compare.h"
#include "lib/analysis/compare_source.h"
#include "lib/analysis/source_hotspots.h"
#include "lib/model/pc_samples.h"
#include "lib/report/html_report.h"
#include "lib/report/report_data.h"
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

// The HTML report has a source section with the hot lines marked, their text and stalls.
TEST_F(RecordedSource, TheHtmlReportShowsTheHotLines) {
  const std::string html = report::RenderHtmlReport(report::BuildReport(profile_));
  const size_t section = html.find("<section id=\"source\">");
  ASSERT_NE(section, std::string::npos);
  EXPECT_NE(html.find("<a href=\"#source\">Source</a>"), std::string::npos);
  const size_t hot = html.find("<tr class=\"hot\">", section);
  ASSERT_NE(hot, std::string::npos);
  const std::string row = html.substr(hot, html.find("</tr>", hot) - hot);
  EXPECT_NE(row.find("HOT_MEMORY"), std::string::npos) << row;
  EXPECT_NE(row.find("waiting on global/local memory"), std::string::npos) << row;
  EXPECT_NE(html.find("no line info (build with -lineinfo)", section), std::string::npos);
}

// diff compares the hot lines of functions sampled in both: against itself, every line
// keeps its share; a line that moved is ranked first.
TEST_F(RecordedSource, DiffComparesLines) {
  const Comparison same = Compare(profile_, profile_);
  ASSERT_FALSE(same.source.empty());
  for (const SourceLineChange& c : same.source) {
    EXPECT_DOUBLE_EQ(c.base_pct, c.next_pct) << c.file << ":" << c.line;
  }
  SourceHotspots moved = hot_;
  FunctionHotspots& f = moved.functions[0];
  ASSERT_GE(f.lines.size(), 2u);
  std::swap(f.lines[0].pct, f.lines[1].pct);
  const std::vector<SourceLineChange> changes = CompareSource(hot_, moved);
  ASSERT_GE(changes.size(), 2u);
  EXPECT_NE(changes[0].base_pct, changes[0].next_pct);
  EXPECT_EQ(changes[0].function, f.name);
}

}  // namespace
}  // namespace cuscope::analysis
