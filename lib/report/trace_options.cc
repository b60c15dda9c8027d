#include "lib/report/trace_options.h"

#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace cuscope::report {

absl::StatusOr<uint64_t> ParseTraceDuration(absl::string_view text) {
  struct Unit {
    absl::string_view suffix;
    double ns;
  };
  // Longest suffix first: "ms" and "us" and "ns" before "s".
  static constexpr Unit kUnits[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  for (const Unit& u : kUnits) {
    if (text.size() <= u.suffix.size() || !absl::EndsWith(text, u.suffix)) continue;
    double value = 0;
    const absl::string_view number = text.substr(0, text.size() - u.suffix.size());
    if (!absl::SimpleAtod(number, &value) || !std::isfinite(value) || value < 0 ||
        value * u.ns > 9e18) {
      break;
    }
    return static_cast<uint64_t>(std::llround(value * u.ns));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "'", text, "' is not a duration: give a non-negative number with a unit, ns, us, ms or s ",
      "(e.g. 1.5ms, 250us)"));
}

}  // namespace cuscope::report
