#include "lib/report/number_format.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace cuscope::report {

std::string FormatRatio(double v) {
  if (!std::isfinite(v)) return "-";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 10) return absl::StrFormat("%.0f", v);
  if (a >= 1) return absl::StrFormat("%.1f", v);
  return absl::StrFormat("%.2g", v);
}

std::string FormatRate(double v, const char* unit) {
  if (!std::isfinite(v)) return absl::StrCat("- ", unit);
  static const struct {
    double scale;
    const char* prefix;
  } kPrefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& p : kPrefixes) {
    if (std::fabs(v) >= p.scale) return absl::StrFormat("%.1f %s%s", v / p.scale, p.prefix, unit);
  }
  return absl::StrFormat("%.1f %s", v, unit);
}

std::string FormatPercentOfPeak(const std::optional<double>& p) {
  return p ? FormatPercentOfPeak(*p) : "-";
}

std::string FormatPercentOfPeak(double p) {
  if (!std::isfinite(p)) return "-";
  if (p >= 1 || p == 0) return absl::StrFormat("%.0f%%", p);
  return absl::StrFormat("%.1f%%", p);
}

std::string FormatNsShort(double ns) {
  if (ns >= 1e9) return absl::StrFormat("%.3g s", ns / 1e9);
  if (ns >= 1e6) return absl::StrFormat("%.3g ms", ns / 1e6);
  if (ns >= 1e3) return absl::StrFormat("%.3g us", ns / 1e3);
  return absl::StrFormat("%.3g ns", ns);
}

}  // namespace cuscope::report
