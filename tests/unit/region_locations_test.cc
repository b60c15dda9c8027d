// Regions at a source location (model::SourceLocation, RangeRecord::location): the
// region summary's label, and where the text report, the JSON report and the Chrome
// trace show it; without locations they show nothing new.
#include <cstdio>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/analysis/regions.h"
#include "lib/report/chrome_trace.h"
#include "lib/report/json.h"
#include "lib/report/report_data.h"
#include "lib/report/text.h"
#include "tests/unit/builders.h"

namespace cuscope::report {
namespace {

using cuscope::testing::ProfileBuilder;
using ::testing::HasSubstr;
using ::testing::Not;

// "step" (twice, at one site) holding "fwd" (at two sites), and "plain" (no site).
ProfileBuilder LocatedProfile(bool with_locations) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  if (with_locations) {
    for (uint32_t line : {42u, 7u, 9u}) {
      model::SourceLocation& l = p.source_locations.emplace_back();
      l.id = line;
      l.file = p.strings.Intern(line == 42 ? "src/train/loop.cc" : "src/model/layer.cc");
      l.line = line;
      l.function = p.strings.Intern("F");
    }
  }
  b.Range("step", 1000, 5000).location = with_locations ? 42 : 0;
  b.Range("fwd", 1100, 2000, 1).location = with_locations ? 7 : 0;
  b.Range("step", 6000, 9000).location = with_locations ? 42 : 0;
  b.Range("fwd", 6100, 7000, 1).location = with_locations ? 9 : 0;
  b.Range("plain", 10000, 10500);
  return b;
}

const analysis::RegionSummaryRow* Row(const std::vector<analysis::RegionSummaryRow>& rows,
                                      const std::string& path) {
  for (const auto& r : rows) {
    if (r.path == path) return &r;
  }
  return nullptr;
}

TEST(RegionLocations, SummaryLabelsTheSites) {
  ProfileBuilder b = LocatedProfile(true);
  const std::vector<analysis::RegionSummaryRow> rows = analysis::SummarizeRegions(b.profile());
  ASSERT_NE(Row(rows, "step"), nullptr);
  EXPECT_EQ(Row(rows, "step")->location, "src/train/loop.cc:42");
  ASSERT_NE(Row(rows, "step/fwd"), nullptr);
  EXPECT_EQ(Row(rows, "step/fwd")->location, "src/model/layer.cc:7 (+1)");
  ASSERT_NE(Row(rows, "plain"), nullptr);
  EXPECT_EQ(Row(rows, "plain")->location, "");
}

TEST(RegionLocations, AnIdWithoutARowIsUnknown) {
  ProfileBuilder b = LocatedProfile(true);
  b.profile().source_locations.clear();
  for (const auto& r : analysis::SummarizeRegions(b.profile())) EXPECT_EQ(r.location, "");
}

std::string Text(const model::Profile& p) {
  std::ostringstream out;
  ReportOptions options;
  options.max_name_width = 80;
  WriteText(BuildReport(p), options, out);
  return out.str();
}
std::string Json(const model::Profile& p) {
  std::ostringstream out;
  WriteJson(BuildReport(p), ReportOptions(), out);
  return out.str();
}
std::string Trace(const model::Profile& p) {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&buf, &size);
  EXPECT_TRUE(WriteChromeTrace(p, f).ok());
  std::fclose(f);
  std::string s(buf, size);
  free(buf);
  return s;
}

TEST(RegionLocations, ReportsShowThemOnlyWhenKnown) {
  ProfileBuilder located = LocatedProfile(true);
  const std::string text = Text(located.profile());
  EXPECT_THAT(text, HasSubstr("Where"));
  EXPECT_THAT(text, HasSubstr("loop.cc:42"));
  EXPECT_THAT(text, Not(HasSubstr("src/train/")));  // the text table drops directories
  EXPECT_THAT(text, HasSubstr("layer.cc:7 (+1)"));
  const std::string json = Json(located.profile());
  EXPECT_THAT(json, HasSubstr("\"location\": \"src/train/loop.cc:42\""));
  const std::string trace = Trace(located.profile());
  EXPECT_THAT(trace, HasSubstr("\"location\":\"src/model/layer.cc:9\""));

  ProfileBuilder plain = LocatedProfile(false);
  EXPECT_THAT(Text(plain.profile()), Not(HasSubstr("Where")));
  EXPECT_THAT(Json(plain.profile()), Not(HasSubstr("\"location\"")));
  EXPECT_THAT(Trace(plain.profile()), Not(HasSubstr("\"location\"")));
}

}  // namespace
}  // namespace cuscope::report
