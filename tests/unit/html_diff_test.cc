// The comparison page (`cuscope diff BASE NEW --html`): its sections and tables from
// the comparison of two synthetic profiles, escaping, and the cut of long tables.
#include "lib/report/html_diff.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/report/html_sections.h"
#include "tests/unit/builders.h"

namespace cuscope::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::ProfileBuilder;

// The text of the element with id `id` (up to its section's end).
std::string Section(const std::string& html, const std::string& id) {
  const size_t start = html.find("<section id=\"" + id + "\">");
  if (start == std::string::npos) return "";
  return html.substr(start, html.find("</section>", start) - start);
}

// Base: pageable copies and a device sync; new: pinned copies, a faster kernel, a new one.
analysis::Comparison TwoRuns() {
  ProfileBuilder base, next;
  for (ProfileBuilder* b : {&base, &next}) {
    b->profile().run.start_ns = 1;
    b->profile().run.end_ns = 100001;
  }
  base.Api("cudaLaunchKernel", 10, 20, 1);
  base.Kernel("gemm<float>", 1000, 41000, 7, 1);
  base.Memcpy(model::MemcpyKind::kHtoD, model::MemoryKind::kPageable, 4000000, 50000, 60000);
  base.Api("cudaDeviceSynchronize", 41000, 42000, 2);
  next.Api("cudaLaunchKernel", 10, 20, 1);
  next.Kernel("gemm<float>", 1000, 11000, 7, 1);
  next.Api("cudaLaunchKernel", 30, 40, 3);
  next.Kernel("evil</script><b>", 12000, 13000, 7, 3);
  next.Memcpy(model::MemcpyKind::kHtoD, model::MemoryKind::kPinned, 4000000, 50000, 51000);
  return analysis::Compare(base.profile(), next.profile());
}

TEST(HtmlDiffTest, TotalsAndEverySection) {
  const std::string html = RenderHtmlDiff(TwoRuns(), "before.sqlite", "after.sqlite");
  EXPECT_THAT(html, HasSubstr("<title>cuscope diff: before.sqlite -&gt; after.sqlite</title>"));
  const std::string totals = Section(html, "totals");
  EXPECT_THAT(totals, HasSubstr("<th>taken</th><td>BASE trace only; NEW trace only</td>"));
  EXPECT_THAT(totals, HasSubstr("<th>kernel time</th><td>40.000 us -&gt; 11.000 us (-29.000 us, "
                                "-72.5%: a change beyond 3%)</td>"));
  EXPECT_THAT(totals, HasSubstr("<th>kernels</th><td>1 -&gt; 2 records (+1, +100.0%)</td>"));
  EXPECT_THAT(totals, HasSubstr("<th>GPU 0 busy</th><td>NVIDIA H200, 50.000 us -&gt; 12.000 us"));
  EXPECT_THAT(totals, HasSubstr("<th>copies</th><td>1 -&gt; 1 copies (+0, +0.0%), 4.000 MB"));
  EXPECT_THAT(totals, HasSubstr("<th>synchronizing calls</th><td>1 -&gt; 0 calls (-1, gone)"));
  for (const char* id : {"findings", "kernels", "regions", "memory", "api", "verdicts"}) {
    EXPECT_FALSE(Section(html, id).empty()) << id;
  }
  // Sortable tables with a sort value per number.
  const std::string kernels = Section(html, "kernels");
  EXPECT_THAT(kernels, HasSubstr("<table class=\"sortable\" id=\"diff-kernels\">"));
  EXPECT_THAT(kernels, HasSubstr("<td class=\"num down\" data-v=\"-30000\">-30.000 us</td>"));
  EXPECT_THAT(kernels, HasSubstr("<td class=\"num\" data-v=\"-75\">-75.0%</td>"));
  // A new kernel's change sorts above every finite change.
  EXPECT_THAT(kernels, HasSubstr("data-v=\"1e+300\">new</td>"));
  const std::string memory = Section(html, "memory");
  EXPECT_THAT(memory, HasSubstr("[CUDA memcpy HtoD pageable]"));
  EXPECT_THAT(memory, HasSubstr("[CUDA memcpy HtoD pinned]"));
  EXPECT_THAT(memory, HasSubstr(">400</td>"));  // 4 MB in 10 us: 400 GB/s
  const std::string api = Section(html, "api");
  EXPECT_THAT(api, HasSubstr("<td class=\"name\">cudaDeviceSynchronize</td><td>sync</td>"));
  EXPECT_THAT(api, HasSubstr("<td class=\"name\">cudaLaunchKernel</td><td></td>"));
  EXPECT_THAT(Section(html, "regions"), HasSubstr("None in either profile."));
  // The report's style and script, and the diff's own marks.
  EXPECT_THAT(html, HasSubstr(HtmlStyle()));
  EXPECT_THAT(html, HasSubstr(HtmlScript()));
  EXPECT_THAT(html, HasSubstr("document.body.dataset.tables"));
}

TEST(HtmlDiffTest, EscapesNamesAndLabels) {
  const std::string html = RenderHtmlDiff(TwoRuns(), "a<b>.sqlite", "c&d.sqlite");
  EXPECT_THAT(html, Not(HasSubstr("evil</script>")));
  EXPECT_THAT(html, HasSubstr("evil&lt;/script&gt;&lt;b&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("a<b>")));
  EXPECT_THAT(html, HasSubstr("a&lt;b&gt;.sqlite"));
  EXPECT_THAT(html, HasSubstr("c&amp;d.sqlite"));
}

TEST(HtmlDiffTest, FindingChangesAreClassedByKind) {
  analysis::Comparison c;
  analysis::FindingChange appeared, resolved;
  appeared.kind = analysis::FindingChangeKind::kAppeared;
  appeared.rule = "gpu_idle_gaps";
  appeared.region = "step";
  appeared.next_gain_ns = 2e6;
  appeared.summary = "GPU idle";
  resolved.kind = analysis::FindingChangeKind::kResolved;
  resolved.rule = "pageable_copies";
  resolved.base_gain_ns = 1e6;
  c.findings = {appeared, resolved};
  const std::string findings = Section(RenderHtmlDiff(c, "a", "b"), "findings");
  EXPECT_THAT(findings, HasSubstr("<div class=\"finding appeared\">"));
  EXPECT_THAT(findings, HasSubstr("<b>gpu_idle_gaps</b> <span class=\"gain\">could save "
                                  "2.000 ms</span>"));
  EXPECT_THAT(findings, HasSubstr("<p class=\"where\">region step</p>"));
  EXPECT_THAT(findings, HasSubstr("<div class=\"finding resolved\">"));
  EXPECT_THAT(Section(RenderHtmlDiff({}, "a", "b"), "findings"),
              HasSubstr("No finding in either profile."));
}

TEST(HtmlDiffTest, LongTablesAreCut) {
  analysis::Comparison c;
  for (size_t i = 0; i < kHtmlMaxRows + 5; ++i) {
    analysis::Delta d;
    d.name = "k" + std::to_string(i);
    d.base = {1, 100, 100, 0, 0};
    c.kernels.push_back(d);
  }
  const std::string kernels = Section(RenderHtmlDiff(c, "a", "b"), "kernels");
  EXPECT_THAT(kernels, HasSubstr(">k999</td>"));
  EXPECT_THAT(kernels, Not(HasSubstr(">k1000</td>")));
  EXPECT_THAT(kernels, HasSubstr("5 more kernels not shown"));
}

TEST(HtmlDiffTest, SyncCallsPastTheCutStayAsInTheText) {
  analysis::Comparison c;
  for (size_t i = 0; i < kHtmlMaxRows + 5; ++i) {
    analysis::TotalsDelta d;
    d.name = "cuCall" + std::to_string(i);
    d.synchronizing = i == kHtmlMaxRows + 3;  // a synchronizing call past the cut
    c.api.push_back(d);
  }
  const std::string api = Section(RenderHtmlDiff(c, "a", "b"), "api");
  EXPECT_THAT(api, HasSubstr(">cuCall999</td>"));
  EXPECT_THAT(api, Not(HasSubstr(">cuCall1000</td>")));
  EXPECT_THAT(api, HasSubstr(">cuCall1003</td>"));
}

}  // namespace
}  // namespace cuscope::report
