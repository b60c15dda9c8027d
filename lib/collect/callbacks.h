// The process's CUPTI callback subscription, shared by the parts of the collector
// that need API callbacks (counters: launches; capture: cudaProfilerStart/Stop and
// NVTX ranges). CUPTI allows one subscriber per process: the collector owns this
// object and is its callback's userdata.
#ifndef CUSCOPE_LIB_COLLECT_CALLBACKS_H_
#define CUSCOPE_LIB_COLLECT_CALLBACKS_H_

#include <cupti.h>

#include <atomic>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace cuscope::collect {

class CallbackSubscription {
 public:
  enum User : unsigned { kCapture = 1, kCounters = 2, kSampler = 4, kPcSampler = 8 };

  // `dispatch` receives every callback with `userdata`; it asks Wants() which users
  // to pass it to.
  CallbackSubscription(CUpti_CallbackFunc dispatch, void* userdata)
      : dispatch_(dispatch), userdata_(userdata) {}

  // Subscribes on first use and adds `user`. Unavailable if another CUPTI client
  // holds the subscription (torch.profiler, nsys, ...).
  absl::Status Add(User user);
  // The last user out unsubscribes: CUDA runs without cuscope's callbacks, and
  // another CUPTI client can subscribe.
  void Remove(User user);
  absl::Status Enable(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
  // Switches one callback off again (the counters' launch callbacks while nothing is
  // left to measure); Enable switches it back on.
  absl::Status Disable(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
  bool Wants(User user) const { return (users_.load(std::memory_order_acquire) & user) != 0; }

 private:
  absl::Status Switch(uint32_t on, CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

  const CUpti_CallbackFunc dispatch_;
  void* const userdata_;
  absl::Mutex mu_;
  CUpti_SubscriberHandle subscriber_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::atomic<unsigned> users_{0};  // written under mu_, read by the dispatch
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_CALLBACKS_H_
