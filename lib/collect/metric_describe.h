// What a full metric name measures, in words: CUPTI's host API describes base metrics
// only ("dram__bytes": "# of bytes accessed in DRAM"), and gives that description for
// every rollup and submetric of it, though "dram__bytes.sum.peak_sustained" is a peak
// per cycle and "...pct_of_peak_sustained_elapsed" a percentage. Pure: no CUPTI.
#ifndef CUSCOPE_LIB_COLLECT_METRIC_DESCRIBE_H_
#define CUSCOPE_LIB_COLLECT_METRIC_DESCRIBE_H_

#include <string>

namespace cuscope::collect {

// `metric` (base name, rollup .sum/.avg/.min/.max, submetric) described around the
// base metric's description: "dram__bytes.sum.peak_sustained" with "# of bytes
// accessed in DRAM" is "peak sustained rate per cycle of: # of bytes accessed in DRAM";
// ".avg" adds "(average over units)"; ".sum" alone is the base description. A
// submetric it does not know is named: "(submetric foo) of: ...". "" when
// `base_description` is.
std::string DescribeMetric(const std::string& metric, const std::string& base_description);

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_METRIC_DESCRIBE_H_
