// The writer's multi-row INSERTs: a Binder binds records' fields to an INSERT's
// parameters (Table<Rec>::Visit, table.h), InsertAll inserts a vector of records
// kRowsPerInsert rows at a time. Included by writer.cc and the writer's helpers only.
#ifndef CUSCOPE_LIB_STORE_INSERT_ROWS_H_
#define CUSCOPE_LIB_STORE_INSERT_ROWS_H_

#include <sqlite3.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/model/profile.h"
#include "lib/store/float64_blob.h"
#include "lib/store/sqlite.h"
#include "lib/store/table.h"

namespace cuscope::store::insert {

using model::StringId;

// Rows per multi-row INSERT. Stepping a statement has a fixed cost (start, halt,
// reset) that one-row INSERTs pay per row; 64 rows of 20 columns stay well under
// SQLite's limit of 32766 parameters.
constexpr size_t kRowsPerInsert = 64;

// Binds records' fields to an INSERT's parameters, in column order; successive
// records go to the successive rows of a multi-row INSERT.
class Binder {
 public:
  Binder(sqlite3_stmt* stmt, size_t string_count) : stmt_(stmt), string_count_(string_count) {}

  template <typename T>
  void Int(const char*, const T& value, ColumnDoc) {
    // uint64 values are stored as their int64 bit pattern (ns timestamps fit).
    sqlite3_bind_int64(stmt_, index_++, static_cast<sqlite3_int64>(value));
  }
  void StrId(const char* column, const StringId& id, ColumnDoc) {
    if (id >= string_count_ && bad_column_ == nullptr) {
      bad_column_ = column;
      bad_id_ = id;
      bad_row_ = row_;
    }
    sqlite3_bind_int64(stmt_, index_++, id);
  }
  void Text(const char*, const std::string& s, ColumnDoc) {
    // SQLITE_STATIC: `s` outlives the sqlite3_step that reads it.
    sqlite3_bind_text64(stmt_, index_++, s.data(), s.size(), SQLITE_STATIC, SQLITE_UTF8);
  }
  void Blob(const char*, const std::vector<double>& values, ColumnDoc) {
    const sqlite3_uint64 bytes = values.size() * kFloat64Bytes;
    if constexpr (kHostIsLittleEndian) {
      // The vector's memory is the BLOB's layout; it outlives the step (SQLITE_STATIC).
      // Never a null pointer: that would store NULL, not an empty BLOB.
      const void* data = values.empty() ? static_cast<const void*>("") : values.data();
      sqlite3_bind_blob64(stmt_, index_++, data, bytes, SQLITE_STATIC);
    } else {
      const std::string blob = EncodeFloat64Blob(values);
      sqlite3_bind_blob64(stmt_, index_++, blob.data(), bytes, SQLITE_TRANSIENT);
    }
  }
  void Real(const char*, const double& value, ColumnDoc) {
    // SQLite would store a NaN as NULL anyway; say so. Infinities are stored as such.
    if (std::isnan(value)) {
      sqlite3_bind_null(stmt_, index_++);
    } else {
      sqlite3_bind_double(stmt_, index_++, value);
    }
  }

  // Call before binding each record but the first.
  void NextRow() { ++row_; }

  // A StringId that is not in the batch's string table, if any, and the row
  // (counted from 0 in this statement) that holds it.
  const char* bad_column() const { return bad_column_; }
  StringId bad_id() const { return bad_id_; }
  size_t bad_row() const { return bad_row_; }

 private:
  sqlite3_stmt* stmt_;
  size_t string_count_;
  int index_ = 1;
  size_t row_ = 0;
  const char* bad_column_ = nullptr;
  StringId bad_id_ = 0;
  size_t bad_row_ = 0;
};

// A record table's INSERTs: of one row, and of kRowsPerInsert rows.
struct Inserter {
  Stmt one, many;
};

// Names records[i] in the message about a bad string id: "kernels[3]".
template <typename Rec>
struct TableLabel {
  std::string operator()(size_t i) const { return absl::StrCat(Table<Rec>::kName, "[", i, "]"); }
};

// Inserts records[first, first + rows) with `insert`, an INSERT of `rows` rows.
// `label(i)` names records[i] in the message of a bad string id.
template <typename Rec, typename Label>
int InsertRows(sqlite3_stmt* insert, const std::vector<Rec>& records, size_t first, size_t rows,
               size_t string_count, std::string& bad, const Label& label) {
  Binder binder(insert, string_count);
  for (size_t i = first; i < first + rows; ++i) {
    if (i != first) binder.NextRow();
    Table<Rec>::Visit(records[i], binder);
  }
  if (binder.bad_column() != nullptr) {
    sqlite3_clear_bindings(insert);  // drop the pointers to the batch's strings
    bad =
        absl::StrFormat("%s.%s is %d but the batch has %d strings", label(first + binder.bad_row()),
                        binder.bad_column(), binder.bad_id(), string_count);
    return SQLITE_MISMATCH;
  }
  return StepDone(insert);
}

// Inserts every record of `records`; on failure returns the SQLite code, or
// SQLITE_MISMATCH with `bad` set for a StringId outside the batch's table.
template <typename Rec, typename Label = TableLabel<Rec>>
int InsertAll(const Inserter& insert, const std::vector<Rec>& records, size_t string_count,
              std::string& bad, const Label& label = Label()) {
  size_t i = 0;
  int rc = SQLITE_OK;
  for (; rc == SQLITE_OK && i + kRowsPerInsert <= records.size(); i += kRowsPerInsert) {
    rc = InsertRows(insert.many.get(), records, i, kRowsPerInsert, string_count, bad, label);
  }
  for (; rc == SQLITE_OK && i < records.size(); ++i) {
    rc = InsertRows(insert.one.get(), records, i, 1, string_count, bad, label);
  }
  return rc;
}

}  // namespace cuscope::store::insert

#endif  // CUSCOPE_LIB_STORE_INSERT_ROWS_H_
