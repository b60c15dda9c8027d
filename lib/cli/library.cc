#include "lib/cli/library.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/cli/child.h"

namespace cuscope::cli {
namespace {

constexpr int kInvalidSetting = -1;  // CUSCOPE_ERROR_INVALID_SETTING

// The text a function writes, with a larger buffer when the first was too small.
absl::StatusOr<std::string> Text(const std::function<int(char*, size_t)>& call,
                                 const char* (*last_error)()) {
  std::vector<char> buf(1 << 16);
  for (int attempt = 0; attempt < 2; ++attempt) {
    int n = call(buf.data(), buf.size());
    if (n < 0) {
      return n == kInvalidSetting ? absl::InvalidArgumentError(last_error())
                                  : absl::UnavailableError(last_error());
    }
    if (static_cast<size_t>(n) < buf.size()) return std::string(buf.data(), n);
    buf.resize(static_cast<size_t>(n) + 1);
  }
  return absl::InternalError("libcuscope.so's text kept growing");
}

}  // namespace

absl::StatusOr<MetricsLibrary> MetricsLibrary::Load() {
  std::string path = FindLibrary();
  if (path.empty()) {
    return absl::NotFoundError(
        absl::StrCat("libcuscope.so not found next to ", SelfDir(),
                     " (looked in ../lib); set CUSCOPE_LIBRARY to its path"));
  }
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return absl::UnavailableError(absl::StrCat("cannot load ", path, ": ", why ? why : "unknown"));
  }
  MetricsLibrary out;
  out.last_error_ = reinterpret_cast<ErrorFn>(dlsym(lib, "cuscope_last_error"));
  out.visible_ = reinterpret_cast<VisibleFn>(dlsym(lib, "cuscope_visible_chip"));
  out.chips_ = reinterpret_cast<ChipsFn>(dlsym(lib, "cuscope_metrics_chips"));
  out.check_ = reinterpret_cast<CheckFn>(dlsym(lib, "cuscope_metrics_check"));
  out.resolve_ = reinterpret_cast<ResolveFn>(dlsym(lib, "cuscope_metrics_resolve"));
  if (!out.last_error_ || !out.visible_ || !out.chips_ || !out.check_ || !out.resolve_) {
    return absl::UnavailableError(
        absl::StrCat(path, " lacks the metric functions (cuscope_metrics_*): another version?"));
  }
  return out;  // never unloaded: the command ends soon
}

absl::StatusOr<std::string> MetricsLibrary::VisibleChip(std::string* why) const {
  // The driver is initialized in a child process, which ends with _exit: this command
  // never holds a CUDA context, a crash in the driver or CUPTI cannot take it down,
  // and no driver teardown runs at its exit. Nor may cuInit inject a profiler here.
  int fds[2];
  if (pipe(fds) != 0) return absl::UnavailableError("cannot ask for the GPU's chip: pipe failed");
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    return absl::UnavailableError("cannot ask for the GPU's chip: fork failed");
  }
  if (pid == 0) {
    close(fds[0]);
    unsetenv("CUDA_INJECTION64_PATH");
    char buf[256] = {};
    const int n = visible_(buf, sizeof(buf));
    std::string answer = n > 0 && static_cast<size_t>(n) < sizeof(buf)
                             ? std::string("chip ") + buf
                             : std::string("none ") + last_error_();
    ssize_t w = write(fds[1], answer.data(), answer.size());
    (void)w;
    _exit(0);
  }
  close(fds[1]);
  std::string answer;
  char chunk[512];
  for (ssize_t n; (n = read(fds[0], chunk, sizeof(chunk))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    answer.append(chunk, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (answer.rfind("chip ", 0) == 0) return answer.substr(5);
  if (why != nullptr) {
    *why = answer.rfind("none ", 0) == 0
               ? answer.substr(5)
               : absl::StrCat("the GPU query ended abnormally (",
                              WIFSIGNALED(status) ? absl::StrCat("signal ", WTERMSIG(status))
                                                  : absl::StrCat("exit ", WEXITSTATUS(status)),
                              ")");
  }
  return std::string();
}

absl::Status MetricsLibrary::Check(const std::string& chip, const std::string& request) const {
  int r = check_(chip.c_str(), request.c_str());
  if (r == 0) return absl::OkStatus();
  return r == kInvalidSetting ? absl::InvalidArgumentError(last_error_())
                              : absl::UnavailableError(last_error_());
}

absl::StatusOr<std::string> MetricsLibrary::Resolve(const std::string& chip,
                                                    const std::string& request,
                                                    const std::string& format) const {
  return Text(
      [&](char* buf, size_t size) {
        return resolve_(chip.c_str(), request.c_str(), format.c_str(), buf, size);
      },
      last_error_);
}

absl::StatusOr<std::string> MetricsLibrary::Chips(const std::string& format) const {
  return Text([&](char* buf, size_t size) { return chips_(format.c_str(), buf, size); },
              last_error_);
}

}  // namespace cuscope::cli
