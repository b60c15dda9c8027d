// Numbers of the counter analysis as the reports print them: ratios, rates with an
// SI prefix, percentages of peak and short durations.
#ifndef CUSCOPE_LIB_REPORT_NUMBER_FORMAT_H_
#define CUSCOPE_LIB_REPORT_NUMBER_FORMAT_H_

#include <optional>
#include <string>

namespace cuscope::report {

// "-" for infinity/NaN, "14" from 10 up, "6.5" from 1 up, "0.17" (2 significant
// digits) below.
std::string FormatRatio(double v);
// "66.9 TFLOP/s", "4.80 TB/s" style: value with an SI prefix and a unit.
std::string FormatRate(double v, const char* unit);
// "90%" / "0.3%": whole numbers from 1 up (and 0), one decimal below; "-" when not finite.
std::string FormatPercentOfPeak(double p);
// The same, "-" when unset.
std::string FormatPercentOfPeak(const std::optional<double>& p);
// "453 us", "1.45 ms", "812 ns": three significant digits.
std::string FormatNsShort(double ns);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_NUMBER_FORMAT_H_
