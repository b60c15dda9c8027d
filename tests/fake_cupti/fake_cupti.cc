#include "tests/fake_cupti/fake_cupti.h"

#include <cupti.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

namespace fake_cupti {
namespace {

// Every record takes one slot (CUPTI's records vary in size; only the fake's
// cuptiActivityGetNextRecord walks them).
constexpr size_t Max(size_t a, size_t b) { return a > b ? a : b; }
constexpr size_t kSlot = (Max(sizeof(CUpti_ActivityKernel10),
                              Max(sizeof(CUpti_ActivityMemcpy6), sizeof(CUpti_ActivityAPI))) +
                          7) /
                         8 * 8;

// Longer than a short string: the names are not what these tests are about.
constexpr const char* kKernelNames[] = {"_Z21fake_gemm_kernel_f32PfS_S_i",
                                        "_Z19fake_reduce_kernelPKfPfi",
                                        "_Z20fake_elementwise_addPfPKfS1_i"};
constexpr uint32_t kLaunchCbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;

struct Buffer {
  uint8_t* data = nullptr;
  size_t size = 0;
  size_t used = 0;
};

struct State {
  std::mutex emit_mu;  // one record at a time (the buffer request included)
  std::mutex mu;       // everything below
  std::condition_variable cv;
  CUpti_BuffersCallbackRequestFunc request = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  std::set<int> kinds;
  std::set<uint32_t> runtime_cbids, driver_cbids;
  Buffer current;
  std::deque<Buffer> full;
  int delivering = 0;
  // The worker's deliveries, started and finished (one at a time, in order).
  uint64_t worker_begun = 0, worker_ended = 0;
  bool paused = false;
  bool worker_started = false;
  std::function<void(CUpti_ActivityKind)> enable_hook;
  uint64_t disables = 0;
  uint64_t dropped_unread = 0;  // reset by cuptiActivityGetNumDroppedRecords
  Totals totals;
};

// Never destroyed: the worker thread runs until the process ends.
State& S() {
  static State* s = new State();
  return *s;
}

uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

bool Enabled(const State& s, Kind kind) {
  switch (kind) {
    case Kind::kKernel:
      return s.kinds.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) > 0;
    case Kind::kMemcpy:
      return s.kinds.count(CUPTI_ACTIVITY_KIND_MEMCPY) > 0;
    case Kind::kRuntimeApi:
      return s.kinds.count(CUPTI_ACTIVITY_KIND_RUNTIME) > 0 || s.runtime_cbids.count(kLaunchCbid);
  }
  return false;
}

void Write(uint8_t* slot, Kind kind, uint32_t correlation) {
  std::memset(slot, 0, kSlot);
  const uint64_t now = NowNs();
  if (kind == Kind::kKernel) {
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.correlationId = correlation;
    k.start = now;
    k.end = now + 1000;
    k.streamId = 7;
    k.gridX = k.gridY = k.gridZ = 1;
    k.blockX = 128;
    k.blockY = k.blockZ = 1;
    k.name = kKernelNames[correlation % 3];
    std::memcpy(slot, &k, sizeof(k));
  } else if (kind == Kind::kMemcpy) {
    CUpti_ActivityMemcpy6 m{};
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.correlationId = correlation;
    m.start = now;
    m.end = now + 500;
    m.bytes = 4096;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    m.streamId = 7;
    std::memcpy(slot, &m, sizeof(m));
  } else {
    CUpti_ActivityAPI a{};
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = kLaunchCbid;
    a.correlationId = correlation;
    a.start = now;
    a.end = now + 200;
    a.processId = static_cast<uint32_t>(getpid());
    a.threadId = static_cast<uint32_t>(pthread_self());
    std::memcpy(slot, &a, sizeof(a));
  }
}

// Hands `buffers` back through the completion callback on the calling thread; they
// were counted in `delivering` by the caller, under the lock, which is released here.
void Deliver(std::unique_lock<std::mutex>& lock, std::deque<Buffer> buffers) {
  State& s = S();
  CUpti_BuffersCallbackCompleteFunc complete = s.complete;
  lock.unlock();
  for (const Buffer& b : buffers) {
    if (complete != nullptr) complete(nullptr, 0, b.data, b.size, b.used);
  }
  lock.lock();
  s.delivering -= static_cast<int>(buffers.size());
  s.totals.completed += buffers.size();
  s.cv.notify_all();
}

void WorkerLoop() {
  State& s = S();
  std::unique_lock<std::mutex> lock(s.mu);
  for (;;) {
    s.cv.wait(lock, [&] { return !s.paused && !s.full.empty(); });
    std::deque<Buffer> one = {s.full.front()};
    s.full.pop_front();
    ++s.delivering;
    ++s.worker_begun;
    Deliver(lock, std::move(one));
    ++s.worker_ended;
    s.cv.notify_all();
  }
}

}  // namespace

bool Emit(Kind kind, uint32_t correlation) {
  State& s = S();
  std::lock_guard<std::mutex> emit_lock(s.emit_mu);
  std::unique_lock<std::mutex> lock(s.mu);
  if (!Enabled(s, kind)) return false;
  if (s.current.data == nullptr) {
    CUpti_BuffersCallbackRequestFunc request = s.request;
    lock.unlock();  // CUPTI calls back without its lock
    uint8_t* data = nullptr;
    size_t size = 0, max_records = 0;
    if (request != nullptr) request(&data, &size, &max_records);
    lock.lock();
    ++s.totals.requests;
    if (data == nullptr || size < kSlot) {
      ++s.totals.refused;
      ++s.totals.dropped;
      ++s.dropped_unread;
      ++s.totals.made[static_cast<int>(kind)];
      return true;
    }
    s.current = {data, size, 0};
    // Disabled while the buffer was asked for: the (empty) buffer stays current
    // and comes back with the next forced flush.
    if (!Enabled(s, kind)) return false;
  }
  Write(s.current.data + s.current.used, kind, correlation);
  s.current.used += kSlot;
  ++s.totals.made[static_cast<int>(kind)];
  if (s.current.size - s.current.used < kSlot) {
    s.full.push_back(s.current);
    s.current = Buffer();
    s.cv.notify_all();
  }
  return true;
}

Totals GetTotals() {
  std::lock_guard<std::mutex> lock(S().mu);
  return S().totals;
}

void PauseWorker(bool paused) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().paused = paused;
  S().cv.notify_all();
}

void SetEnableHook(std::function<void(CUpti_ActivityKind)> hook) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().enable_hook = std::move(hook);
}

uint64_t Disables() {
  std::lock_guard<std::mutex> lock(S().mu);
  return S().disables;
}

void WaitIdle() {
  State& s = S();
  std::unique_lock<std::mutex> lock(s.mu);
  s.cv.wait(lock, [&] { return s.full.empty() && s.delivering == 0; });
}

void Reset() {
  State& s = S();
  std::unique_lock<std::mutex> lock(s.mu);
  s.cv.wait(lock, [&] { return s.delivering == 0; });
  if (s.current.data != nullptr || !s.full.empty()) std::abort();  // flush first
  s.request = nullptr;
  s.complete = nullptr;
  s.kinds.clear();
  s.runtime_cbids.clear();
  s.driver_cbids.clear();
  s.paused = false;
  s.enable_hook = nullptr;
  s.disables = 0;
  s.dropped_unread = 0;
  s.totals = Totals();
}

}  // namespace fake_cupti

using fake_cupti::S;

extern "C" {

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                                    CUpti_BuffersCallbackCompleteFunc completed) {
  if (requested == nullptr || completed == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(S().mu);
  S().request = requested;
  S().complete = completed;
  if (!S().worker_started) {
    S().worker_started = true;
    std::thread(fake_cupti::WorkerLoop).detach();
  }
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivitySetAttribute(CUpti_ActivityAttribute, size_t* size, void* value) {
  return size == nullptr || value == nullptr ? CUPTI_ERROR_INVALID_PARAMETER : CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  std::unique_lock<std::mutex> lock(S().mu);
  std::function<void(CUpti_ActivityKind)> hook = S().enable_hook;
  lock.unlock();
  if (hook) hook(kind);
  lock.lock();
  S().kinds.insert(kind);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().kinds.erase(kind);
  ++S().disables;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (enable)
    S().runtime_cbids.insert(cbid);
  else
    S().runtime_cbids.erase(cbid);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (enable)
    S().driver_cbids.insert(cbid);
  else
    S().driver_cbids.erase(cbid);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag) {
  fake_cupti::State& s = S();
  std::unique_lock<std::mutex> lock(s.mu);
  std::deque<fake_cupti::Buffer> take;
  take.swap(s.full);
  if ((flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) && s.current.data != nullptr) {
    take.push_back(s.current);
    s.current = fake_cupti::Buffer();
  }
  // The worker's delivery in progress now ends before this returns (later ones, of
  // records made meanwhile, need not: production may never pause).
  const uint64_t in_progress = s.worker_begun;
  s.delivering += static_cast<int>(take.size());
  fake_cupti::Deliver(lock, std::move(take));
  s.cv.wait(lock, [&] { return s.worker_ended >= in_progress; });
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid_bytes,
                                                CUpti_Activity** record) {
  if (buffer == nullptr || record == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  uint8_t* next =
      *record == nullptr ? buffer : reinterpret_cast<uint8_t*>(*record) + fake_cupti::kSlot;
  if (next + fake_cupti::kSlot > buffer + valid_bytes) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  if (dropped == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(S().mu);
  *dropped = S().dropped_unread;
  S().dropped_unread = 0;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                          const char** name) {
  if (name == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *name = nullptr;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == fake_cupti::kLaunchCbid) {
    *name = "cudaLaunchKernel_v7000";
  } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
             cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020) {
    *name = "cudaMemcpy_v3020";
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API &&
             cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel) {
    *name = "cuLaunchKernel";
  }
  return *name != nullptr ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t* timestamp) {
  if (timestamp == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *timestamp = fake_cupti::NowNs();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetThreadIdType(CUpti_ActivityThreadIdType* type) {
  if (type == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *type = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** str) {
  if (str == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *str = result == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : "CUPTI_ERROR (fake CUPTI)";
  return CUPTI_SUCCESS;
}

}  // extern "C"
