#include "lib/config/from_env.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/config/env_names.h"
#include "lib/config/setting.h"

namespace cuscope::config {
namespace {

// An empty (or blank) value is the setting's default, as when it is not given: the
// same for a variable, a `cuscope run` flag (--kernels=) and cuscope_start's text.
bool IsBlank(absl::string_view value) { return absl::StripAsciiWhitespace(value).empty(); }

// Each variable on its own, in the table's order; ConfigFromEnv adds the checks of
// combinations.
absl::StatusOr<Config> ParseEach(const GetEnv& getenv) {
  Config c;
  for (const Setting& s : Settings()) {
    const char* v = getenv(s.env);
    if (v == nullptr || IsBlank(v)) continue;
    if (absl::Status st = s.Apply(v, &c); !st.ok()) return st;
  }
  // A default yields to a given setting it cannot work with: GPU metrics asked for take
  // the performance monitors the default counters would use.
  const char* metrics = getenv("CUSCOPE_METRICS");
  const bool sampling = c.gpu_metrics || c.source;
  if (sampling && (metrics == nullptr || IsBlank(metrics))) c.metrics.clear();
  return c;
}

// Settings that cannot work together. Only two settings given explicitly can conflict:
// a given setting overrides a default (ParseEach), never conflicts with it.
absl::Status CheckCombinations(const Config& c) {
  if (c.region_counters && (c.regions.empty() || c.metrics.empty())) {
    return absl::InvalidArgumentError(
        "CUSCOPE_REGION_COUNTERS=1 needs CUSCOPE_REGIONS (a regular expression naming the "
        "regions to measure) and counters (CUSCOPE_METRICS other than none)");
  }
  if (c.gpu_metrics && c.counters_enabled()) {
    return absl::InvalidArgumentError(
        "CUSCOPE_GPU_METRICS=1 (--gpu-metrics) and CUSCOPE_METRICS (--metrics) cannot work "
        "together: both use the GPU's performance monitors; give one of them");
  }
  if (c.source && (c.gpu_metrics || c.counters_enabled())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CUSCOPE_SOURCE=1 (--source) and ",
        c.gpu_metrics ? "CUSCOPE_GPU_METRICS=1 (--gpu-metrics)" : "CUSCOPE_METRICS (--metrics)",
        " cannot work together: a run samples PCs or reads the performance monitors, not both "
        "(as ncu never samples and counts in one pass); give one of them"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Config> ConfigFromEnv(const GetEnv& getenv) {
  absl::StatusOr<Config> c = ParseEach(getenv);
  if (!c.ok()) return c;
  if (absl::Status st = CheckCombinations(*c); !st.ok()) return st;
  return c;
}

absl::StatusOr<model::AdviseThresholds> ThresholdsFromEnv(const GetEnv& getenv) {
  Config c;
  for (const Setting& s : Settings()) {
    if (!absl::StartsWith(s.env, "CUSCOPE_ADVISE_")) continue;
    const char* v = getenv(s.env);
    if (v == nullptr || IsBlank(v)) continue;
    if (absl::Status st = s.Apply(v, &c); !st.ok()) return st;
  }
  return c.thresholds;
}

absl::Status ValidateSetting(absl::string_view env, absl::string_view value) {
  const Setting* s = FindSetting(env);
  if (s == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown setting ", Quoted(env), " (did you mean ", NearestSetting(env).env, "?)"));
  }
  // This value alone: combinations are checked by ConfigFromEnv.
  if (IsBlank(value)) return absl::OkStatus();
  Config scratch;
  return s->Apply(value, &scratch);
}

}  // namespace cuscope::config
