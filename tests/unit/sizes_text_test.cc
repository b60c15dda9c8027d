// The launch sizes of a signature in words (lib/report/sizes_text.h).
#include "lib/report/sizes_text.h"

#include <gtest/gtest.h>

namespace cuscope::report {
namespace {

analysis::LaunchSize Size(double lo, double hi, analysis::Bound bound, analysis::SolClass c,
                          double pct) {
  analysis::LaunchSize s;
  s.min_ns = lo;
  s.max_ns = hi;
  s.verdict.bound = bound;
  s.verdict.sol_class = c;
  s.time_percent = pct;
  return s;
}

TEST(SizesText, EachSizeItsRangeVerdictAndShare) {
  analysis::KernelCounters k;
  EXPECT_EQ(SizesLine(k), "");
  k.sizes = {Size(14900, 15100, analysis::Bound::kLatency, analysis::SolClass::kLatency, 28.4),
             Size(41200, 41200, analysis::Bound::kCompute, analysis::SolClass::kCompute, 51.6),
             Size(45100, 46000, analysis::Bound::kUnknown, analysis::SolClass::kBalanced, 20)};
  EXPECT_EQ(SizesLine(k),
            "sizes: 14.900-15.100 us latency-bound (28% of its time), 41.200 us compute-bound "
            "(52%), 45.100-46.000 us balanced (20%)");
}

}  // namespace
}  // namespace cuscope::report
