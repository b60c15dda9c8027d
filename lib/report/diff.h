// Two profiles side by side (`cuscope diff BASE NEW`): totals, then kernels and
// regions ranked by the change of their total time. `top` limits each table;
// `max_name_width` cuts names in the text (0: no limit), as in the report.
#ifndef CUSCOPE_LIB_REPORT_DIFF_H_
#define CUSCOPE_LIB_REPORT_DIFF_H_

#include <ostream>
#include <string>

#include "lib/analysis/compare.h"
#include "lib/report/name_cut.h"
#include "lib/report/report_options.h"

namespace cuscope::report {

// The kernel names of both profiles (the kernel table's, the verdicts' and the
// sampled kernels'), to fit names in the diff's text and HTML.
NameCut KernelNamesOf(const analysis::Comparison& c);

// A finding's kernel signature: "2048 blocks of 256 threads".
std::string FindingSignatureText(const analysis::FindingChange& f);

// Why a finding stayed though one side's findings lack it, or was not compared: "";
// "; under the minimum gain of NEW's wall or GPU time, its quantity still there"; "; NEW
// measured no counters of its kernel"; "; NEW's profiler left out records it rests on".
std::string FindingSideText(const analysis::FindingChange& f);

// What the profiles measured differently, one sentence ("" when they measured the
// same counter metrics): "different counter metrics measured (30 only in base, e.g.
// dram__bytes.sum; 13 only in new, e.g. ...): verdict and finding changes may come
// from what was measured, not from a change in the program".
std::string MetricsDifferenceText(const analysis::MetricsDifference& m);

void WriteComparisonText(const analysis::Comparison& c, const std::string& base_label,
                         const std::string& next_label, const ReportOptions& options,
                         std::ostream& out);
void WriteComparisonJson(const analysis::Comparison& c, const std::string& base_label,
                         const std::string& next_label, const ReportOptions& options,
                         std::ostream& out);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_DIFF_H_
