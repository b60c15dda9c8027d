// Kernel launches as CUPTI's API callbacks show them: which callbacks are launches,
// and the launch shape a launch callback carries.
#ifndef CUSCOPE_LIB_COLLECT_LAUNCH_PARAMS_H_
#define CUSCOPE_LIB_COLLECT_LAUNCH_PARAMS_H_

#include <cupti.h>

#include <utility>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope::collect {

// The runtime and driver callbacks of kernel and graph launches and of the beginnings
// of stream capture (domain, id).
const std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>>& LaunchCallbacks();

// What a kernel launch callback launches: grid, block, the stream as the call names it
// (nullptr with per_thread_default for the per-thread default stream, the _ptsz calls'
// or cudaStreamPerThread; nullptr without it for the legacy one) and its dynamic
// shared memory.
struct LaunchShape {
  model::Dim3 grid, block;
  CUstream stream = nullptr;
  bool per_thread_default = false;
  uint32_t dynamic_shared_bytes = 0;
};
// False for anything but a kernel launch (or a launch without its config).
bool DescribeLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                    const CUpti_CallbackData* cb, LaunchShape* shape);

// cudaGraphLaunch / cuGraphLaunch: the graph's kernels are not seen one by one.
bool IsGraphLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
// cudaStreamBeginCapture* / cuStreamBeginCapture*: a stream begins to capture.
bool IsCaptureBegin(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

// Whether a launch of `shape` made now, from its API_ENTER callback, goes to a stream
// that is capturing (cuStreamIsCapturing on the launch's stream: active, or
// invalidated): it is recorded into a graph and does not execute. A query that fails
// says yes (the legacy stream while a blocking stream captures: the launch itself
// fails). False when the process has no CUDA driver loaded (tests).
bool LaunchCaptured(const LaunchShape& shape);

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_LAUNCH_PARAMS_H_
