// Validation of meaning at load time: every value of a loaded row is checked
// against what the hardware and the run allow (docs/profile-format.md, "Values a
// profile may hold"). RowReader checks that a value has the column's type and fits
// its field; this checks that it makes sense, so that the analysis and the writers
// can trust it: times inside the run's window, end not before start, device ids and
// device properties in plausible ranges, counter and sample values finite and not
// negative.
#ifndef CUSCOPE_LIB_STORE_MEANING_H_
#define CUSCOPE_LIB_STORE_MEANING_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "lib/model/profile.h"
#include "lib/store/schema.h"

namespace cuscope::store {

// Records may start this long before the run's start and end this long after its
// end (records flushed while the run stopped, clocks read on different threads).
inline constexpr uint64_t kTimeSlackNs = 600'000'000'000;  // 10 minutes
// Counter values and device metrics are at most this (a 64-bit counter per
// nanosecond is below 2e28); more, or negative, or infinite, is damage.
inline constexpr double kMaxCounterValue = 1e30;
// Device ids (devices.id and every device_id) are at most this.
inline constexpr uint32_t kMaxDeviceId = 1023;

// A counter value, device metric or GPU sample value the loader accepts: NaN (not
// measured), or a finite number in [0, kMaxCounterValue].
inline bool AcceptedMetricValue(double v) {
  return std::isnan(v) || (v >= 0 && v <= kMaxCounterValue);
}

// The times a run's records may hold, from its meta rows.
struct RunWindow {
  uint64_t lo = 0;  // earliest start allowed
  uint64_t hi = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());  // latest end
  explicit RunWindow(const model::RunInfo& run);
};

// "" when the run's own values (meta) make sense, else one line saying which does not.
std::string CheckRunInfo(const model::RunInfo& run);

// Checks the rows of one table, in order. Table<Rec>::Visit drives it.
class MeaningChecker {
 public:
  MeaningChecker(const char* table, const RunWindow& window) : table_(table), window_(window) {}

  // "" when every value of `record` (row `row`, from 1) makes sense; else one line
  // "<table> row <n>: column <c> holds <v>, expected <what is accepted>".
  template <typename Rec>
  const std::string& Check(const Rec& record, int64_t row) {
    row_ = row;
    start_ = 0;
    index_ = 0;
    Table<Rec>::Visit(record, *this);
    return error_;
  }

  // The visitor (schema.h).
  template <typename T>
  void Int(const char* column, const T& v, ColumnDoc) {
    const ColumnRule& rule = Next(column);
    if constexpr (!std::is_enum_v<T>) {  // enums: RowReader checked their range
      if constexpr (std::is_signed_v<T>) {
        if (v < 0) return Negative(rule, static_cast<int64_t>(v));
      }
      Unsigned(rule, static_cast<uint64_t>(v));
    }
  }
  void StrId(const char* column, const model::StringId&,
             ColumnDoc) {  // RowReader checked the range
    Next(column);
  }
  void Text(const char* column, const std::string&, ColumnDoc) {  // the reader made it valid UTF-8
    Next(column);
  }
  void Real(const char* column, double v, ColumnDoc);
  void Blob(const char* column, const std::vector<double>& values, ColumnDoc);

  // What a column is checked against, found by its table and name once per table
  // (rows visit their columns in the same order) rather than once per value.
  struct ColumnRule {
    enum Kind { kNone, kStart, kEnd, kRange, kWarpSize };
    const char* column = nullptr;  // Visit's literal: the same pointer every row
    Kind kind = kNone;
    uint64_t max = 0;  // kRange, kWarpSize: the largest value accepted (the least is 0)
  };

 private:
  const ColumnRule& Next(const char* column) {
    if (index_ < rules_.size() && rules_[index_].column == column) return rules_[index_++];
    return Add(column);
  }
  // The first row's column (or a column visited in another order): its rule found
  // by name and kept at its position.
  const ColumnRule& Add(const char* column);
  ColumnRule Resolve(const char* column) const;
  // The common case inline (a load checks tens of millions of values); the checks
  // that fail, and the rare kinds, out of line.
  void Unsigned(const ColumnRule& rule, uint64_t v) {
    switch (rule.kind) {
      case ColumnRule::kNone:
        return;
      case ColumnRule::kStart:
        start_ = v;
        if (v != 0 && (v < window_.lo || v > window_.hi)) Time(rule, v);
        return;
      case ColumnRule::kEnd:
        if (v != 0 && (v < window_.lo || v > window_.hi || (start_ != 0 && v < start_))) {
          Time(rule, v);
        }
        return;
      case ColumnRule::kRange:
        if (v > rule.max) Other(rule, v);
        return;
      case ColumnRule::kWarpSize:
        Other(rule, v);
        return;
    }
  }
  void Other(const ColumnRule& rule, uint64_t v);
  void Negative(const ColumnRule& rule, int64_t v);
  void Time(const ColumnRule& rule, uint64_t v);
  void Fail(const char* column, const std::string& found, const std::string& expected);

  const char* table_;
  RunWindow window_;
  std::vector<ColumnRule> rules_;  // by column position
  size_t index_ = 0;               // the next column's position
  int64_t row_ = 0;
  uint64_t start_ = 0;  // this row's start_ns (start_ns comes before end_ns)
  std::string error_;
};

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_MEANING_H_
