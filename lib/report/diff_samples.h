// The GPU metrics part of `cuscope diff` (analysis/compare_samples.h): each kernel
// sampled in both profiles, its SM activity, tensor pipe and DRAM before and after.
#ifndef CUSCOPE_LIB_REPORT_DIFF_SAMPLES_H_
#define CUSCOPE_LIB_REPORT_DIFF_SAMPLES_H_

#include <ostream>
#include <vector>

#include "lib/analysis/compare_samples.h"
#include "lib/report/json_writer.h"
#include "lib/report/name_cut.h"
#include "lib/report/report_options.h"

namespace cuscope::report {

// "GPU metrics of kernels sampled in both": nothing when there are none. Names are
// fitted by `names` (the kernel names of both profiles).
void WriteSampledChangesText(const std::vector<analysis::SampledChange>& rows, const NameCut& names,
                             const ReportOptions& options, std::ostream& out);
// "sampled_changes": [...] (the first `top`, all when <= 0); nothing when there are none.
void WriteSampledChangesJson(json::Writer& w, const std::vector<analysis::SampledChange>& rows,
                             int top);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_DIFF_SAMPLES_H_
