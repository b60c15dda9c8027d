// Writing one output file (a trace, a chart) or stdout, with one set of messages.
#ifndef CUSCOPE_LIB_REPORT_OUTPUT_FILE_H_
#define CUSCOPE_LIB_REPORT_OUTPUT_FILE_H_

#include <cstdio>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace cuscope::report {

// Opens `path` ("-": stdout), runs `write` on it, flushes and closes. A failure is
// one status naming `what` ("Chrome trace file") and the path: "cannot open ...",
// "cannot write ...", or `write`'s own status with the path appended.
absl::Status WriteOutputFile(const std::string& path, absl::string_view what,
                             const std::function<absl::Status(std::FILE*)>& write);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_OUTPUT_FILE_H_
