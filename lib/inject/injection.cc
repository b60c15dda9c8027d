// The library's entry points: CUDA's injection hook, NVTX's injection hook, and the
// C ABI. Everything else in libcuscope.so is hidden. The entry point keeps the
// process's one Session (TheSession) and wires the process's exit and forks to it.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "cuscope/cuscope_c.h"
#include "cuscope/version.h"
#include "lib/collect/cupti_entry.h"
#include "lib/config/start_text.h"
#include "lib/inject/last_error.h"
#include "lib/inject/run_end.h"
#include "lib/inject/session.h"
#include "lib/inject/warn.h"

#define CUSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// Plain arrays, not std::string: a thread's C++ thread_local objects are destroyed
// before atexit handlers run, and a program may call cuscope_* from one.
thread_local char t_last_error[1024];
thread_local char t_output_path[4096];

}  // namespace

namespace cuscope::inject {
namespace {

void AtExit() { TheSession().OnExit(); }
void AtForkChild() { TheSession().OnForkChild(); }

}  // namespace

Session& TheSession() {
  // Never destroyed (session.h): CUPTI's threads, the atexit hook and the signal
  // handler may reach it after static destructors have run.
  static Session* const session = new Session({AtExit, AtForkChild});
  return *session;
}

}  // namespace cuscope::inject

void cuscope::inject::SetLastError(absl::string_view message) {
  size_t n = std::min(message.size(), sizeof(t_last_error) - 1);
  std::memcpy(t_last_error, message.data(), n);
  t_last_error[n] = '\0';
}

namespace {

using cuscope::inject::SetLastError;
using cuscope::inject::TheSession;

int Fail(int code, const absl::Status& status) {
  SetLastError(status.message());
  return code;
}

int CodeOf(const absl::Status& st) {
  switch (st.code()) {
    case absl::StatusCode::kOk:
      return CUSCOPE_OK;
    case absl::StatusCode::kInvalidArgument:
      return CUSCOPE_ERROR_INVALID_SETTING;
    case absl::StatusCode::kAlreadyExists:
      return CUSCOPE_ERROR_ALREADY_ACTIVE;
    case absl::StatusCode::kFailedPrecondition:
      return CUSCOPE_ERROR_NOT_ACTIVE;
    case absl::StatusCode::kPermissionDenied:
      return CUSCOPE_ERROR_OUTPUT;
    case absl::StatusCode::kCancelled:
      return CUSCOPE_ERROR_DISABLED;
    default:
      return CUSCOPE_ERROR_CUPTI;
  }
}

}  // namespace

// Called by the CUDA driver during cuInit when CUDA_INJECTION64_PATH names this
// library. Never fails the host: a problem is one line on stderr.
CUSCOPE_EXPORT int InitializeInjection(void) {
  cuscope::inject::WarnUnknownVariables();
  absl::Status st =
      TheSession().Start([](const char* name) -> const char* { return std::getenv(name); });
  if (!st.ok() && st.code() != absl::StatusCode::kCancelled &&
      st.code() != absl::StatusCode::kAlreadyExists) {
    cuscope::inject::Warn(absl::StrCat(st.message(), "; the program runs without profiling"));
    cuscope::inject::TellCommand(absl::StrCat("failed ", getpid()));
  }
  return 1;
}

// Called by NVTX on the first NVTX call when NVTX_INJECTION64_PATH names this
// library: hands NVTX to CUPTI, which turns ranges into activity records.
CUSCOPE_EXPORT int InitializeInjectionNvtx2(const void* get_export_table) {
  const int handed = cuscope::collect::HandNvtxToCupti(get_export_table);
  if (handed < 0) {
    cuscope::inject::Warn("CUPTI's NVTX hook was not found; NVTX ranges are not recorded");
    return 0;
  }
  return handed;
}

CUSCOPE_EXPORT int cuscope_start(const char* settings) {
  absl::StatusOr<cuscope::config::NamedValues> given =
      cuscope::config::ParseStartText(settings ? settings : "");
  if (!given.ok()) return Fail(CUSCOPE_ERROR_INVALID_SETTING, given.status());
  cuscope::inject::WarnUnknownVariables();
  absl::Status st = TheSession().Start([&](const char* name) -> const char* {
    for (const auto& [k, v] : *given) {
      if (k == name) return v.c_str();
    }
    return std::getenv(name);
  });
  if (!st.ok()) return Fail(CodeOf(st), st);
  t_last_error[0] = '\0';
  return CUSCOPE_OK;
}

CUSCOPE_EXPORT int cuscope_stop(void) {
  absl::Status st = TheSession().Stop(cuscope::inject::StopReason::StopCall());
  if (!st.ok()) return Fail(CodeOf(st), st);
  return CUSCOPE_OK;
}

CUSCOPE_EXPORT int cuscope_flush(void) {
  absl::Status st = TheSession().Flush();
  if (!st.ok()) return Fail(CodeOf(st), st);
  return CUSCOPE_OK;
}

CUSCOPE_EXPORT int cuscope_is_active(void) { return TheSession().Active() ? 1 : 0; }

CUSCOPE_EXPORT const char* cuscope_output_path(void) {
  std::string path = TheSession().OutputPath();
  size_t n = std::min(path.size(), sizeof(t_output_path) - 1);
  std::memcpy(t_output_path, path.data(), n);
  t_output_path[n] = '\0';
  return t_output_path;
}

CUSCOPE_EXPORT const char* cuscope_last_error(void) { return t_last_error; }

CUSCOPE_EXPORT const char* cuscope_version(void) { return CUSCOPE_VERSION_STRING; }
