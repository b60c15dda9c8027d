#include "lib/collect/callbacks.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace cuscope::collect::callbacks {
namespace {

constexpr int kMaxHandlers = 4;
std::atomic<Handler> g_handlers[kMaxHandlers];
absl::Mutex g_mu;
CUpti_SubscriberHandle g_subscriber = nullptr;

void CUPTIAPI Dispatch(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                       const void* data) {
  for (auto& h : g_handlers) {
    Handler fn = h.load(std::memory_order_acquire);
    if (fn != nullptr) fn(domain, cbid, data);
  }
}

}  // namespace

absl::Status AddHandler(Handler handler) {
  absl::MutexLock lock(&g_mu);
  if (g_subscriber == nullptr) {
    CUptiResult r = cuptiSubscribe(&g_subscriber, Dispatch, nullptr);
    if (r != CUPTI_SUCCESS) {
      g_subscriber = nullptr;
      const char* s = nullptr;
      cuptiGetResultString(r, &s);
      return absl::UnavailableError(absl::StrCat(
          "cannot subscribe to CUPTI callbacks (another CUPTI client, e.g. torch.profiler "
          "or nsys, may be active): ", s ? s : "unknown error"));
    }
  }
  for (auto& h : g_handlers) {
    if (h.load() == handler) return absl::OkStatus();
  }
  for (auto& h : g_handlers) {
    Handler expected = nullptr;
    if (h.compare_exchange_strong(expected, handler)) return absl::OkStatus();
  }
  return absl::ResourceExhaustedError("too many callback handlers");
}

void RemoveHandler(Handler handler) {
  absl::MutexLock lock(&g_mu);
  bool any = false;
  for (auto& h : g_handlers) {
    Handler expected = handler;
    h.compare_exchange_strong(expected, nullptr);
    any = any || h.load() != nullptr;
  }
  // The last one out unsubscribes: CUDA runs without cuscope's callbacks, and
  // another CUPTI client can subscribe.
  if (!any && g_subscriber != nullptr) {
    cuptiUnsubscribe(g_subscriber);
    g_subscriber = nullptr;
  }
}

absl::Status Enable(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  absl::MutexLock lock(&g_mu);
  if (g_subscriber == nullptr) return absl::FailedPreconditionError("not subscribed");
  CUptiResult r = cuptiEnableCallback(1, g_subscriber, domain, cbid);
  if (r != CUPTI_SUCCESS) {
    return absl::InternalError(absl::StrCat("cuptiEnableCallback(", domain, ", ", cbid, ") failed"));
  }
  return absl::OkStatus();
}

}  // namespace cuscope::collect::callbacks
