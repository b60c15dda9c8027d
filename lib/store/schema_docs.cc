#include "lib/store/schema_docs.h"

#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "lib/model/enum_names.h"
#include "lib/store/schema.h"

namespace cuscope::store {
namespace {

// Text in a table cell: '|' would end the cell.
std::string Cell(absl::string_view text) { return absl::StrReplaceAll(text, {{"|", "\\|"}}); }

// One table row per column (or meta key): name, type, unit, meaning.
class DocLister {
 public:
  // `meta`: the values are meta rows (decimal text), so types are named as values.
  explicit DocLister(bool meta) : meta_(meta) {}

  template <typename T>
  void Int(const char* column, const T&, ColumnDoc doc) {
    if constexpr (std::is_enum_v<T>) {
      Add(column, absl::StrCat("`INTEGER`, enum `", model::EnumNames<T>::kEnum, "`"), doc);
    } else {
      Add(column, meta_ ? "integer" : "`INTEGER`", doc);
    }
  }
  void StrId(const char* column, const model::StringId&, ColumnDoc doc) {
    Add(column, "`INTEGER`, `strings.id`", doc);
  }
  void Text(const char* column, const std::string&, ColumnDoc doc) {
    Add(column, meta_ ? "text" : "`TEXT`", doc);
  }
  void Real(const char* column, const double&, ColumnDoc doc) { Add(column, "`REAL`", doc); }
  void Blob(const char* column, const std::vector<double>&, ColumnDoc doc) {
    Add(column, "`BLOB`", doc);
  }

  void Add(absl::string_view name, absl::string_view type, ColumnDoc doc) {
    rows_ += "|";
    for (const std::string& cell :
         {absl::StrCat("`", name, "`"), std::string(type), Cell(doc.unit), Cell(doc.text)}) {
      absl::StrAppend(&rows_, cell.empty() ? "" : " ", cell, " |");
    }
    rows_ += "\n";
  }
  const std::string& rows() const { return rows_; }

 private:
  bool meta_;
  std::string rows_;
};

template <typename Rec>
void AppendTable(std::string& out) {
  using T = Table<Rec>;
  if (!out.empty()) out += "\n";
  absl::StrAppend(&out, "### `", T::kName, "`\n\n", T::kDoc, "\n\n");
  if (!absl::string_view(T::kConstraints).empty()) {
    absl::StrAppend(&out, "Declared with `", T::kConstraints, "`.\n\n");
  }
  DocLister lister(/*meta=*/false);
  const Rec record{};
  T::Visit(record, lister);
  absl::StrAppend(&out,
                  "| column | type | unit | meaning |\n"
                  "| --- | --- | --- | --- |\n",
                  lister.rows());
}

}  // namespace

std::string MetaKeysMarkdown() {
  DocLister lister(/*meta=*/true);
  const std::string format =
      absl::StrCat("always `", kFormatName, "`; what makes a SQLite file a cuscope profile");
  lister.Add("format", "text", format.c_str());
  const std::string version = absl::StrCat("the schema version, currently `", kSchemaVersion,
                                           "` (see [Versions](#schema-versions))");
  lister.Add("schema_version", "integer", version.c_str());
  const model::RunInfo run;
  VisitRunInfo(run, lister);
  // The run notes, from their declaration (lib/model/run_notes.h).
  for (const model::RunNoteField& f : model::RunNoteFields()) {
    lister.Add(absl::StrCat(kExtraPrefix, f.key),
               f.type == model::NoteType::kCount ? "integer" : "text", {"", f.doc});
  }
  lister.Add(absl::StrCat(kExtraPrefix, std::string(model::kSettingNotePrefix), "<name>"), "text",
             {"",
              "the setting `<name>` (docs/configuration.md) as the run was taken with it, "
              "one key per setting (`RunNotes::settings`)"});
  lister.Add(absl::StrCat(kExtraPrefix, "<name>"), "text",
             {"",
              "a note this version does not declare (a newer version's), kept as read "
              "(`RunNotes::other`)"});
  return absl::StrCat(
      "| key | type | unit | meaning |\n"
      "| --- | --- | --- | --- |\n",
      lister.rows());
}

std::string TablesMarkdown() {
  std::string out;
  auto append = [&out](auto table) { AppendTable<typename decltype(table)::Record>(out); };
  ProfileTables::ForEach(append);
  FindingsTables::ForEach(append);
  return out;
}

}  // namespace cuscope::store
