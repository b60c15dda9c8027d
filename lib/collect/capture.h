// Capture control: record only between cudaProfilerStart and cudaProfilerStop, or
// only inside the first N instances of a region (NVTX range or cuscope scope) whose
// name matches a regular expression. Outside, the tracer is paused: its activity
// kinds are disabled (NVTX ranges stay recorded, so every region instance shows in
// the report, with kernels only where capture was on).
#ifndef CUSCOPE_LIB_COLLECT_CAPTURE_H_
#define CUSCOPE_LIB_COLLECT_CAPTURE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "lib/inject/config.h"

namespace cuscope::collect::capture {

// Starts capture control for `config.capture` (no-op for kAll). The tracer must
// have been started paused.
absl::Status Start(const config::Config& config);
void Stop();
// Region boundaries from cuscope's own scopes (NVTX ones come through callbacks).
void OnRangePush(const char* name);
void OnRangePop();
// Capture windows opened so far.
uint64_t WindowsOpened();

}  // namespace cuscope::collect::capture

#endif  // CUSCOPE_LIB_COLLECT_CAPTURE_H_
