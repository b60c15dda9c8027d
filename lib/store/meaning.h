// Validation of meaning at load time: every value of a loaded row is checked
// against what the hardware and the run allow (docs/profile-format.md, "Values a
// profile may hold"). RowReader checks that a value has the column's type and fits
// its field; this checks that it makes sense, so that the analysis and the writers
// can trust it: times inside the run's window, end not before start, device ids and
// device properties in plausible ranges, counter values finite and not negative.
#ifndef CUSCOPE_LIB_STORE_MEANING_H_
#define CUSCOPE_LIB_STORE_MEANING_H_

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "lib/model/profile.h"
#include "lib/store/schema.h"

namespace cuscope::store {

// Records may start this long before the run's start and end this long after its
// end (records flushed while the run stopped, clocks read on different threads).
inline constexpr uint64_t kTimeSlackNs = 600'000'000'000;  // 10 minutes
// Counter values and device metrics are at most this (a 64-bit counter per
// nanosecond is below 2e28); more, or negative, or infinite, is damage.
inline constexpr double kMaxCounterValue = 1e30;

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
    Table<Rec>::Visit(record, *this);
    return error_;
  }

  // The visitor (schema.h).
  template <typename T>
  void Int(const char* column, const T& v) {
    if constexpr (!std::is_enum_v<T>) {  // enums: RowReader checked their range
      if constexpr (std::is_signed_v<T>) {
        if (v < 0) return Negative(column, static_cast<int64_t>(v));
      }
      Unsigned(column, static_cast<uint64_t>(v));
    }
  }
  void StrId(const char*, const model::StringId&) {}  // RowReader checked the range
  void Text(const char*, const std::string&) {}       // the reader made it valid UTF-8
  void Real(const char* column, double v);

 private:
  void Unsigned(const char* column, uint64_t v);
  void Negative(const char* column, int64_t v);
  void Time(const char* column, uint64_t v);
  void Fail(const char* column, const std::string& found, const std::string& expected);

  const char* table_;
  RunWindow window_;
  int64_t row_ = 0;
  uint64_t start_ = 0;  // this row's start_ns (start_ns comes before end_ns)
  std::string error_;
};

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_MEANING_H_
