// The flags of `cuscope run`: one per setting (lib/config/setting.h), named by its
// row, bound to the settings given; -o is --output. A yes/no setting is a switch.
#ifndef CUSCOPE_LIB_CLI_RUN_FLAGS_H_
#define CUSCOPE_LIB_CLI_RUN_FLAGS_H_

#include <string>
#include <vector>

#include "lib/cli/typed_flags.h"
#include "lib/config/setting.h"

namespace cuscope::cli {

// A setting given as a flag, with its value as written ("" is the default, over the
// environment; a switch's is "true" or "false").
struct GivenSetting {
  const config::Setting* setting;
  std::string value;
};

// What the flags of `cuscope run` give: each setting given, once (its last value), in
// the order first given. Each value was checked alone (config::ValidateSetting);
// together and with the environment is the command's to check (config::ConfigFromEnv).
struct RunFlags {
  std::vector<GivenSetting> given;
};

// One flag per row of config::Settings(), in the same order.
const FlagTable<RunFlags>& RunFlagTable();

}  // namespace cuscope::cli

#endif  // CUSCOPE_LIB_CLI_RUN_FLAGS_H_
