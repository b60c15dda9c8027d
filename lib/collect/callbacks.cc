#include "lib/collect/callbacks.h"

#include "absl/strings/str_cat.h"

namespace cuscope::collect {

absl::Status CallbackSubscription::Add(User user) {
  absl::MutexLock lock(&mu_);
  if (subscriber_ == nullptr) {
    CUptiResult r = cuptiSubscribe(&subscriber_, dispatch_, userdata_);
    if (r != CUPTI_SUCCESS) {
      subscriber_ = nullptr;
      const char* s = nullptr;
      cuptiGetResultString(r, &s);
      return absl::UnavailableError(absl::StrCat(
          "cannot subscribe to CUPTI callbacks (another CUPTI client, e.g. torch.profiler "
          "or nsys, may be active): ",
          s ? s : "unknown error"));
    }
  }
  users_.fetch_or(user, std::memory_order_acq_rel);
  return absl::OkStatus();
}

void CallbackSubscription::Remove(User user) {
  absl::MutexLock lock(&mu_);
  const unsigned left = users_.fetch_and(~unsigned{user}, std::memory_order_acq_rel) & ~user;
  if (left == 0 && subscriber_ != nullptr) {
    cuptiUnsubscribe(subscriber_);
    subscriber_ = nullptr;
  }
}

absl::Status CallbackSubscription::Enable(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  return Switch(1, domain, cbid);
}

absl::Status CallbackSubscription::Disable(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  return Switch(0, domain, cbid);
}

absl::Status CallbackSubscription::Switch(uint32_t on, CUpti_CallbackDomain domain,
                                          CUpti_CallbackId cbid) {
  absl::MutexLock lock(&mu_);
  if (subscriber_ == nullptr) return absl::FailedPreconditionError("not subscribed");
  CUptiResult r = cuptiEnableCallback(on, subscriber_, domain, cbid);
  if (r != CUPTI_SUCCESS) {
    return absl::InternalError(
        absl::StrCat("cuptiEnableCallback(", on, ", ", domain, ", ", cbid, ") failed"));
  }
  return absl::OkStatus();
}

}  // namespace cuscope::collect
