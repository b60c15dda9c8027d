// Reading the settings from the environment (or any name -> value lookup) through
// the rows of the settings table (setting.h).
#ifndef CUSCOPE_LIB_CONFIG_FROM_ENV_H_
#define CUSCOPE_LIB_CONFIG_FROM_ENV_H_

#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/config/config.h"

namespace cuscope::config {

using GetEnv = std::function<const char*(const char*)>;

// Reads every CUSCOPE_* variable through `getenv`. A variable that is empty or blank
// is not given (the setting's default applies). An invalid value gives
// InvalidArgument with one line naming the variable, the value and what is accepted;
// settings given together that cannot work together (CUSCOPE_GPU_METRICS=1 with
// CUSCOPE_METRICS; CUSCOPE_REGION_COUNTERS=1 without CUSCOPE_REGIONS and
// CUSCOPE_METRICS) give InvalidArgument with one line naming them.
absl::StatusOr<Config> ConfigFromEnv(const GetEnv& getenv);

// Checks one value for the setting whose variable is `env` (used by the command to
// validate flags before it starts the program). Same messages as ConfigFromEnv; an
// empty or blank value is valid (the default). An unknown `env` gives InvalidArgument
// naming the nearest setting (env_names.h).
absl::Status ValidateSetting(absl::string_view env, absl::string_view value);

// The advisor's thresholds from the CUSCOPE_ADVISE_* variables alone (for the
// readers of profiles: `cuscope advise` and `cuscope report`); other variables are
// not read. Same messages as ConfigFromEnv.
absl::StatusOr<model::AdviseThresholds> ThresholdsFromEnv(const GetEnv& getenv);

}  // namespace cuscope::config

#endif  // CUSCOPE_LIB_CONFIG_FROM_ENV_H_
