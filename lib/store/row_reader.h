// Reading values back from a profile file into structs, checking each one: the
// visitors that Table<Rec>::Visit (table.h) and VisitRunInfo drive when loading.
#ifndef CUSCOPE_LIB_STORE_ROW_READER_H_
#define CUSCOPE_LIB_STORE_ROW_READER_H_

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lib/model/enum_names.h"
#include "lib/model/profile.h"
#include "lib/model/utf8.h"
#include "lib/store/table.h"

namespace cuscope::store {

// Reads one row of a SELECT into a record, checking every value's type and range:
// a damaged file gives an error, never a wrong struct or a crash.
class RowReader {
 public:
  RowReader(sqlite3_stmt* stmt, const char* table, size_t string_count)
      : stmt_(stmt), table_(table), string_count_(string_count) {}

  void NextRow() {
    ++row_;
    index_ = 0;
  }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  template <typename T>
  void Int(const char* column, T& out, ColumnDoc) {
    int index = index_++;
    if (!ok()) return;
    // One column call, then the value's: sqlite3_column_type and _int64 would each
    // look the column up again (a third of a large load). The connection is used by
    // this thread alone, so the unprotected value is safe to read.
    sqlite3_value* value = sqlite3_column_value(stmt_, index);
    if (sqlite3_value_type(value) != SQLITE_INTEGER) {
      Fail(column, index, "an integer");
      return;
    }
    int64_t v = sqlite3_value_int64(value);
    if constexpr (std::is_enum_v<T>) {
      constexpr int64_t kMaxEnum = model::MaxEnumValue<T>();
      if (v < 0 || v > kMaxEnum) {
        Fail(column, index, absl::StrCat("an integer in [0, ", kMaxEnum, "]"));
        return;
      }
      out = static_cast<T>(v);
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      out = static_cast<uint64_t>(v);  // the int64 bit pattern the writer stored
    } else {
      static_assert(std::is_integral_v<T> && sizeof(T) <= sizeof(int64_t));
      constexpr int64_t kMin = static_cast<int64_t>(std::numeric_limits<T>::min());
      constexpr int64_t kMax = static_cast<int64_t>(std::numeric_limits<T>::max());
      if (v < kMin || v > kMax) {
        Fail(column, index, absl::StrCat("an integer in [", kMin, ", ", kMax, "]"));
        return;
      }
      out = static_cast<T>(v);
    }
  }
  void StrId(const char* column, model::StringId& out, ColumnDoc);
  void Text(const char* column, std::string& out, ColumnDoc);
  void Real(const char* column, double& out, ColumnDoc);
  // A BLOB of 8 x n bytes (float64_blob.h): n values.
  void Blob(const char* column, std::vector<double>& out, ColumnDoc);

 private:
  void Fail(const char* column, int index, absl::string_view expected);

  sqlite3_stmt* stmt_;
  const char* table_;
  size_t string_count_;
  int64_t row_ = 0;
  int index_ = 0;
  std::string error_;
};

// Parses meta values back into RunInfo fields.
class MetaReader {
 public:
  explicit MetaReader(const std::map<std::string, std::string>& meta) : meta_(meta) {}
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  template <typename T>
  void Int(const char* key, T& out, ColumnDoc) {
    auto it = meta_.find(key);
    if (it == meta_.end() || !ok()) return;  // absent: the writer never got that far
    if (!absl::SimpleAtoi(it->second, &out)) {
      error_ = absl::StrFormat("meta key '%s' holds %s, expected an integer", key,
                               model::QuoteForMessage(it->second));
    }
  }
  void Text(const char* key, std::string& out, ColumnDoc) {
    auto it = meta_.find(key);
    if (it != meta_.end()) out = it->second;
  }

 private:
  const std::map<std::string, std::string>& meta_;
  std::string error_;
};

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_ROW_READER_H_
