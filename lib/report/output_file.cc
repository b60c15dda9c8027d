#include "lib/report/output_file.h"

#include <cerrno>

#include "absl/strings/str_cat.h"

namespace cuscope::report {

absl::Status WriteOutputFile(const std::string& path, absl::string_view what,
                             const std::function<absl::Status(std::FILE*)>& write) {
  const bool to_stdout = path == "-";
  const std::string where = to_stdout ? std::string("(stdout)") : path;
  std::FILE* out = to_stdout ? stdout : std::fopen(path.c_str(), "wb");
  if (out == nullptr)
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", what, " ", path));
  absl::Status status = write(out);
  const bool write_failed = std::fflush(out) != 0 || std::ferror(out);
  const int write_errno = errno;
  const bool close_failed = !to_stdout && std::fclose(out) != 0;
  if (!status.ok()) return absl::Status(status.code(), absl::StrCat(status.message(), ": ", where));
  if (write_failed || close_failed) {
    return absl::ErrnoToStatus(write_failed ? write_errno : errno,
                               absl::StrCat("cannot write ", what, " ", where));
  }
  return absl::OkStatus();
}

}  // namespace cuscope::report
