// GPU metrics sampled at an interval (analysis/gpu_samples.h) for people and
// programs: the report's "GPU metrics" section and its JSON object.
#ifndef CUSCOPE_LIB_REPORT_GPU_SAMPLES_TEXT_H_
#define CUSCOPE_LIB_REPORT_GPU_SAMPLES_TEXT_H_

#include <ostream>
#include <string>
#include <vector>

#include "lib/analysis/gpu_samples.h"
#include "lib/report/json_writer.h"
#include "lib/report/name_cut.h"
#include "lib/report/report_options.h"

namespace cuscope::report {

// "GPU metrics (sampled every 10 us)": each device's rates over its samples and over
// those inside kernels, then the kernels by time with their sampled rates and the
// share of their time the samples cover, then the run's notes on sampling (why
// samples are missing, what was left out). Nothing without samples or notes.
// Kernel names are fitted by `names` (the profile's: KernelNameCut).
void WriteGpuSamplesText(const analysis::GpuSampleAnalysis& a,
                         const std::vector<std::string>& notes, const NameCut& names,
                         const ReportOptions& options, std::ostream& out);

// "gpu_metrics": {"devices": [...], "kernels": {"total_rows", "rows"}, "notes": [...]}
// (the first `top` kernels, all when <= 0); nothing without samples or notes.
void WriteGpuSamplesJson(json::Writer& w, const analysis::GpuSampleAnalysis& a,
                         const std::vector<std::string>& notes, int top);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_GPU_SAMPLES_TEXT_H_
