// A roofline chart of a profile's hardware counters, as a standalone SVG file:
// per device, log-log axes (x = arithmetic intensity in FLOP/byte, y = FLOP/s),
// one horizontal roof per precision with a ceiling, one slanted roof per memory
// level (DRAM, L2, L1), and one labelled point per kernel signature at its DRAM
// intensity and achieved FLOP/s (with lighter L2 and L1 points at the same height).
// docs/counters.md says how to read it.
#ifndef CUSCOPE_LIB_REPORT_ROOFLINE_SVG_H_
#define CUSCOPE_LIB_REPORT_ROOFLINE_SVG_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/model/profile.h"

namespace cuscope::report {

// The SVG text. FailedPrecondition when the profile has no counter sets.
absl::StatusOr<std::string> RenderRooflineSvg(const model::Profile& profile);

// The same from ceilings and counters already analysed (a report's ReportData).
absl::StatusOr<std::string> RenderRooflineSvg(
    const model::Profile& profile, const std::vector<analysis::Ceilings>& ceilings,
    const std::vector<analysis::KernelCounters>& counters);

// Writes RenderRooflineSvg's text to `path` ("-" for stdout).
absl::Status WriteRooflineSvg(const model::Profile& profile, const std::string& path);
absl::Status WriteRooflineSvg(const model::Profile& profile,
                              const std::vector<analysis::Ceilings>& ceilings,
                              const std::vector<analysis::KernelCounters>& counters,
                              const std::string& path);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_ROOFLINE_SVG_H_
