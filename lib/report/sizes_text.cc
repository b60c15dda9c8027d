#include "lib/report/sizes_text.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/report/format.h"

namespace cuscope::report {
namespace {

// The verdict of one size: its bound, or its class when the bound is unknown.
std::string SizeVerdict(const analysis::Verdict& v) {
  if (v.bound != analysis::Bound::kUnknown) return analysis::VerdictName(v.bound);
  if (v.sol_class != analysis::SolClass::kUnknown) return analysis::SolClassName(v.sol_class);
  return "unknown";
}

}  // namespace

std::string SizesLine(const analysis::KernelCounters& k) {
  if (k.sizes.empty()) return "";
  std::vector<std::string> parts;
  for (const analysis::LaunchSize& s : k.sizes) {
    const std::string range =
        s.max_ns > s.min_ns * 1.005
            ? absl::StrCat(FormatDuration(s.min_ns), "-", FormatDuration(s.max_ns))
            : FormatDuration(s.min_ns);
    parts.push_back(absl::StrFormat("%s %s (%.0f%%%s)", range, SizeVerdict(s.verdict),
                                    s.time_percent, parts.empty() ? " of its time" : ""));
  }
  return absl::StrCat("sizes: ", absl::StrJoin(parts, ", "));
}

}  // namespace cuscope::report
