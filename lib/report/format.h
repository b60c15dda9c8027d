// How reports print things for people: durations, sizes, percentages, names cut to
// a width, and the aligned text table. CSV and JSON print raw numbers instead.
#ifndef CUSCOPE_LIB_REPORT_FORMAT_H_
#define CUSCOPE_LIB_REPORT_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace cuscope::report {

// "512 ns", "12.5 ns", "1.500 us", "2.500 ms", "3.250 s"; negative, NaN and
// infinity print as "0 ns".
std::string FormatDuration(double ns);
// "+1.500 us" or "-2.667 ms": the magnitude as FormatDuration, with its sign.
std::string FormatSignedDuration(int64_t ns);
// "999 B", "1.000 KB", "2.000 MB", "1.500 GB" (powers of 1000).
std::string FormatBytes(uint64_t bytes);
// "15.4": one decimal, no sign.
std::string FormatPercent(double percent);

// `s` cut to at most `n` bytes (n >= 4) ending in "...", never inside a UTF-8
// sequence; unchanged when it fits.
std::string CutWithEllipsis(absl::string_view s, size_t n);
// `s` cut to at most `n` bytes by "..." in its middle, keeping its head and its tail
// (where kernel names of one template differ: their functor, their sizes), never
// inside a UTF-8 sequence; unchanged when it fits; CutWithEllipsis for n < 5.
std::string CutInTheMiddle(absl::string_view s, size_t n);
// `name` fitted in `width` bytes: first the parameter list of a function signature
// collapses to "(...)", then the name is cut with CutInTheMiddle. A width under 4
// (0 in ReportOptions) is no limit: the name is returned unchanged. CSV and JSON
// always print full names.
std::string FitName(absl::string_view name, size_t width);

// Rows to show of a table of `total` rows: at most `top`, all when `top` <= 0.
size_t ShownRows(size_t total, int top);

// A table with right-aligned columns and a left-aligned last (name) column, under
// a header line and a rule of dashes, each line indented by two spaces.
class TextTable {
 public:
  // Detail lines are indented to the name column, or by `detail_indent` spaces when
  // it is not negative.
  explicit TextTable(std::vector<std::string> headers, int detail_indent = -1);
  // `cells` has one string per header.
  void AddRow(std::vector<std::string> cells);
  // A line printed under the last row added.
  void AddDetail(std::string line);
  void Write(std::ostream& out) const;

 private:
  struct Row {
    std::vector<std::string> cells;
    std::vector<std::string> details;
  };
  void WriteLine(const std::vector<std::string>& cells, const std::vector<size_t>& widths,
                 std::ostream& out) const;

  std::vector<std::string> headers_;
  int detail_indent_ = -1;
  std::vector<Row> rows_;
};

// "  ... 3 more kernels" when `shown` < `total`; nothing otherwise.
void WriteMoreLine(size_t total, size_t shown, absl::string_view what, std::ostream& out);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_FORMAT_H_
