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

// "14.900-15.100 us"; "900.000 ns-1.200 us" when the units differ; one value when the
// range is within 0.5%.
std::string Range(double lo, double hi) {
  const std::string a = FormatDuration(lo), b = FormatDuration(hi);
  if (hi <= lo * 1.005) return a;
  const size_t space_a = a.rfind(' '), space_b = b.rfind(' ');
  if (space_a != std::string::npos && space_b != std::string::npos &&
      a.substr(space_a) == b.substr(space_b)) {
    return absl::StrCat(a.substr(0, space_a), "-", b);
  }
  return absl::StrCat(a, "-", b);
}

}  // namespace

std::string SizesLine(const analysis::KernelCounters& k) {
  if (k.sizes.empty()) return "";
  std::vector<std::string> parts;
  for (const analysis::LaunchSize& s : k.sizes) {
    parts.push_back(absl::StrFormat("%s %s (%.0f%%%s)", Range(s.min_ns, s.max_ns),
                                    SizeVerdict(s.verdict), s.time_percent,
                                    parts.empty() ? " of its time" : ""));
  }
  return absl::StrCat("sizes: ", absl::StrJoin(parts, ", "));
}

}  // namespace cuscope::report
