#include "lib/cli/load.h"

#include <iostream>

#include "absl/status/statusor.h"
#include "lib/store/reader.h"

namespace cuscope::cli {

std::optional<model::Profile> LoadOrSay(const std::string& command, const std::string& path) {
  absl::StatusOr<model::Profile> profile = store::LoadProfile(path);
  if (!profile.ok()) {
    std::cerr << "cuscope: " << command << ": " << profile.status().message() << "\n";
    return std::nullopt;
  }
  return *std::move(profile);
}

}  // namespace cuscope::cli
