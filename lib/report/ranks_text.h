// The text of several ranks' profiles side by side (analysis/ranks.h), for
// `cuscope report A.sqlite B.sqlite ...`.
#ifndef CUSCOPE_LIB_REPORT_RANKS_TEXT_H_
#define CUSCOPE_LIB_REPORT_RANKS_TEXT_H_

#include <ostream>

#include "lib/analysis/ranks.h"
#include "lib/report/report_options.h"

namespace cuscope::report {

// Ranks (wall, GPU busy, kernel and NCCL time, steps), stragglers, and the kernels
// with each rank's total time (`options.top` rows).
void WriteRanksText(const analysis::RankComparison& c, const ReportOptions& options,
                    std::ostream& out);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_RANKS_TEXT_H_
