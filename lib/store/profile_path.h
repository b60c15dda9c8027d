// The checks of a profile's path before SQLite opens it (LoadProfile,
// LoadStoredFindings): SQLite would say "unable to open database file" for each.
#ifndef CUSCOPE_LIB_STORE_PROFILE_PATH_H_
#define CUSCOPE_LIB_STORE_PROFILE_PATH_H_

#include <string>

#include "absl/status/status.h"

namespace cuscope::store {

// NotFound for a missing file, InvalidArgument for a directory, FIFO, device or
// socket (a FIFO would block the open forever), the errno's code when it cannot be
// looked at; OK for a regular file.
absl::Status CheckProfilePath(const std::string& path);

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_PROFILE_PATH_H_
