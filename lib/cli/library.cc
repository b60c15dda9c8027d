#include "lib/cli/library.h"

#include <dlfcn.h>

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
    return absl::NotFoundError(absl::StrCat("libcuscope.so not found next to ", SelfDir(),
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
  // cuInit here must not inject a profiler into this command.
  std::optional<std::string> injection;
  if (const char* v = std::getenv("CUDA_INJECTION64_PATH")) injection = v;
  unsetenv("CUDA_INJECTION64_PATH");
  absl::StatusOr<std::string> chip =
      Text([&](char* buf, size_t size) { return visible_(buf, size); }, last_error_);
  if (injection) setenv("CUDA_INJECTION64_PATH", injection->c_str(), 1);
  if (chip.ok() && chip->empty() && why != nullptr) *why = last_error_();
  return chip;
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
