#include "lib/inject/warn.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace cuscope::inject {

void Warn(const std::string& message) {
  std::string line = absl::StrCat("cuscope: ", message, "\n");
  ssize_t n = write(STDERR_FILENO, line.data(), line.size());
  (void)n;
}

}  // namespace cuscope::inject
