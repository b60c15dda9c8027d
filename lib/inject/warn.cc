#include "lib/inject/warn.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "lib/config/env_names.h"

namespace cuscope::inject {

void Warn(const std::string& message) {
  std::string line = absl::StrCat("cuscope: ", message, "\n");
  ssize_t n = write(STDERR_FILENO, line.data(), line.size());
  (void)n;
}

void WarnUnknownVariables() {
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return;
  if (std::getenv("CUSCOPE_OWNER_PID") != nullptr) return;
  for (const std::string& line : config::UnknownVariableWarnings(environ)) Warn(line);
}

}  // namespace cuscope::inject
