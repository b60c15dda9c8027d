#include "lib/config/report_width.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>

namespace cuscope::config {

int TerminalColumns(int fd) {
  if (isatty(fd) == 0) return 0;
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

size_t ReportWidth(int given, int fd) {
  if (given >= 0) return static_cast<size_t>(given);
  const int columns = TerminalColumns(fd);
  if (columns <= 0) return kDefaultReportWidth;
  return static_cast<size_t>(std::clamp(columns, kMinReportWidth, kMaxReportWidth));
}

}  // namespace cuscope::config
