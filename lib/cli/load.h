// How every subcommand that reads a profile loads it: the whole profile through
// store::LoadProfile (every value checked), so that a missing, foreign or damaged
// file is refused by each of them the same way.
#ifndef CUSCOPE_LIB_CLI_LOAD_H_
#define CUSCOPE_LIB_CLI_LOAD_H_

#include <optional>
#include <string>

#include "lib/model/profile.h"

namespace cuscope::cli {

// The profile at `path`; nullopt after one line on stderr, "cuscope: COMMAND: " and
// the store's error (naming the path and what is wrong). The command then exits 1.
std::optional<model::Profile> LoadOrSay(const std::string& command, const std::string& path);

}  // namespace cuscope::cli

#endif  // CUSCOPE_LIB_CLI_LOAD_H_
