// UTF-8 checks (lib/model/utf8.h) and the JSON writers' use of them (issue 14,
// defect 7: invalid UTF-8 passed into JSON, which then failed to parse).
#include "lib/model/utf8.h"

#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "lib/analysis/compare.h"
#include "lib/report/diff.h"
#include "rapidjson/document.h"
#include "rapidjson/encodings.h"
#include "tests/unit/builders.h"

namespace cuscope {
namespace {

TEST(Utf8, ValidAndInvalid) {
  EXPECT_TRUE(model::IsValidUtf8(""));
  EXPECT_TRUE(model::IsValidUtf8("plain ascii"));
  EXPECT_TRUE(model::IsValidUtf8("ünïcødé ✓ 日本語 \xF0\x9F\x98\x80"));
  EXPECT_TRUE(model::IsValidUtf8(std::string("nul\0inside", 10)));
  EXPECT_EQ(model::ValidUtf8Prefix("ab\xFF"), 2u);
  EXPECT_FALSE(model::IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(model::IsValidUtf8("\xE0\x80\xAF"));      // overlong
  EXPECT_FALSE(model::IsValidUtf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(model::IsValidUtf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(model::IsValidUtf8("\xE2\x82"));          // cut short
  EXPECT_FALSE(model::IsValidUtf8("\x80"));              // lone continuation
}

TEST(Utf8, ReplacesEachBadByte) {
  EXPECT_EQ(model::ReplaceInvalidUtf8("ok ✓"), "ok ✓");
  EXPECT_EQ(model::ReplaceInvalidUtf8("a\xFF"
                                      "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(model::ReplaceInvalidUtf8("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_TRUE(model::IsValidUtf8(model::ReplaceInvalidUtf8("\xC0\xAF\xF5\xED\xA0\x80z")));
}

TEST(Utf8, QuoteForMessageIsOneShortLine) {
  EXPECT_EQ(model::QuoteForMessage("abc"), "'abc'");
  EXPECT_EQ(model::QuoteForMessage("a\nb'c"), "'a\\nb\\'c'");
  const std::string quoted = model::QuoteForMessage(std::string(1000000, 'x'), 10);
  EXPECT_EQ(quoted, "'xxxxxxxxxx...' (1000000 bytes)");
}

// Found by the fuzzer: SQLite's messages quote a damaged schema, newlines and all.
TEST(Utf8, OneLineEscapesControlsAndCuts) {
  EXPECT_EQ(model::OneLine("malformed (x INTEGER,\n  y)"), "malformed (x INTEGER,\\n  y)");
  EXPECT_EQ(model::OneLine("tab\there\x01\xFF"), "tab\\there\\x01\xEF\xBF\xBD");
  EXPECT_EQ(model::OneLine(std::string(500, 'a'), 10), "aaaaaaaaaa...");
  EXPECT_EQ(model::OneLine("✓✓✓", 4), "✓✓...");  // never inside a character
}

// A file name that is not UTF-8 (as a shell can pass it) in diff's JSON.
TEST(Utf8, DiffJsonOfANonUtf8LabelParses) {
  testing::ProfileBuilder a, b;
  a.Kernel("k", 1000, 2000);
  b.Kernel("k", 1000, 3000);
  std::ostringstream out;
  report::WriteComparisonJson(analysis::Compare(a.profile(), b.profile()), "base\xFF.sqlite",
                              "new\xC0.sqlite", report::ReportOptions(), out);
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(out.str().c_str());
  ASSERT_FALSE(doc.HasParseError()) << out.str();
  EXPECT_EQ(std::string(doc["base"].GetString()), "base\xEF\xBF\xBD.sqlite");
}

}  // namespace
}  // namespace cuscope
