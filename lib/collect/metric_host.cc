#include "lib/collect/metric_host.h"

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/collect/cupti_result.h"
#include "lib/collect/metric_describe.h"

namespace cuscope::collect {
namespace {

CUpti_Profiler_Host_Object* NewHostObject(const std::string& chip, CUptiResult* result) {
  CUpti_Profiler_Host_Initialize_Params p = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.c_str();
  *result = cuptiProfilerHostInitialize(&p);
  return *result == CUPTI_SUCCESS ? p.pHostObject : nullptr;
}

void DeleteHostObject(CUpti_Profiler_Host_Object* object) {
  if (object == nullptr) return;
  CUpti_Profiler_Host_Deinitialize_Params p = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  p.pHostObject = object;
  cuptiProfilerHostDeinitialize(&p);
}

}  // namespace

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

absl::StatusOr<std::unique_ptr<MetricHost>> MetricHost::Create(const std::string& chip) {
  CUptiResult r;
  CUpti_Profiler_Host_Object* object = NewHostObject(chip, &r);
  if (object == nullptr) {
    return absl::UnavailableError(absl::StrCat("CUPTI's profiler host API does not support chip \"",
                                               chip, "\": ", CuptiResultString(r)));
  }
  return std::unique_ptr<MetricHost>(new MetricHost(chip, object));
}

MetricHost::~MetricHost() { DeleteHostObject(object_); }

const std::vector<std::string>& MetricHost::BaseMetrics() {
  if (!base_metrics_.empty()) return base_metrics_;
  for (int type = 0; type < CUPTI_METRIC_TYPE__COUNT; ++type) {
    CUpti_Profiler_Host_GetBaseMetrics_Params p = {
        CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE};
    p.pHostObject = object_;
    p.metricType = static_cast<CUpti_MetricType>(type);
    if (cuptiProfilerHostGetBaseMetrics(&p) != CUPTI_SUCCESS) continue;
    for (size_t i = 0; i < p.numMetrics; ++i) base_metrics_.emplace_back(p.ppMetricNames[i]);
  }
  std::sort(base_metrics_.begin(), base_metrics_.end());
  return base_metrics_;
}

std::vector<std::string> MetricHost::Nearest(const std::string& name, size_t count) {
  std::string base = name.substr(0, name.find('.'));
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& m : BaseMetrics()) {
    // Names carry a unit prefix ("TPC.TriageCompute."): compare the last part.
    std::string tail = m.substr(m.rfind('.') == std::string::npos ? 0 : m.rfind('.') + 1);
    scored.emplace_back(EditDistance(base, tail), m);
  }
  std::partial_sort(scored.begin(), scored.begin() + std::min(count, scored.size()), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < count && i < scored.size(); ++i) out.push_back(scored[i].second);
  return out;
}

std::string MetricHost::Describe(const std::string& metric) {
  CUpti_Profiler_Host_GetMetricProperties_Params p = {
      CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
  p.pHostObject = object_;
  p.pMetricName = metric.c_str();
  if (cuptiProfilerHostGetMetricProperties(&p) != CUPTI_SUCCESS || p.pDescription == nullptr) {
    return "";
  }
  // CUPTI describes the base metric; the rollup and submetric are cuscope's words.
  return DescribeMetric(metric, p.pDescription);
}

absl::Status MetricHost::Validate(const std::string& metric) {
  // A fresh object per check: adding a bad name must not poison the main one.
  CUptiResult r;
  CUpti_Profiler_Host_Object* object = NewHostObject(chip_, &r);
  if (object == nullptr) return absl::UnavailableError(CuptiResultString(r));
  const char* names[] = {metric.c_str()};
  CUpti_Profiler_Host_ConfigAddMetrics_Params p = {
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  p.pHostObject = object;
  p.ppMetricNames = names;
  p.numMetrics = 1;
  r = cuptiProfilerHostConfigAddMetrics(&p);
  DeleteHostObject(object);
  if (r == CUPTI_SUCCESS) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "metric \"%s\" is not available on %s (a base name plus a rollup such as .sum, .avg, "
      ".max or .sum.pct_of_peak_sustained_elapsed); nearest: %s",
      metric, chip_, absl::StrJoin(Nearest(metric, 5), ", ")));
}

absl::StatusOr<MetricHost::Config> MetricHost::BuildConfig(
    const std::vector<std::string>& metrics) {
  CUptiResult r;
  CUpti_Profiler_Host_Object* object = NewHostObject(chip_, &r);
  if (object == nullptr) return absl::UnavailableError(CuptiResultString(r));
  std::vector<const char*> names;
  for (const auto& m : metrics) names.push_back(m.c_str());
  Config config;
  CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = object;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  r = cuptiProfilerHostConfigAddMetrics(&add);
  if (r != CUPTI_SUCCESS) {
    // Name the bad metric, with the nearest valid ones: one check per name only
    // when the list as a whole was refused (each check builds a host object; for
    // the roofline set that was most of the configuration's time).
    DeleteHostObject(object);
    for (const auto& m : metrics) {
      absl::Status st = Validate(m);
      if (!st.ok()) return st;
    }
    return absl::InternalError(
        absl::StrCat("building the counter configuration failed: ", CuptiResultString(r)));
  }
  CUpti_Profiler_Host_GetConfigImageSize_Params size = {
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = object;
  if (r == CUPTI_SUCCESS) r = cuptiProfilerHostGetConfigImageSize(&size);
  if (r == CUPTI_SUCCESS) {
    config.image.resize(size.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params image = {
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    image.pHostObject = object;
    image.configImageSize = config.image.size();
    image.pConfigImage = config.image.data();
    r = cuptiProfilerHostGetConfigImage(&image);
  }
  if (r == CUPTI_SUCCESS) {
    CUpti_Profiler_Host_GetNumOfPasses_Params passes = {
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    passes.configImageSize = config.image.size();
    passes.pConfigImage = config.image.data();
    r = cuptiProfilerHostGetNumOfPasses(&passes);
    config.passes = passes.numOfPasses;
  }
  DeleteHostObject(object);
  if (r != CUPTI_SUCCESS) {
    return absl::InternalError(
        absl::StrCat("building the counter configuration failed: ", CuptiResultString(r)));
  }
  return config;
}

absl::Status MetricHost::Evaluate(absl::Span<const uint8_t> counter_data, size_t range_index,
                                  const std::vector<std::string>& metrics,
                                  std::vector<double>* values) {
  std::vector<const char*> names;
  for (const auto& m : metrics) names.push_back(m.c_str());
  values->assign(metrics.size(), 0.0);
  CUpti_Profiler_Host_EvaluateToGpuValues_Params p = {
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
  p.pHostObject = object_;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range_index;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values->data();
  CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&p);
  if (r != CUPTI_SUCCESS) {
    return absl::InternalError(absl::StrCat("evaluating counters failed: ", CuptiResultString(r)));
  }
  return absl::OkStatus();
}

}  // namespace cuscope::collect
