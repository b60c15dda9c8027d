// libcuscope.so's metric functions (cuscope_c.h), as the command reaches them: the
// library is loaded with dlopen, so the command never links lib/collect or CUPTI.
#ifndef CUSCOPE_LIB_CLI_LIBRARY_H_
#define CUSCOPE_LIB_CLI_LIBRARY_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cuscope::cli {

class MetricsLibrary {
 public:
  // libcuscope.so (FindLibrary) and its functions; one error line when it cannot.
  static absl::StatusOr<MetricsLibrary> Load();

  // The chip of GPU 0, or "" when none is visible (`why` says why). Initializes the
  // CUDA driver in this process, with CUDA_INJECTION64_PATH unset meanwhile.
  absl::StatusOr<std::string> VisibleChip(std::string* why) const;
  // InvalidArgument with the bad name and the nearest valid ones.
  absl::Status Check(const std::string& chip, const std::string& request) const;
  absl::StatusOr<std::string> Resolve(const std::string& chip, const std::string& request,
                                      const std::string& format) const;
  absl::StatusOr<std::string> Chips(const std::string& format) const;

 private:
  using ErrorFn = const char* (*)();
  using VisibleFn = int (*)(char*, size_t);
  using ChipsFn = int (*)(const char*, char*, size_t);
  using CheckFn = int (*)(const char*, const char*);
  using ResolveFn = int (*)(const char*, const char*, const char*, char*, size_t);
  ErrorFn last_error_ = nullptr;
  VisibleFn visible_ = nullptr;
  ChipsFn chips_ = nullptr;
  CheckFn check_ = nullptr;
  ResolveFn resolve_ = nullptr;
};

}  // namespace cuscope::cli

#endif  // CUSCOPE_LIB_CLI_LIBRARY_H_
