#include "lib/store/profile_path.h"

#include <sys/stat.h>

#include <cerrno>

#include "absl/strings/str_format.h"

namespace cuscope::store {
namespace {

// "a directory", "a FIFO", ...: what a path that is not a regular file is.
const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

}  // namespace

absl::Status CheckProfilePath(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR) {
      return absl::NotFoundError(absl::StrFormat("%s: no such profile file", path));
    }
    return absl::ErrnoToStatus(e, absl::StrFormat("cannot read %s", path));
  }
  // Regular files only: opening a FIFO would block until a writer comes (forever),
  // and a device or socket is no profile either.
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s is not a cuscope profile (it is %s, not a regular file)", path, FileKind(st.st_mode)));
  }
  return absl::OkStatus();
}

}  // namespace cuscope::store
