#include "lib/collect/activity.h"

#include <cupti.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "lib/collect/counters.h"
#include "lib/collect/driver.h"
#include "lib/collect/scopes.h"

namespace cuscope::collect {
namespace {

absl::Status CuptiError(const char* what, CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return absl::InternalError(absl::StrFormat("%s failed: %s", what, s ? s : "unknown error"));
}

constexpr const char* kDefaultRuntimePrefixes[] = {
    "cudaLaunch", "cudaGraphLaunch", "cudaGraphUpload", "cudaMemcpy", "cudaMemset",
    "cudaMalloc", "cudaFree", "cudaDeviceSynchronize", "cudaStreamSynchronize",
    "cudaEventSynchronize", "cudaStreamWaitEvent", "cudaThreadSynchronize",
    "cudaProfilerStart", "cudaProfilerStop"};
// Driver calls that programs make directly (Triton launches through cuLaunchKernel).
constexpr const char* kDefaultDriverPrefixes[] = {
    "cuLaunchKernel", "cuLaunchCooperativeKernel", "cuGraphLaunch", "cuCtxSynchronize",
    "cuStreamSynchronize", "cuEventSynchronize", "cuModuleLoad", "cuLibraryLoad"};

}  // namespace

namespace {
template <size_t N>
bool HasPrefix(const char* name, const char* const (&prefixes)[N]) {
  for (const char* p : prefixes) {
    if (absl::StartsWith(name, p)) return true;
  }
  return false;
}
}  // namespace

bool IsDefaultRuntimeApi(const char* name) { return HasPrefix(name, kDefaultRuntimePrefixes); }
bool IsDefaultDriverApi(const char* name) { return HasPrefix(name, kDefaultDriverPrefixes); }

struct ActivityCollector::State {
  config::Config config;
  Sink sink;
  absl::Mutex pool_mu;
  std::vector<uint8_t*> free_buffers ABSL_GUARDED_BY(pool_mu);
  uint64_t allocated ABSL_GUARDED_BY(pool_mu) = 0;
  size_t buffer_bytes ABSL_GUARDED_BY(pool_mu) = 0;  // size of every pooled buffer
  int max_buffers ABSL_GUARDED_BY(pool_mu) = 0;
  std::atomic<uint64_t> refused{0};
  std::atomic<uint64_t> completed{0};
  std::atomic<uint64_t> foreign{0};  // completed buffers another client had handed out
  absl::Mutex probe_mu;              // one ProbeRecordsArrive at a time
  std::atomic<bool> periodic_held{false};  // HoldPeriodicFlush
  std::atomic<bool> periodic_busy{false};  // a PeriodicFlush is running
  absl::flat_hash_set<uint8_t*> own_buffers ABSL_GUARDED_BY(pool_mu);
  std::atomic<bool> records_taken{false};

  absl::Mutex mu;  // guards the batch, the converter and the sink
  model::Profile batch ABSL_GUARDED_BY(mu);
  std::unique_ptr<RecordConverter> converter ABSL_GUARDED_BY(mu);
  std::vector<CUpti_ActivityKind> enabled;
  std::vector<uint32_t> runtime_cbids, driver_cbids;  // API records enabled one by one
  // The GPU-side kinds are on when capture control has not paused them and counters
  // do not hold them off (a region measured with instruction counters).
  absl::Mutex kinds_mu;
  bool capture_paused ABSL_GUARDED_BY(kinds_mu) = false;
  bool counters_hold ABSL_GUARDED_BY(kinds_mu) = false;
  bool gpu_kinds_on ABSL_GUARDED_BY(kinds_mu) = true;
};

namespace {
// Never destroyed: CUPTI may call back on its own thread until the process ends.
std::atomic<ActivityCollector::State*>& StatePtr() {
  static std::atomic<ActivityCollector::State*> state{nullptr};
  return state;
}
std::atomic<bool> g_running{false};
}  // namespace

void CUPTIAPI ActivityCollector::OnBufferRequested(uint8_t** buffer, size_t* size,
                                                   size_t* max_records) {
  *buffer = nullptr;
  *size = 0;
  *max_records = 0;
  State* s = StatePtr().load();
  if (s == nullptr) return;
  absl::MutexLock lock(&s->pool_mu);
  if (!s->free_buffers.empty()) {
    *buffer = s->free_buffers.back();
    s->free_buffers.pop_back();
  } else if (s->allocated < static_cast<uint64_t>(s->max_buffers)) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, s->buffer_bytes));
    if (*buffer != nullptr) {
      ++s->allocated;
      s->own_buffers.insert(*buffer);
    }
  }
  if (*buffer == nullptr) {
    s->refused.fetch_add(1, std::memory_order_relaxed);
    return;  // CUPTI drops the records and counts them.
  }
  *size = s->buffer_bytes;
}

// Adds what counters and scopes finished to the batch, hands it to the sink when it
// holds records (or the devices changed) and clears it. Under s->mu.
void ActivityCollector::EmitBatch(State* s, bool devices_changed) {
  counters::Drain(&s->batch);
  scopes::Drain(&s->batch);
  if (s->sink && (s->batch.record_count() > 0 || devices_changed)) {
    s->sink(s->batch, devices_changed);
  }
  s->batch.ClearRecords();
}

void CUPTIAPI ActivityCollector::OnBufferCompleted(CUcontext, uint32_t, uint8_t* buffer,
                                                   size_t, size_t valid_size) {
  State* s = StatePtr().load();
  if (s == nullptr || buffer == nullptr) return;
  {
    absl::MutexLock lock(&s->mu);
    if (s->converter != nullptr && valid_size > 0) {
      s->converter->stats().devices_changed = false;
      s->converter->AddBuffer(buffer, valid_size);
      EmitBatch(s, s->converter->stats().devices_changed);
    }
  }
  s->completed.fetch_add(1, std::memory_order_relaxed);
  absl::MutexLock lock(&s->pool_mu);
  if (!s->own_buffers.contains(buffer)) {
    // Another client's buffer, delivered to cuscope after it took the callbacks
    // back (Stop): its records are converted; the memory is not ours to reuse or free.
    s->foreign.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  s->free_buffers.push_back(buffer);
}

absl::Status ActivityCollector::Start(const config::Config& config, Sink sink) {
  if (g_running.load()) return absl::FailedPreconditionError("the tracer is already running");
  State* s = StatePtr().load();
  if (s == nullptr) {
    s = new State();
    StatePtr().store(s);
  }
  {
    // A new session may use another buffer size: pooled buffers of the old size go.
    absl::MutexLock lock(&s->pool_mu);
    if (s->buffer_bytes != config.buffer_bytes) {
      for (uint8_t* b : s->free_buffers) {
        s->own_buffers.erase(b);
        std::free(b);
      }
      s->allocated -= s->free_buffers.size();
      s->free_buffers.clear();
      s->buffer_bytes = config.buffer_bytes;
    }
    s->max_buffers = config.max_buffers;
    s->refused.store(0);
    s->completed.store(0);
    s->records_taken.store(false);
  }
  {
    absl::MutexLock lock(&s->mu);
    s->config = config;
    s->sink = std::move(sink);
    s->batch = model::Profile();
    s->converter = std::make_unique<RecordConverter>(&s->batch);
    s->converter->set_check_measured(config.counters_enabled());
  }
  CUptiResult r = cuptiActivityRegisterCallbacks(OnBufferRequested, OnBufferCompleted);
  if (r != CUPTI_SUCCESS) return CuptiError("cuptiActivityRegisterCallbacks", r);

  std::vector<CUpti_ActivityKind> kinds = {CUPTI_ACTIVITY_KIND_DEVICE};
  const config::TraceKinds& t = config.trace;
  if (t.kernel) kinds.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (t.memcpy) kinds.push_back(CUPTI_ACTIVITY_KIND_MEMCPY);
  if (t.memset) kinds.push_back(CUPTI_ACTIVITY_KIND_MEMSET);
  if (t.sync) kinds.push_back(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  if (t.nvtx) kinds.push_back(CUPTI_ACTIVITY_KIND_MARKER);
  if (t.overhead) kinds.push_back(CUPTI_ACTIVITY_KIND_OVERHEAD);
  if (t.api && config.api == config::ApiMode::kAll) {
    kinds.push_back(CUPTI_ACTIVITY_KIND_RUNTIME);
    kinds.push_back(CUPTI_ACTIVITY_KIND_DRIVER);
  }
  {
    absl::MutexLock lock(&s->kinds_mu);
    s->capture_paused = false;
    s->counters_hold = false;
    s->gpu_kinds_on = true;
  }
  s->enabled.clear();
  for (CUpti_ActivityKind k : kinds) {
    r = cuptiActivityEnable(k);
    if (r != CUPTI_SUCCESS) {
      for (CUpti_ActivityKind e : s->enabled) cuptiActivityDisable(e);
      s->enabled.clear();
      return CuptiError(absl::StrFormat("cuptiActivityEnable(kind %d)", k).c_str(), r);
    }
    s->enabled.push_back(k);
  }
  s->runtime_cbids.clear();
  s->driver_cbids.clear();
  if (t.api && config.api == config::ApiMode::kDefault) {
    // Only the calls that matter: enabling per call keeps the rest untraced.
    for (uint32_t cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++cbid) {
      const char* name = nullptr;
      if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) == CUPTI_SUCCESS &&
          name != nullptr && IsDefaultRuntimeApi(name)) {
        cuptiActivityEnableRuntimeApi(cbid, 1);
        s->runtime_cbids.push_back(cbid);
      }
    }
    for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid) {
      const char* name = nullptr;
      if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) == CUPTI_SUCCESS &&
          name != nullptr && IsDefaultDriverApi(name)) {
        cuptiActivityEnableDriverApi(cbid, 1);
        s->driver_cbids.push_back(cbid);
      }
    }
  }
  g_running.store(true);
  if (config.capture != config::CaptureMode::kAll) Pause();
  return absl::OkStatus();
}

namespace {
// Paused: the GPU-side kinds. NVTX ranges and API calls stay recorded: ranges so
// that every region instance shows, API calls so that captured kernels can be
// attributed to their regions (re-enabling per-call API records from inside an
// NVTX callback left them off on the H200: 130 kernels captured, 0 attributed).
bool Pausable(CUpti_ActivityKind k) {
  return k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || k == CUPTI_ACTIVITY_KIND_MEMCPY ||
         k == CUPTI_ACTIVITY_KIND_MEMSET || k == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION ||
         k == CUPTI_ACTIVITY_KIND_OVERHEAD;
}

}  // namespace

namespace {
void ApplyGpuKinds(ActivityCollector::State* s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s->kinds_mu) {
  const bool on = !s->capture_paused && !s->counters_hold;
  if (on == s->gpu_kinds_on) return;
  s->gpu_kinds_on = on;
  for (CUpti_ActivityKind k : s->enabled) {
    if (!Pausable(k)) continue;
    if (on) cuptiActivityEnable(k);
    else cuptiActivityDisable(k);
  }
}
}  // namespace

void ActivityCollector::Pause() {
  State* s = StatePtr().load();
  if (s == nullptr || !g_running.load()) return;
  absl::MutexLock lock(&s->kinds_mu);
  s->capture_paused = true;
  ApplyGpuKinds(s);
}

void ActivityCollector::Resume() {
  State* s = StatePtr().load();
  if (s == nullptr || !g_running.load()) return;
  absl::MutexLock lock(&s->kinds_mu);
  s->capture_paused = false;
  ApplyGpuKinds(s);
}

void ActivityCollector::HoldGpuKinds(bool hold) {
  State* s = StatePtr().load();
  if (s == nullptr || !g_running.load()) return;
  absl::MutexLock lock(&s->kinds_mu);
  s->counters_hold = hold;
  ApplyGpuKinds(s);
}

void ActivityCollector::Flush(bool forced) {
  State* s = StatePtr().load();
  if (s == nullptr) return;
  cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  // Scopes closed since the last completed buffer: a program may mark regions
  // without CUDA work, and then no buffer completes to carry them.
  absl::MutexLock lock(&s->mu);
  if (s->converter == nullptr || !g_running.load()) return;
  EmitBatch(s, false);
}

// Whether activity records still reach cuscope: one recorded cuDriverGetVersion call
// must come back through cuscope's buffers at the next forced flush. torch.profiler
// (Kineto) registers its own buffer callbacks when it starts and disables the kinds
// when it stops; CUPTI keeps one set of callbacks per process, so cuscope gets
// nothing from then on and no error says so.
//
// While the program runs (cuscope's flush thread) the probe goes through whatever
// callbacks are registered: missing, it was taken. At Stop, cuscope first takes the
// callbacks back and only then records and flushes: at exit another client's
// callbacks may belong to objects already destroyed (Kineto's singletons are
// destroyed before cuscope's atexit handler runs; a PyTorch program with
// torch.profiler crashed at exit once on the H200 while cuscope flushed). Then a
// buffer cuscope did not hand out, delivered to it, is the sign.
struct ActivityCollector::ProbeMark {
  bool made = false;  // a probe record was made
  uint64_t probes = 0, foreign = 0, refused = 0;  // counts before it
};

ActivityCollector::ProbeMark ActivityCollector::RecordProbe(State* s) {
  ProbeMark mark;
  mark.foreign = s->foreign.load();
  mark.refused = s->refused.load();
  using GetVersion = int (*)(int*);
  auto get_version = reinterpret_cast<GetVersion>(LoadedDriverSymbol("cuDriverGetVersion"));
  uint64_t now = 0;
  if (get_version == nullptr || cuptiGetTimestamp(&now) != CUPTI_SUCCESS) return mark;
  {
    absl::MutexLock lock(&s->mu);
    if (s->converter == nullptr) return mark;
    s->converter->set_probe_after(now);
    mark.probes = s->converter->stats().probe_records;
  }
  cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion, 1);
  int version = 0;
  get_version(&version);
  if (!(s->config.trace.api && s->config.api == config::ApiMode::kAll)) {
    cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion, 0);
  }
  mark.made = true;
  return mark;
}

// After a forced flush. A buffer refused at the pool cap drops the probe too: that
// is not a takeover (dropped records are counted and reported on their own).
bool ActivityCollector::RecordsArrived(State* s, const ProbeMark& mark) {
  if (s->foreign.load() != mark.foreign) return false;
  if (!mark.made || s->refused.load() > mark.refused) return true;
  absl::MutexLock lock(&s->mu);
  return s->converter != nullptr && s->converter->stats().probe_records > mark.probes;
}

bool ActivityCollector::PeriodicFlush(bool even_if_held) {
  State* s = StatePtr().load();
  if (s == nullptr || !g_running.load()) return true;
  // One probe at a time: Stop's and this one must not switch the probe's record off
  // under each other (that would read as a takeover).
  absl::MutexLock probe_lock(&s->probe_mu);
  if (!g_running.load()) return true;  // Stop came first
  // Busy before looking at the hold, as HoldPeriodicFlush holds before looking at
  // busy: one of the two sees the other.
  s->periodic_busy.store(true);
  if (s->periodic_held.load() && !even_if_held) {
    s->periodic_busy.store(false);
    return false;
  }
  if (s->records_taken.load()) {
    Flush(false);
  } else {
    const ProbeMark mark = RecordProbe(s);
    Flush(/*forced=*/mark.made);  // a probe comes back only with a forced flush
    if (!RecordsArrived(s, mark)) s->records_taken.store(true);
  }
  s->periodic_busy.store(false);
  return true;
}

void ActivityCollector::HoldPeriodicFlush(bool hold) {
  State* s = StatePtr().load();
  if (s == nullptr) return;
  s->periodic_held.store(hold);
  if (!hold) return;
  // A flush in progress ends first, waited for a bounded time without a lock: this
  // runs inside CUPTI's NVTX callback, and the flush inside cuptiActivityFlushAll.
  for (int i = 0; i < 200 && s->periodic_busy.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

void ActivityCollector::Stop(uint64_t end_ns) {
  State* s = StatePtr().load();
  if (s == nullptr || !g_running.exchange(false)) return;
  absl::MutexLock probe_lock(&s->probe_mu);
  cuptiActivityRegisterCallbacks(OnBufferRequested, OnBufferCompleted);
  const ProbeMark mark = RecordProbe(s);
  for (CUpti_ActivityKind k : s->enabled) cuptiActivityDisable(k);
  // The calls Start enabled one by one (the probe switches its own off).
  for (uint32_t cbid : s->runtime_cbids) cuptiActivityEnableRuntimeApi(cbid, 0);
  for (uint32_t cbid : s->driver_cbids) cuptiActivityEnableDriverApi(cbid, 0);
  s->runtime_cbids.clear();
  s->driver_cbids.clear();
  s->enabled.clear();
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (!RecordsArrived(s, mark)) s->records_taken.store(true);
  absl::MutexLock lock(&s->mu);
  if (s->converter != nullptr) {
    s->converter->CloseOpenRanges(end_ns);
    EmitBatch(s, false);
  }
}

bool ActivityCollector::running() { return g_running.load(); }

ActivityStats ActivityCollector::stats() {
  ActivityStats out;
  State* s = StatePtr().load();
  if (s == nullptr) return out;
  {
    absl::MutexLock lock(&s->pool_mu);
    out.buffers_allocated = s->allocated;
    out.buffers_outstanding = s->allocated - s->free_buffers.size();
  }
  out.buffers_refused = s->refused.load();
  out.records_taken = s->records_taken.load();
  out.buffers_completed = s->completed.load();
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    out.dropped_records = dropped;
  }
  absl::MutexLock lock(&s->mu);
  if (s->converter != nullptr) {
    out.internal_kernels = s->converter->stats().internal_kernels;
    out.records = s->converter->stats().records;
    out.last_api_end_ns = s->converter->stats().last_api_end_ns;
  }
  return out;
}

}  // namespace cuscope::collect
