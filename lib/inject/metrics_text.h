// `cuscope metrics` in words and in JSON: the metric sets resolved for one chip
// (what each set answers, its metrics with CUPTI's description, substitutes and what
// the chip cannot measure) and the supported chips. Built by metrics_api.cc.
#ifndef CUSCOPE_LIB_INJECT_METRICS_TEXT_H_
#define CUSCOPE_LIB_INJECT_METRICS_TEXT_H_

#include <string>
#include <vector>

#include "lib/collect/chips.h"
#include "lib/collect/metric_resolve.h"

namespace cuscope::inject {

// One set (or the raw metric names of a request, as the set "metrics").
struct SetView {
  std::string name;
  std::string answers;  // one short line
  collect::Resolution resolution;
  std::vector<std::string> descriptions;  // per resolved metric, CUPTI's
  size_t passes = 0;                      // 0 when the configuration was not built
};

// What a named set answers ("" for a set this table does not know yet).
std::string SetAnswers(const std::string& set);

// `detailed`: every metric of each set; otherwise one line per set.
std::string MetricsText(const collect::Chip& chip, const std::vector<SetView>& sets, bool detailed);
std::string MetricsJson(const collect::Chip& chip, const std::vector<SetView>& sets);

std::string ChipsText();
std::string ChipsJson();

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_METRICS_TEXT_H_
