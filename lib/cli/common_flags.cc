#include "lib/cli/common_flags.h"

#include "absl/strings/numbers.h"
#include "lib/config/report_width.h"

namespace cuscope::cli {

const char* FormatName(Format format) {
  switch (format) {
    case Format::kText:
      return "text";
    case Format::kCsv:
      return "csv";
    case Format::kJson:
      return "json";
  }
  return "text";
}

absl::StatusOr<int> ParseWidth(absl::string_view text) {
  int n = -1;
  if (absl::SimpleAtoi(text, &n) &&
      (n == 0 || (n >= config::kMinReportWidth && n <= config::kMaxReportWidth))) {
    return n;
  }
  return NotValid(text, absl::StrCat("0 (no limit) or a number of columns from ",
                                     config::kMinReportWidth, " to ", config::kMaxReportWidth));
}

}  // namespace cuscope::cli
