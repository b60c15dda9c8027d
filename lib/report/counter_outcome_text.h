// The line every report opens with when counters were asked for: what was asked, how
// many signatures were measured of how many, and why not all, e.g.
//   "counters: asked roofline by rotate; measured 0 of 101 signatures: the loop ended
//    before rotate could complete a set (12 steps; rotate needs >= 14 for 7 passes)"
// (lib/analysis/counter_outcome.h has the facts; docs/counters.md, "The opening line").
#ifndef CUSCOPE_LIB_REPORT_COUNTER_OUTCOME_TEXT_H_
#define CUSCOPE_LIB_REPORT_COUNTER_OUTCOME_TEXT_H_

#include <string>
#include <vector>

#include "lib/analysis/counter_outcome.h"

namespace cuscope::report {

// "asked roofline by rotate", "asked roofline by auto (kernel replay)", or, in a
// profile that does not record its settings, "by rotate (settings not recorded)".
std::string AskedText(const analysis::CounterOutcome& o);

// Each shortfall in words, in the outcome's order.
std::vector<std::string> ShortfallTexts(const analysis::CounterOutcome& o);

// The whole line; "" when counters were not asked for.
std::string CounterOutcomeLine(const analysis::CounterOutcome& o);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_COUNTER_OUTCOME_TEXT_H_
