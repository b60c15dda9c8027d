// How a table of the profile file is declared: once, with its documentation.
//
// A record table is a specialization of Table<Rec> for the struct one row holds:
//
//   template <>
//   struct Table<model::MemsetRecord> {
//     static constexpr char kName[] = "memset";
//     static constexpr char kDoc[] = "One row per memset (`MemsetRecord`).";
//     static constexpr char kConstraints[] = "";  // or e.g. "PRIMARY KEY (id)"
//     template <typename R, typename V>
//     static void Visit(R& m, V& v) {
//       v.Int("bytes", m.bytes, {"bytes", "size set"});
//       ...
//     }
//   };
//
// Visit names each column, in order, with the struct field it holds and its
// documentation. A visitor `v` gets, for each column:
//   v.Int(column, field, doc)   an integer (any width, or an enum of enum_names.h)
//   v.StrId(column, field, doc) a StringId, an integer referring to strings.id
//   v.Text(column, field, doc)  a std::string
//   v.Real(column, field, doc)  a double; NaN is stored as NULL (SQLite has no NaN)
//   v.Blob(column, field, doc)  a std::vector<double>, as one BLOB (float64_blob.h);
//                               NaN keeps its bits
// `R` is the record type, const for writing. The same Visit generates the CREATE
// TABLE, the INSERT and the SELECT, binds a record for writing, fills and checks one
// when reading, and writes the table's part of docs/profile-format.md
// (schema_docs.h), so none of them can disagree with another.
//
// A new table is one such specialization added to ProfileTables (schema.h): the
// schema, the docs and the docs test follow from it (the writer and the reader still
// decide what goes in it).
#ifndef CUSCOPE_LIB_STORE_TABLE_H_
#define CUSCOPE_LIB_STORE_TABLE_H_

namespace cuscope::store {

// A column's documentation: its unit ("" when it has none, e.g. an id) and one line
// saying what it holds. Markdown: `code` for names and values.
struct ColumnDoc {
  constexpr ColumnDoc(const char* text) : unit(""), text(text) {}  // NOLINT: implicit
  constexpr ColumnDoc(const char* unit, const char* text) : unit(unit), text(text) {}
  const char* unit;
  const char* text;
};

template <typename Rec>
struct Table;

// A list of tables, in the order they are created and documented.
template <typename Rec>
struct TableTag {
  using Record = Rec;
};
template <typename... Recs>
struct TableList {
  // Calls f(TableTag<Rec>()) for each table, in order.
  template <typename F>
  static void ForEach(F&& f) {
    (f(TableTag<Recs>()), ...);
  }
};

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_TABLE_H_
