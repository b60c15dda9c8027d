// The width of text reports: given (--width, CUSCOPE_REPORT_WIDTH), else the
// terminal's when the report goes to one, else 100 columns.
#ifndef CUSCOPE_LIB_CONFIG_REPORT_WIDTH_H_
#define CUSCOPE_LIB_CONFIG_REPORT_WIDTH_H_

#include <cstddef>

namespace cuscope::config {

// The narrowest width a report accepts (0 aside: no limit).
inline constexpr int kMinReportWidth = 60;
inline constexpr int kMaxReportWidth = 100000;
// The width when none is given and the report does not go to a terminal.
inline constexpr int kDefaultReportWidth = 100;

// The columns of the terminal on `fd` (ioctl TIOCGWINSZ); 0 when `fd` is not a
// terminal or it does not say.
int TerminalColumns(int fd);

// `given` when it is not negative (0: no limit); else the columns of the terminal on
// `fd`, at least kMinReportWidth; else kDefaultReportWidth.
size_t ReportWidth(int given, int fd);

}  // namespace cuscope::config

#endif  // CUSCOPE_LIB_CONFIG_REPORT_WIDTH_H_
