// The HTML report: escaping, its sections, its JSON data and its size for a large run.
#include "lib/report/html_report.h"

#include <string>

#include "gtest/gtest.h"
#include "lib/report/html_escape.h"
#include "lib/report/html_timeline.h"
#include "lib/store/reader.h"
#include "rapidjson/document.h"
#include "tests/unit/builders.h"

namespace cuscope::report {
namespace {

using testing::ProfileBuilder;

// The JSON between the data element's tags, as the page's script reads it.
std::string DataBlob(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"cuscope-data\">";
  const size_t start = html.find(open);
  if (start == std::string::npos) return "";
  const size_t from = start + open.size();
  return html.substr(from, html.find("</script>", from) - from);
}

TEST(HtmlEscapeTest, EscapesMarkupCharacters) {
  EXPECT_EQ(HtmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(HtmlEscape("plain"), "plain");
  EXPECT_EQ(HtmlEscape("bad \xff byte"), "bad \xEF\xBF\xBD byte");
}

TEST(HtmlEscapeTest, ScriptSafeJsonKeepsTheSameJson) {
  const std::string json = R"({"s":"</script><!-- x"})";
  const std::string safe = ScriptSafeJson(json);
  EXPECT_EQ(safe.find("</"), std::string::npos);
  EXPECT_EQ(safe.find("<!--"), std::string::npos);
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(safe.c_str()).HasParseError());
  EXPECT_STREQ(doc["s"].GetString(), "</script><!-- x");
}

model::Profile Small() {
  ProfileBuilder b;
  b.Kernel("evil</script><b>&amp;", 1000, 5000, 7);
  b.Kernel("gemm", 6000, 9000, 8);
  b.Memset(1024, 9000, 9500);
  b.Range("step", 500, 9600);
  b.profile().run.start_ns = 0;
  b.profile().run.end_ns = 10000;
  return b.Take();
}

TEST(HtmlReportTest, EscapesKernelNamesEverywhere) {
  const model::Profile p = Small();
  const std::string html = RenderHtmlReport(BuildReport(p));
  EXPECT_EQ(html.find("evil</script>"), std::string::npos);
  // The markup outside the data element (inside it, "<b>" is JSON text, not markup).
  std::string markup = html;
  const std::string blob = DataBlob(html);
  ASSERT_FALSE(blob.empty());
  markup.erase(markup.find(blob), blob.size());
  EXPECT_EQ(markup.find("<b>&amp;"), std::string::npos);
  EXPECT_NE(blob.find("evil<\\/script><b>&amp;"), std::string::npos);
  EXPECT_NE(html.find("evil&lt;/script&gt;&lt;b&gt;&amp;amp;"), std::string::npos);
  // Two script elements (data, code) and exactly their two closing tags.
  size_t closes = 0;
  for (size_t at = html.find("</script>"); at != std::string::npos;
       at = html.find("</script>", at + 1))
    ++closes;
  EXPECT_EQ(closes, 2u);
}

TEST(HtmlReportTest, HasEverySectionAndNoNetwork) {
  const model::Profile p = Small();
  const std::string html = RenderHtmlReport(BuildReport(p));
  for (const char* id :
       {"run", "findings", "timeline", "kernels", "regions", "roofline", "counters"}) {
    EXPECT_NE(html.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
  }
  EXPECT_NE(html.find("id=\"kernel-table\""), std::string::npos);
  EXPECT_NE(html.find("id=\"region-tree\""), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
}

TEST(HtmlReportTest, DataBlobParses) {
  const model::Profile p = Small();
  const std::string html = RenderHtmlReport(BuildReport(p));
  const std::string blob = DataBlob(html);
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(blob.c_str()).HasParseError()) << blob;
  EXPECT_STREQ(doc["format"].GetString(), "cuscope-html-report");
  const auto& tl = doc["timeline"];
  EXPECT_EQ(tl["start_ns"].GetUint64(), 1000u);
  EXPECT_EQ(tl["end_ns"].GetUint64(), 9500u);
  ASSERT_EQ(tl["lanes"].Size(), 2u);  // streams 7 and 8 (the memset is on stream 7)
  bool evil = false;
  for (const auto& n : tl["names"].GetArray())
    evil |= std::string(n.GetString()) == "evil</script><b>&amp;";
  EXPECT_TRUE(evil);
}

TEST(HtmlTimelineTest, BinsKeepTheBusyTime) {
  ProfileBuilder b;
  b.Kernel("a", 0 + 100, 100 + 1000, 1);  // 1000 ns
  b.Kernel("b", 2100, 2600, 1);           // 500 ns
  b.Kernel("c", 100, 10100, 2);           // the whole span
  const TimelineOverview t = BuildTimelineOverview(b.profile(), 10);
  EXPECT_EQ(t.bin_ns, 1000u);
  EXPECT_EQ(t.bin_count, 10u);
  ASSERT_EQ(t.lanes.size(), 2u);
  EXPECT_EQ(t.lanes[0].busy_ns, 1500u);
  EXPECT_EQ(t.lanes[0].bins.size(), 2u);
  EXPECT_EQ(t.lanes[0].bins[0].kernel_ns, 1000u);
  EXPECT_EQ(t.lanes[0].bins[1].index, 2u);
  EXPECT_EQ(t.names[static_cast<size_t>(t.lanes[0].bins[1].top)], "b");
  EXPECT_EQ(t.lanes[1].busy_ns, 10000u);
  EXPECT_EQ(t.lanes[1].bins.size(), 10u);
}

TEST(HtmlTimelineTest, EmptyWithoutGpuRecords) {
  ProfileBuilder b;
  EXPECT_TRUE(BuildTimelineOverview(b.profile()).lanes.empty());
}

// 1M kernels of 500 names on 8 streams: the page stays under 10 MB.
TEST(HtmlReportTest, MillionKernelsStayUnderTenMegabytes) {
  ProfileBuilder b;
  std::vector<std::string> names;
  for (int i = 0; i < 500; ++i) names.push_back("kernel_" + std::to_string(i) + "<float>");
  for (uint64_t i = 0; i < 1000000; ++i) {
    const uint64_t start = 1000 + i * 1500 / 8;
    b.Kernel(names[i % names.size()], start, start + 1000 + i % 7, static_cast<uint32_t>(i % 8));
  }
  const std::string html = RenderHtmlReport(BuildReport(b.profile()));
  EXPECT_LT(html.size(), 10u << 20);
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(DataBlob(html).c_str()).HasParseError());
  const auto& tl = doc["timeline"];
  EXPECT_EQ(tl["lanes"].Size(), 8u);
  EXPECT_LE(tl["bins"].GetUint(), kTimelineBins);
  EXPECT_NE(html.find("kernel_499&lt;float&gt;"), std::string::npos);
}

TEST(HtmlReportTest, RecordedProfilesRender) {
  for (const char* name : {"h200-counters-demo", "h200-timeline-demo", "h200-torch-loop"}) {
    absl::StatusOr<model::Profile> p =
        store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/" + name + ".sqlite");
    ASSERT_TRUE(p.ok()) << p.status();
    const std::string html = RenderHtmlReport(BuildReport(*p));
    rapidjson::Document doc;
    EXPECT_FALSE(doc.Parse(DataBlob(html).c_str()).HasParseError()) << name;
    EXPECT_FALSE(doc["timeline"]["lanes"].Empty()) << name;
  }
  // The counters demo has counters: the roofline is an inline SVG, with no XML prolog.
  absl::StatusOr<model::Profile> p =
      store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/h200-counters-demo.sqlite");
  ASSERT_TRUE(p.ok());
  const std::string html = RenderHtmlReport(BuildReport(*p));
  EXPECT_NE(html.find("<div class=\"svg\"><svg"), std::string::npos);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  EXPECT_NE(html.find("<details class=\"panel\">"), std::string::npos);
}

}  // namespace
}  // namespace cuscope::report
