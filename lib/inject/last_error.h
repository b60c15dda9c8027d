// The calling thread's last error of the C ABI (cuscope_last_error), set by every
// file of lib/inject that implements part of it.
#ifndef CUSCOPE_LIB_INJECT_LAST_ERROR_H_
#define CUSCOPE_LIB_INJECT_LAST_ERROR_H_

#include "absl/strings/string_view.h"

namespace cuscope::inject {

void SetLastError(absl::string_view message);

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_LAST_ERROR_H_
