// What the text, CSV, JSON and diff writers are asked to show.
#ifndef CUSCOPE_LIB_REPORT_REPORT_OPTIONS_H_
#define CUSCOPE_LIB_REPORT_REPORT_OPTIONS_H_

#include <cstddef>

namespace cuscope::report {

struct ReportOptions {
  int top = 10;  // rows per table; <= 0 for all
  // Text only (report and diff): longer names are fitted to this many bytes
  // (NameCut for kernels, FitName for others); 0 for no limit.
  size_t max_name_width = 80;
  // Text only (report and diff): the columns every line fits in, 0 for no limit. Tables
  // whose names would be cut short put them on their own lines, long lines wrap.
  size_t width = 100;
  // Text report only: the top findings shown at its end (all when 0, none and no
  // section when < 0); the JSON report has them all.
  int findings = 5;
};

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_REPORT_OPTIONS_H_
