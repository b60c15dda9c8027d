// The parts of `cuscope diff` beyond kernels and regions: GPU busy per device, memory
// operations (copies by direction and host memory, memsets) and CUDA API calls, as
// text (diff.h's sections) and as members of its JSON document.
#ifndef CUSCOPE_LIB_REPORT_DIFF_TOTALS_H_
#define CUSCOPE_LIB_REPORT_DIFF_TOTALS_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "lib/analysis/compare.h"
#include "lib/report/json_writer.h"
#include "lib/report/report_options.h"

namespace cuscope::report {

// "+12.5%"; "new" when only the new side has any (`next_count` > 0 = `base_count`),
// "gone" when only the base has; "n/a" for an infinite change of a total that was 0
// (records of zero duration).
std::string ChangePercentText(double percent, uint64_t base_count, uint64_t next_count);

// "3.380 ms -> 712.762 us (-2.667 ms, -78.9%)".
std::string DurationChangeText(uint64_t base_ns, uint64_t next_ns);
// A GPU's busy share on both sides and its change: "12.6% -> 7.0% of wall (-5.6 points)",
// of the program's wall when either side has cuscope's own time (BusyDelta::of_program).
std::string BusyShareText(const analysis::BusyDelta& b);

// "12 -> 15 calls (+3, +25.0%)" (`noun` may be empty: "12 -> 15 (+3, +25.0%)").
std::string CountChangeText(uint64_t base, uint64_t next, absl::string_view noun);

// "12 -> 3 copies (-9, -75.0%), 327.000 MB -> 80.000 MB (-75.5%), 42.1 ms -> 12.0 ms
// (-30.1 ms, -71.4%)" (sizes when `bytes`), or "none in either profile".
std::string TotalsChangeText(const analysis::TotalsDelta& d, absl::string_view what, bool bytes);

// Bandwidth in GB/s with 3 or 4 significant digits ("7.70", "55.4", "4291"), "-"
// for a side without operations.
std::string GbpsText(const analysis::Totals& t);

// What left one profile's copies and memsets short of the program's, "" when nothing:
// "copy and memset records held off while counter sets ran, 12 records dropped".
std::string MemoryCausesText(const analysis::ProfilerEffects& fx);

// Why a memory row (or all copies) is not compared: "not compared (NEW: copy and memset
// records held off while counter sets ran)".
std::string MemoryNotComparedText(const analysis::Comparison& c);

// Header lines: "GPU busy" per device, all copies, and the synchronizing API calls.
void WriteTotalsHeaderText(const analysis::Comparison& c, const ReportOptions& options,
                           std::ostream& out);
// The memory operations and CUDA API tables.
void WriteMemoryText(const analysis::Comparison& c, const ReportOptions& options,
                     std::ostream& out);
void WriteApiText(const analysis::Comparison& c, const ReportOptions& options, std::ostream& out);

// "gpu_busy", "memory", "copies", "api", "api_rest", "sync_calls".
void WriteTotalsJson(json::Writer& w, const analysis::Comparison& c, int top);

// The API rows shown with `top`: the first `top` (all when <= 0) and every
// synchronizing call after them, in the comparison's order; `rest` gets the sum of the
// others (named "other API calls").
std::vector<const analysis::TotalsDelta*> ShownApiRows(const analysis::Comparison& c, int top,
                                                       analysis::TotalsDelta* rest);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_DIFF_TOTALS_H_
