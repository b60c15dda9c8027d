// docs/profile-format.md's tables are made from the schema's declarations
// (lib/store/schema_docs.h). To rewrite them after changing a declaration:
// CUSCOPE_UPDATE_DOCS=1 build/tests/store_schema_docs_test --gtest_filter='*Docs*'
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/store/schema.h"
#include "lib/store/schema_docs.h"

namespace cuscope::store {
namespace {

const char kRewrite[] =
    "CUSCOPE_UPDATE_DOCS=1 build/tests/store_schema_docs_test --gtest_filter='*Docs*' "
    "rewrites it";

std::string DocPath() { return std::string(CUSCOPE_SOURCE_DIR) + "/docs/profile-format.md"; }

std::string ReadDoc() {
  std::ifstream in(DocPath());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Compares the doc's text between "<!-- NAME: begin -->\n" and "<!-- NAME: end -->"
// with `generated`; with CUSCOPE_UPDATE_DOCS=1, rewrites it first.
void ExpectSection(const std::string& name, const std::string& generated) {
  std::string doc = ReadDoc();
  const std::string begin = "<!-- " + name + ": begin -->\n";
  const std::string end = "<!-- " + name + ": end -->";
  size_t from = doc.find(begin), to = doc.find(end);
  ASSERT_NE(from, std::string::npos) << DocPath() << " has no \"" << begin << "\"";
  ASSERT_NE(to, std::string::npos) << DocPath() << " has no \"" << end << "\"";
  from += begin.size();
  ASSERT_LE(from, to) << DocPath() << ": \"" << end << "\" before \"" << begin << "\"";
  if (const char* update = std::getenv("CUSCOPE_UPDATE_DOCS");
      update && std::string(update) == "1") {
    doc.replace(from, to - from, generated);
    to = from + generated.size();
    std::ofstream(DocPath()) << doc;
  }
  EXPECT_EQ(doc.substr(from, to - from), generated)
      << "docs/profile-format.md's " << name
      << " differ from the declarations (lib/store/schema.h, table.h); " << kRewrite;
}

TEST(SchemaDocs, DocsMetaKeysAreTheDeclarations) { ExpectSection("meta keys", MetaKeysMarkdown()); }

TEST(SchemaDocs, DocsTablesAreTheDeclarations) { ExpectSection("tables", TablesMarkdown()); }

// Every column and meta key carries a doc of one line.
struct DocChecker {
  std::string table;
  std::vector<std::string> bad;
  void Check(const char* column, ColumnDoc doc) {
    const std::string text = doc.text;
    if (text.empty() || text.find('\n') != std::string::npos || doc.unit == nullptr) {
      bad.push_back(table + "." + column);
    }
  }
  template <typename T>
  void Int(const char* c, const T&, ColumnDoc d) {
    Check(c, d);
  }
  void StrId(const char* c, const model::StringId&, ColumnDoc d) { Check(c, d); }
  void Text(const char* c, const std::string&, ColumnDoc d) { Check(c, d); }
  void Real(const char* c, const double&, ColumnDoc d) { Check(c, d); }
  void Blob(const char* c, const std::vector<double>&, ColumnDoc d) { Check(c, d); }
};

TEST(SchemaDocs, EveryColumnAndTableHasADoc) {
  DocChecker checker;
  size_t tables = 0;
  auto check = [&](auto tag) {
    using T = Table<typename decltype(tag)::Record>;
    ++tables;
    EXPECT_NE(std::string(T::kDoc), "") << T::kName;
    checker.table = T::kName;
    const typename decltype(tag)::Record record{};
    T::Visit(record, checker);
  };
  ProfileTables::ForEach(check);
  FindingsTables::ForEach(check);
  checker.table = "meta";
  const model::RunInfo run;
  VisitRunInfo(run, checker);
  EXPECT_EQ(tables, 23u);
  EXPECT_TRUE(checker.bad.empty()) << "no one-line doc: " << ::testing::PrintToString(checker.bad);
}

// Every table the writer creates is documented: the record tables by the generated
// sections, meta, strings and enum_names by hand.
TEST(SchemaDocs, EveryCreatedTableIsDocumented) {
  const std::string sql = SchemaSql() + FindingsSchemaSql();
  const std::string doc = ReadDoc();
  const std::string generated = TablesMarkdown();
  std::regex create(R"(CREATE TABLE (IF NOT EXISTS )?(\w+))");
  std::set<std::string> created;
  for (auto it = std::sregex_iterator(sql.begin(), sql.end(), create); it != std::sregex_iterator();
       ++it) {
    created.insert((*it)[2]);
  }
  EXPECT_EQ(created.size(), 23u + 3u);
  for (const std::string& table : created) {
    const std::string heading = "### `" + table + "`";
    EXPECT_NE(doc.find(heading), std::string::npos) << table << " has no section";
    if (table != "meta" && table != "strings" && table != "enum_names") {
      EXPECT_NE(generated.find(heading + "\n"), std::string::npos) << table << " not generated";
    }
  }
}

TEST(SchemaDocs, RowsNameTypesAndUnits) {
  const std::string tables = TablesMarkdown();
  EXPECT_NE(tables.find("| `start_ns` | `INTEGER` | ns, CUPTI clock | when the kernel started"),
            std::string::npos);
  EXPECT_NE(tables.find("| `kind` | `INTEGER`, enum `memcpy_kind` |"), std::string::npos);
  EXPECT_NE(tables.find("| `name_id` | `INTEGER`, `strings.id` |"), std::string::npos);
  EXPECT_NE(tables.find("Declared with `PRIMARY KEY (id)`."), std::string::npos);
  const std::string meta = MetaKeysMarkdown();
  EXPECT_NE(meta.find("| `schema_version` | integer | | the schema version, currently `" +
                      std::to_string(kSchemaVersion) + "`"),
            std::string::npos);
  EXPECT_NE(meta.find("| `extra.<name>` | text |"), std::string::npos);
}

}  // namespace
}  // namespace cuscope::store
