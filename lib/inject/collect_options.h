// The settings as the collector needs them (lib/collect/options.h): collect never
// sees the settings themselves.
#ifndef CUSCOPE_LIB_INJECT_COLLECT_OPTIONS_H_
#define CUSCOPE_LIB_INJECT_COLLECT_OPTIONS_H_

#include "lib/collect/options.h"
#include "lib/config/config.h"

namespace cuscope::inject {

collect::CollectOptions CollectOptionsFrom(const config::Config& config);

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_COLLECT_OPTIONS_H_
