// How reports print things for people: durations, sizes, percentages, and the
// aligned text table (names cut to a width: name_cut.h). CSV and JSON print raw numbers instead.
#ifndef CUSCOPE_LIB_REPORT_FORMAT_H_
#define CUSCOPE_LIB_REPORT_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "lib/report/name_cut.h"

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

// `text` in lines of at most `width` bytes (0: one line), broken at spaces (inside a
// word longer than a line only when there is no space), the first line indented by
// `indent` spaces and the next ones by `next_indent`; each line ends in "\n".
std::string Wrapped(absl::string_view text, size_t width, size_t indent, size_t next_indent);

// Rows to show of a table of `total` rows: at most `top`, all when `top` <= 0.
size_t ShownRows(size_t total, int top);

// A table with right-aligned columns and a left-aligned last (name) column, under
// a header line and a rule of dashes, each line indented by two spaces. Names are
// fitted (NameCut, FitName) to the room left after the numbers. Within a width (Fit), a table
// whose names would be cut to under 40 bytes puts each name on its own line above its
// numbers, and leaves out droppable columns (first to last) while the numbers are
// still too wide, saying which; detail lines wrap at the width.
class TextTable {
 public:
  // Detail lines are indented to the name column (4 spaces when names are on their
  // own lines), or by `detail_indent` spaces when it is not negative.
  explicit TextTable(std::vector<std::string> headers, int detail_indent = -1);
  // The width of every line (0: no limit), the longest name (0: no limit), and the
  // kernel names of the view, which fit the names of the rows and details (NameCut);
  // without them each name is fitted on its own (FitName). `names` must outlive the
  // table.
  void Fit(size_t width, size_t max_name, const NameCut* names = nullptr);
  // Headers of the columns that may be left out to fit the width, first to last.
  void SetDroppable(std::vector<std::string> headers);
  // `cells` has one string per header; the last (the name) is given whole.
  void AddRow(std::vector<std::string> cells);
  // A line printed under the last row added; `name`, when given, ends it, fitted to
  // the room left on the line.
  void AddDetail(std::string line, absl::string_view name = {});
  void Write(std::ostream& out) const;

 private:
  struct Detail {
    std::string line;
    std::string name;
  };
  struct Row {
    std::vector<std::string> cells;
    std::vector<Detail> details;
  };
  struct Layout;
  Layout Plan() const;
  const NameCut& Names() const;
  void WriteLine(const std::vector<std::string>& cells, const Layout& layout, bool with_name,
                 std::ostream& out) const;

  std::vector<std::string> headers_;
  int detail_indent_ = -1;
  size_t width_ = 0;
  size_t max_name_ = 0;
  const NameCut* names_ = nullptr;
  std::vector<std::string> droppable_;
  std::vector<Row> rows_;
};

// "  ... 3 more kernels" when `shown` < `total`; nothing otherwise.
void WriteMoreLine(size_t total, size_t shown, absl::string_view what, std::ostream& out);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_FORMAT_H_
