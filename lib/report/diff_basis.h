// The words of what `cuscope diff` compares like with like (analysis/compare_basis.h):
// how each profile was taken, what its profiler removed or added, the kernel time
// over the launches both timed alike, and the quantities not compared with their
// one-line reason; as text header lines and as members of its JSON document.
#ifndef CUSCOPE_LIB_REPORT_DIFF_BASIS_H_
#define CUSCOPE_LIB_REPORT_DIFF_BASIS_H_

#include <ostream>
#include <string>

#include "lib/analysis/compare.h"
#include "lib/report/json_writer.h"
#include "lib/report/report_options.h"

namespace cuscope::report {

// "trace only" or "counters by rotate (metrics=roofline, replay=rotate)".
std::string TakenText(const analysis::ProfilerEffects& fx);

// What the profiler removed or added, "" when nothing: "4069 launches measured with
// counters without a kernel record; copy, memset and sync records held off while its
// counter sets ran; 2.541 s holding the program to measure".
std::string EffectsText(const analysis::ProfilerEffects& fx);

// Why the kernel record counts are not compared ("" when they are).
std::string KernelCountNotComparedText(const analysis::Comparison& c);

// The kernel time lines' values: "Kernel time" (each profile's own; with its change
// when the comparison covers them whole) and, when launches were left out,
// "Comparable" (over the launches timed alike).
std::string KernelTimeChangeText(const analysis::Comparison& c);
std::string ComparableKernelTimeText(const analysis::Comparison& c);  // "" when whole

// "+1.2%: within 3%, no change" or "-12.0%: a change".
std::string KernelTimeVerdictText(const analysis::KernelTimeComparison& kt);

// Why a kernel row has launches left out ("measured with counters on one side", ...).
const char* LeftOutText(analysis::LeftOut why);

// The header lines from "Taken" to "Kernels" (wall time, kernel time, counts).
void WriteBasisHeaderText(const analysis::Comparison& c, const ReportOptions& options,
                          std::ostream& out);

// "profilers", "comparable_kernel_time", "kernel_count_compared" and "not_compared".
void WriteBasisJson(json::Writer& w, const analysis::Comparison& c);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_DIFF_BASIS_H_
