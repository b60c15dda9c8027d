// The launch sizes of a kernel signature (analysis::LaunchSize) in words, for the text
// report's counters table and the HTML report.
#ifndef CUSCOPE_LIB_REPORT_SIZES_TEXT_H_
#define CUSCOPE_LIB_REPORT_SIZES_TEXT_H_

#include <string>

#include "lib/analysis/kernel_counters.h"

namespace cuscope::report {

// "sizes: 14.900-15.100 us latency-bound (28% of its time), 32.600-41.500 us
// compute-bound (52%), 45.100 us balanced (20%)"; "" when the signature has no sizes.
std::string SizesLine(const analysis::KernelCounters& k);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_SIZES_TEXT_H_
