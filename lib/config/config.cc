#include "lib/config/config.h"

#include "absl/strings/str_cat.h"

namespace cuscope::config {

std::string ResolveOutputPath(const std::string& output, int64_t pid, int64_t owner_pid) {
  std::string path = output.empty() ? std::string(kDefaultOutput) : output;
  bool has_pid = path.find("%p") != std::string::npos;
  std::string pid_text = absl::StrCat(pid);
  for (size_t at = path.find("%p"); at != std::string::npos; at = path.find("%p", at)) {
    path.replace(at, 2, pid_text);
    at += pid_text.size();
  }
  if (!has_pid && owner_pid > 0 && owner_pid != pid) {
    // A child of the profiled program: never overwrite the owner's file.
    size_t slash = path.rfind('/');
    size_t dot = path.rfind('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
      path += absl::StrCat(".", pid);
    } else {
      path.insert(dot, absl::StrCat(".", pid));
    }
  }
  return path;
}

}  // namespace cuscope::config
