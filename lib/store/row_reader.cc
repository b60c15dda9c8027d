#include "lib/store/row_reader.h"

#include "lib/store/float64_blob.h"

namespace cuscope::store {

void RowReader::StrId(const char* column, model::StringId& out, ColumnDoc doc) {
  int index = index_;
  Int(column, out, doc);
  if (ok() && out >= string_count_) {
    Fail(column, index, absl::StrCat("a string id below ", string_count_));
  }
}

void RowReader::Text(const char* column, std::string& out, ColumnDoc) {
  int index = index_++;
  if (!ok()) return;
  if (sqlite3_column_type(stmt_, index) != SQLITE_TEXT) {
    Fail(column, index, "text");
    return;
  }
  const unsigned char* text = sqlite3_column_text(stmt_, index);
  int bytes = sqlite3_column_bytes(stmt_, index);
  // Names reach JSON and terminals: invalid UTF-8 becomes U+FFFD.
  out = model::ReplaceInvalidUtf8(
      std::string_view(reinterpret_cast<const char*>(text), static_cast<size_t>(bytes)));
}

void RowReader::Real(const char* column, double& out, ColumnDoc) {
  int index = index_++;
  if (!ok()) return;
  sqlite3_value* value = sqlite3_column_value(stmt_, index);  // as in Int
  switch (sqlite3_value_type(value)) {
    case SQLITE_FLOAT:
    case SQLITE_INTEGER:  // not written by us (REAL affinity), but a number
      out = sqlite3_value_double(value);
      return;
    case SQLITE_NULL:
      out = std::numeric_limits<double>::quiet_NaN();  // how NaN is stored
      return;
    default:
      Fail(column, index, "a number (or NULL for NaN)");
  }
}

void RowReader::Blob(const char* column, std::vector<double>& out, ColumnDoc) {
  int index = index_++;
  if (!ok()) return;
  sqlite3_value* value = sqlite3_column_value(stmt_, index);  // as in Int
  if (sqlite3_value_type(value) != SQLITE_BLOB) {
    Fail(column, index, "a BLOB of little-endian float64 values");
    return;
  }
  const void* data = sqlite3_value_blob(value);
  const size_t bytes = static_cast<size_t>(sqlite3_value_bytes(value));
  if (bytes % kFloat64Bytes != 0) {
    error_ = absl::StrFormat(
        "%s row %d: column %s holds a BLOB of %d bytes, expected 8 bytes (a little-endian "
        "float64) per value",
        table_, row_, column, bytes);
    return;
  }
  DecodeFloat64Blob(data, bytes, &out);
}

void RowReader::Fail(const char* column, int index, absl::string_view expected) {
  const unsigned char* text = sqlite3_column_text(stmt_, index);
  const std::string value =
      text == nullptr
          ? "NULL"
          : model::QuoteForMessage(std::string_view(reinterpret_cast<const char*>(text),
                                                    sqlite3_column_bytes(stmt_, index)));
  error_ = absl::StrFormat("%s row %d: column %s holds %s, expected %s", table_, row_, column,
                           value, expected);
}

}  // namespace cuscope::store
