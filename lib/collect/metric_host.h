// CUPTI's Profiler Host API: which metrics a chip has, configuration images and
// their pass counts, and evaluating counter data into metric values. Works
// without a GPU (the host API needs only the chip name, e.g. "GH100").
#ifndef CUSCOPE_LIB_COLLECT_METRIC_HOST_H_
#define CUSCOPE_LIB_COLLECT_METRIC_HOST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

struct CUpti_Profiler_Host_Object;

namespace cuscope::collect {

// The edit distance between two names (insertions, deletions, substitutions).
size_t EditDistance(const std::string& a, const std::string& b);

class MetricHost {
 public:
  static absl::StatusOr<std::unique_ptr<MetricHost>> Create(const std::string& chip);
  ~MetricHost();

  const std::string& chip() const { return chip_; }
  // Every base metric of the chip (counters, ratios, throughputs).
  const std::vector<std::string>& BaseMetrics();
  // OK if `metric` (base name plus rollup/submetric, e.g. "dram__bytes.sum") can be
  // collected; otherwise InvalidArgument naming it and the nearest valid names.
  absl::Status Validate(const std::string& metric);
  // The nearest base metrics to `name` (by edit distance), best first.
  std::vector<std::string> Nearest(const std::string& name, size_t count);
  // A metric's one-line description: CUPTI's of its base metric, with what the rollup
  // and submetric make of it (DescribeMetric, lib/collect/metric_describe.h); "" if none.
  std::string Describe(const std::string& metric);

  struct Config {
    std::vector<uint8_t> image;
    size_t passes = 0;
  };
  // A configuration image for `metrics` (validated first).
  absl::StatusOr<Config> BuildConfig(const std::vector<std::string>& metrics);
  // Values of `metrics` for range `range_index` of a decoded counter data image.
  absl::Status Evaluate(absl::Span<const uint8_t> counter_data, size_t range_index,
                        const std::vector<std::string>& metrics, std::vector<double>* values);

 private:
  MetricHost(std::string chip, CUpti_Profiler_Host_Object* object)
      : chip_(std::move(chip)), object_(object) {}
  std::string chip_;
  CUpti_Profiler_Host_Object* object_ = nullptr;  // for queries and evaluation
  std::vector<std::string> base_metrics_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_METRIC_HOST_H_
