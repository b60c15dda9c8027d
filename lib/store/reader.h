// Loading profiles: reads a profile file (lib/store/schema.h, documented in
// docs/profile-format.md) back into a model::Profile, checking its structure and
// every value.
#ifndef CUSCOPE_LIB_STORE_READER_H_
#define CUSCOPE_LIB_STORE_READER_H_

#include <string>

#include "absl/status/statusor.h"
#include "lib/model/profile.h"

namespace cuscope::store {

// Reads a profile back. A missing file, a file that is not a cuscope profile, or
// one of another schema version gives an error naming the path and the problem.
absl::StatusOr<model::Profile> LoadProfile(const std::string& path);

// A profile's run info (meta) and stored findings (nullopt when it has none
// stored) alone, with the same checks of the file as LoadProfile but without
// reading its records: fast on any size.
absl::StatusOr<model::Profile> LoadStoredFindings(const std::string& path);

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_READER_H_
