// The CUDA driver as the profiled process already loaded it.
#ifndef CUSCOPE_LIB_COLLECT_DRIVER_H_
#define CUSCOPE_LIB_COLLECT_DRIVER_H_

namespace cuscope::collect {

// A function of libcuda.so.1 when the process has loaded it; nullptr otherwise.
// Never loads the driver itself (a session may start before CUDA does).
void* LoadedDriverSymbol(const char* name);

// Whether libcuda.so.1 can be loaded (loaded already, or found by the loader); for the
// words of a failure only: finding it may load the library, never initializes CUDA.
bool DriverInstalled();

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_DRIVER_H_
