// Metric names resolved for one chip: each requested name (lib/model/metrics.h spells
// them as CUPTI does on Hopper, GH100) is collected as itself where the chip has it,
// else through a substitute (Substitutes() in metric_resolve.cc: the same quantity
// under the chip's own spelling, or the sum of several counters), else dropped and
// named as what this chip cannot measure. Pure: the chip is given as its list of
// base metrics (MetricHost::BaseMetrics()), so every chip is testable without a GPU.
#ifndef CUSCOPE_LIB_COLLECT_METRIC_RESOLVE_H_
#define CUSCOPE_LIB_COLLECT_METRIC_RESOLVE_H_

#include <string>
#include <vector>

namespace cuscope::collect {

// One row of the substitute table: where the chip lacks `from`, collect `to` instead.
// `from` is a base name ("sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32"), which
// matches the name with any rollup/submetric appended to both sides, or a full name
// ("....sum.peak_sustained"), which matches only itself (rows naming the full name
// come first). Several `to` names are summed; such a row applies only to a plain
// count (suffix ".sum"): a sum of peaks, ratios or percentages is not the quantity.
// Empty `to`: the name does not apply to chips without it (dropped, with `note`).
// The first row whose `to` names all exist on the chip wins.
struct Substitute {
  const char* from;
  std::vector<const char*> to;
  const char* note;  // why, in a few words ("Ampere/Ada: every bf16 MMA is warp-level")
};
const std::vector<Substitute>& Substitutes();

// A requested name as this chip collects it.
struct ResolvedMetric {
  std::string name;                  // as requested (the profile keeps this name)
  std::vector<std::string> collect;  // the chip's names; their values are summed
  const char* note = nullptr;        // the substitute's note, if one was used
  bool substituted() const { return collect.size() != 1 || collect[0] != name; }
};

struct DroppedMetric {
  std::string name;
  const char* note = nullptr;  // set when a row says the name does not apply here
};

struct Resolution {
  std::string chip;
  std::vector<ResolvedMetric> metrics;  // in request order
  std::vector<DroppedMetric> dropped;   // what this chip cannot measure, in request order

  // Every chip name to configure, each once, in order.
  std::vector<std::string> CollectedNames() const;
  // For each metric, the indices of its chip names in CollectedNames().
  std::vector<std::vector<size_t>> Sources() const;
  // The values of `metrics` from the values of CollectedNames() (summed where several).
  std::vector<double> Fold(const std::vector<double>& collected) const;
  // "GA100 cannot measure: a, b (why)" or "" when nothing is dropped.
  std::string DroppedLine() const;
};

// The base metric of a name: its last unit-qualified part before the first '.' of
// the rollup ("dram__bytes.sum.peak_sustained" -> "dram__bytes").
std::string BaseName(const std::string& metric);

// `requested`: expanded metric names (metrics::ExpandMetrics). `base_metrics`: the
// chip's base metrics, with or without their unit prefix ("TPC.TriageCompute.x" or
// "x"), in any order.
Resolution ResolveMetrics(const std::string& chip, const std::vector<std::string>& requested,
                          const std::vector<std::string>& base_metrics);

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_METRIC_RESOLVE_H_
