// The CUDA API calls a session records by default (launches, copies, memsets,
// allocations, synchronizations, graph launches, by name prefix), enabled one by one
// in CUPTI's activity API (cuptiActivityEnableRuntimeApi / EnableDriverApi) so that
// the rest stay untraced. Not thread-safe: the session's Start and Stop serialize it.
#ifndef CUSCOPE_LIB_COLLECT_API_CALLS_H_
#define CUSCOPE_LIB_COLLECT_API_CALLS_H_

#include <cstdint>
#include <vector>

namespace cuscope::collect {

bool IsDefaultRuntimeApi(const char* name);
bool IsDefaultDriverApi(const char* name);

class DefaultApiCalls {
 public:
  // Enables every runtime and driver call whose CUPTI name is a default one.
  void Enable();
  // Disables the calls Enable enabled (none after it).
  void Disable();

  const std::vector<uint32_t>& runtime_cbids() const { return runtime_cbids_; }
  const std::vector<uint32_t>& driver_cbids() const { return driver_cbids_; }

 private:
  std::vector<uint32_t> runtime_cbids_, driver_cbids_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_API_CALLS_H_
