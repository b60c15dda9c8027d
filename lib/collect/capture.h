// Capture control: record only between cudaProfilerStart and cudaProfilerStop, or
// only inside the first N instances of a region (NVTX range or cuscope scope) whose
// name matches a regular expression. Outside, the tracer is paused: its activity
// kinds are disabled (NVTX ranges stay recorded, so every region instance shows in
// the report, with kernels only where capture was on).
#ifndef CUSCOPE_LIB_COLLECT_CAPTURE_H_
#define CUSCOPE_LIB_COLLECT_CAPTURE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lib/inject/config.h"

namespace cuscope::collect::capture {

// Starts capture control for `config.capture`, and region tracking when capture is
// by region or counters are limited to regions (`config.regions`). No-op otherwise.
// For capture, the tracer must have been started paused.
absl::Status Start(const config::Config& config);
void Stop();
// Region boundaries from cuscope's own scopes (NVTX ones come through callbacks).
void OnRangePush(const char* name);
void OnRangePop();
// Capture windows opened so far.
uint64_t WindowsOpened();
// The names of the regions open on the calling thread, outermost first (tracked
// while capture by region or counters by region is on).
const std::vector<std::string>& ThreadRegions();

}  // namespace cuscope::collect::capture

#endif  // CUSCOPE_LIB_COLLECT_CAPTURE_H_
