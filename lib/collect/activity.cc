#include "lib/collect/activity.h"

#include <cupti.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "lib/collect/driver.h"

namespace cuscope::collect {
namespace {

absl::Status CuptiError(const char* what, CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return absl::InternalError(absl::StrFormat("%s failed: %s", what, s ? s : "unknown error"));
}

constexpr const char* kDefaultRuntimePrefixes[] = {"cudaLaunch",
                                                   "cudaGraphLaunch",
                                                   "cudaGraphUpload",
                                                   "cudaMemcpy",
                                                   "cudaMemset",
                                                   "cudaMalloc",
                                                   "cudaFree",
                                                   "cudaDeviceSynchronize",
                                                   "cudaStreamSynchronize",
                                                   "cudaEventSynchronize",
                                                   "cudaStreamWaitEvent",
                                                   "cudaEventRecord",
                                                   "cudaThreadSynchronize",
                                                   "cudaProfilerStart",
                                                   "cudaProfilerStop"};
// Driver calls that programs make directly (Triton launches through cuLaunchKernel).
constexpr const char* kDefaultDriverPrefixes[] = {
    "cuLaunchKernel",      "cuLaunchCooperativeKernel", "cuGraphLaunch", "cuCtxSynchronize",
    "cuStreamSynchronize", "cuEventSynchronize",        "cuModuleLoad",  "cuLibraryLoad",
    "cuEventRecord",       "cuStreamWaitEvent"};

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

namespace {
// The tracer CUPTI's buffer callbacks reach (they take no userdata): the only
// process-wide pointer of the collector. Set by Start, never cleared; what it points
// to is never destroyed (see activity.h). Constant-initialized, so no static
// constructor or destructor is involved.
std::atomic<ActivityTracer*> g_buffer_tracer{nullptr};
}  // namespace

void CUPTIAPI ActivityTracer::OnBufferRequested(uint8_t** buffer, size_t* size,
                                                size_t* max_records) {
  *buffer = nullptr;
  *size = 0;
  *max_records = 0;
  ActivityTracer* t = g_buffer_tracer.load();
  if (t != nullptr) t->BufferRequested(buffer, size);
}

void ActivityTracer::BufferRequested(uint8_t** buffer, size_t* size) {
  absl::MutexLock lock(&pool_mu_);
  if (!free_buffers_.empty()) {
    *buffer = free_buffers_.back();
    free_buffers_.pop_back();
  } else if (allocated_ < static_cast<uint64_t>(max_buffers_)) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, buffer_bytes_));
    if (*buffer != nullptr) {
      ++allocated_;
      own_buffers_.emplace(*buffer, buffer_bytes_);
    }
  }
  if (*buffer == nullptr) {
    refused_.fetch_add(1, std::memory_order_relaxed);
    return;  // CUPTI drops the records and counts them.
  }
  *size = buffer_bytes_;
}

// Adds what the drain sources (counters, scopes) finished to the batch, hands it to
// the sink when it holds records (or the devices changed) and clears it.
void ActivityTracer::EmitBatch(bool devices_changed) {
  for (DrainSource* drain : drains_) drain->Drain(&batch_);
  if (sink_ && (batch_.record_count() > 0 || devices_changed)) sink_(batch_, devices_changed);
  batch_.ClearRecords();
}

void CUPTIAPI ActivityTracer::OnBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t,
                                                size_t valid_size) {
  ActivityTracer* t = g_buffer_tracer.load();
  if (t == nullptr || buffer == nullptr) return;
  t->BufferCompleted(buffer, valid_size);
}

void ActivityTracer::BufferCompleted(uint8_t* buffer, size_t valid_size) {
  {
    absl::MutexLock lock(&mu_);
    if (converter_ != nullptr && valid_size > 0) {
      converter_->stats().devices_changed = false;
      converter_->AddBuffer(buffer, valid_size);
      EmitBatch(converter_->stats().devices_changed);
    }
  }
  completed_.fetch_add(1, std::memory_order_relaxed);
  absl::MutexLock lock(&pool_mu_);
  auto own = own_buffers_.find(buffer);
  if (own == own_buffers_.end()) {
    // Another client's buffer, delivered to cuscope after it took the callbacks
    // back (Stop): its records are converted; the memory is not ours to reuse or free.
    foreign_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (own->second != buffer_bytes_) {
    // Lent out before a restart with another buffer size: too small (or large) now.
    own_buffers_.erase(own);
    --allocated_;
    std::free(buffer);
    return;
  }
  free_buffers_.push_back(buffer);
}

absl::Status ActivityTracer::Start(const CollectOptions& options, Sink sink) {
  if (running_.load()) return absl::FailedPreconditionError("the tracer is already running");
  g_buffer_tracer.store(this);
  started_once_.store(true);
  {
    // A new session may use another buffer size: pooled buffers of the old size go.
    absl::MutexLock lock(&pool_mu_);
    if (buffer_bytes_ != options.trace.buffer_bytes) {
      for (uint8_t* b : free_buffers_) {
        own_buffers_.erase(b);
        std::free(b);
      }
      allocated_ -= free_buffers_.size();
      free_buffers_.clear();
      buffer_bytes_ = options.trace.buffer_bytes;
    }
    max_buffers_ = options.trace.max_buffers;
    refused_.store(0);
    completed_.store(0);
    records_taken_.store(false);
    foreign_.store(0);
  }
  {
    absl::MutexLock probe_lock(&probe_mu_);
    pending_probe_ = ProbeMark{};  // counts of the converter made below start at 0
  }
  {
    absl::MutexLock lock(&mu_);
    api_records_ = options.trace.api;
    sink_ = std::move(sink);
    batch_ = model::Profile();
    converter_ = std::make_unique<RecordConverter>(
        &batch_, options.counters_enabled() ? measured_ : nullptr);
  }
  // One pool for all threads. CUPTI's default (CUDA 12.3 on) gives each launching
  // thread a buffer of its own: 64 threads held 64 buffers at the pool's cap and CUPTI
  // dropped 649 records on the H200 (tests/gpu/fault_test.cc), with 8 MB per thread.
  // Before the callbacks are registered and the kinds enabled, as CUPTI requires.
  uint8_t per_thread = 0;
  size_t per_thread_size = sizeof(per_thread);
  cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &per_thread_size,
                            &per_thread);
  CUptiResult r = cuptiActivityRegisterCallbacks(OnBufferRequested, OnBufferCompleted);
  if (r != CUPTI_SUCCESS) return CuptiError("cuptiActivityRegisterCallbacks", r);
  absl::Status enabled = EnableKinds(options);
  if (!enabled.ok()) return enabled;
  running_.store(true);
  if (options.capture.mode != CaptureMode::kAll) PauseGpuKinds();
  return absl::OkStatus();
}

absl::Status ActivityTracer::EnableKinds(const CollectOptions& options) {
  std::vector<CUpti_ActivityKind> kinds = {CUPTI_ACTIVITY_KIND_DEVICE};
  const TraceOptions& t = options.trace;
  if (t.kernel) kinds.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (t.memcpy) kinds.push_back(CUPTI_ACTIVITY_KIND_MEMCPY);
  if (t.memset) kinds.push_back(CUPTI_ACTIVITY_KIND_MEMSET);
  if (t.sync) kinds.push_back(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  if (t.nvtx) kinds.push_back(CUPTI_ACTIVITY_KIND_MARKER);
  if (t.overhead) kinds.push_back(CUPTI_ACTIVITY_KIND_OVERHEAD);
  if (t.api == ApiRecords::kAll) {
    kinds.push_back(CUPTI_ACTIVITY_KIND_RUNTIME);
    kinds.push_back(CUPTI_ACTIVITY_KIND_DRIVER);
  }
  {
    absl::MutexLock lock(&kinds_mu_);
    capture_paused_ = false;
    counters_hold_ = false;
    gpu_kinds_on_ = true;
    kernels_disabled_ = false;
    kernels_held_off_.store(false);
    enabled_.clear();
    for (CUpti_ActivityKind k : kinds) {
      CUptiResult r = cuptiActivityEnable(k);
      if (r != CUPTI_SUCCESS) {
        for (CUpti_ActivityKind e : enabled_) cuptiActivityDisable(e);
        enabled_.clear();
        return CuptiError(absl::StrFormat("cuptiActivityEnable(kind %d)", k).c_str(), r);
      }
      enabled_.push_back(k);
    }
    // Which cudaEventRecord each event wait waited for (SyncRecord::event_sync_id): a
    // refinement, so a CUPTI that refuses it costs the link, not the run.
    if (t.sync && cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CUDA_EVENT) == CUPTI_SUCCESS) {
      enabled_.push_back(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
    }
  }
  runtime_cbids_.clear();
  driver_cbids_.clear();
  if (t.api == ApiRecords::kDefault) EnableDefaultApiCalls();
  return absl::OkStatus();
}

// Only the calls that matter: enabling per call keeps the rest untraced.
void ActivityTracer::EnableDefaultApiCalls() {
  for (uint32_t cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) == CUPTI_SUCCESS &&
        name != nullptr && IsDefaultRuntimeApi(name)) {
      cuptiActivityEnableRuntimeApi(cbid, 1);
      runtime_cbids_.push_back(cbid);
    }
  }
  for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) == CUPTI_SUCCESS &&
        name != nullptr && IsDefaultDriverApi(name)) {
      cuptiActivityEnableDriverApi(cbid, 1);
      driver_cbids_.push_back(cbid);
    }
  }
}

namespace {
// Paused: the GPU-side kinds. NVTX ranges and API calls stay recorded: ranges so
// that every region instance shows, API calls so that captured kernels can be
// attributed to their regions (re-enabling per-call API records from inside an
// NVTX callback left them off on the H200: 130 kernels captured, 0 attributed).
bool Pausable(CUpti_ActivityKind k) {
  return k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || k == CUPTI_ACTIVITY_KIND_MEMCPY ||
         k == CUPTI_ACTIVITY_KIND_MEMSET || k == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION ||
         k == CUPTI_ACTIVITY_KIND_CUDA_EVENT || k == CUPTI_ACTIVITY_KIND_OVERHEAD;
}
}  // namespace

void ActivityTracer::ApplyGpuKinds() {
  const bool on = !capture_paused_ && !counters_hold_;
  if (on != gpu_kinds_on_) {
    gpu_kinds_on_ = on;
    kernels_disabled_ = false;
    for (CUpti_ActivityKind k : enabled_) {
      if (!Pausable(k)) continue;
      if (on) {
        cuptiActivityEnable(k);
      } else if (cuptiActivityDisable(k) == CUPTI_SUCCESS &&
                 k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
        kernels_disabled_ = true;
      }
    }
  }
  kernels_held_off_.store(kernels_disabled_ && counters_hold_ && !capture_paused_);
}

void ActivityTracer::PauseGpuKinds() {
  if (!running_.load()) return;
  absl::MutexLock lock(&kinds_mu_);
  capture_paused_ = true;
  ApplyGpuKinds();
}

void ActivityTracer::ResumeGpuKinds() {
  if (!running_.load()) return;
  absl::MutexLock lock(&kinds_mu_);
  capture_paused_ = false;
  ApplyGpuKinds();
}

void ActivityTracer::HoldGpuKinds(bool hold) {
  if (!running_.load()) return;
  absl::MutexLock lock(&kinds_mu_);
  counters_hold_ = hold;
  ApplyGpuKinds();
}

void ActivityTracer::Flush(bool forced) {
  if (!started_once_.load()) return;
  cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  // Scopes closed since the last completed buffer: a program may mark regions
  // without CUDA work, and then no buffer completes to carry them.
  absl::MutexLock lock(&mu_);
  if (converter_ == nullptr || !running_.load()) return;
  EmitBatch(false);
}

// Whether activity records still reach cuscope: one recorded cuDriverGetVersion call
// must come back through cuscope's buffers. torch.profiler
// (Kineto) registers its own buffer callbacks when it starts and disables the kinds
// when it stops; CUPTI keeps one set of callbacks per process, so cuscope gets
// nothing from then on and no error says so.
//
// While the program runs (cuscope's flush thread) the probe goes through whatever
// callbacks are registered. Those flushes are not forced: a forced flush hands over
// the records of kernels still queued or running, with start and end 0 (a GPT-2
// training step traced on the H200 lost the times of 719 of 17,659 kernels that way),
// while an unforced one hands over only buffers whose records are all complete, so a
// probe can stay out for a while (a kernel running for seconds). It stays pending
// until it comes back (no new probe meanwhile), and Stop decides: the pending probe
// and Stop's own must both have come back. At Stop, cuscope first takes the
// callbacks back and only then records and flushes: at exit another client's
// callbacks may belong to objects already destroyed (Kineto's singletons are
// destroyed before cuscope's atexit handler runs; a PyTorch program with
// torch.profiler crashed at exit once on the H200 while cuscope flushed). Then a
// buffer cuscope did not hand out, delivered to it, is the sign.
ActivityTracer::ProbeMark ActivityTracer::RecordProbe(bool pending_out) {
  ProbeMark mark;
  // A probe still out counts as one if it comes back later: records from its time on.
  const bool earlier = pending_out && pending_probe_.made;
  mark.foreign = foreign_.load();
  mark.refused = refused_.load();
  using GetVersion = int (*)(int*);
  auto get_version = reinterpret_cast<GetVersion>(LoadedDriverSymbol("cuDriverGetVersion"));
  uint64_t now = 0;
  if (get_version == nullptr || cuptiGetTimestamp(&now) != CUPTI_SUCCESS) return mark;
  {
    absl::MutexLock lock(&mu_);
    if (converter_ == nullptr) return mark;
    mark.after = earlier ? std::min(now, pending_probe_.after) : now;
    converter_->set_probe_after(mark.after);
    mark.probes = converter_->stats().probe_records;
  }
  cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion, 1);
  int version = 0;
  get_version(&version);
  if (api_records_ != ApiRecords::kAll) {
    cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion, 0);
  }
  mark.made = true;
  return mark;
}

// After a flush: `count` probes made from `mark` on came back. A buffer refused at the
// pool cap drops a probe too: that is not a takeover (dropped records are counted and
// reported on their own).
bool ActivityTracer::RecordsArrived(const ProbeMark& mark, uint64_t count) {
  if (foreign_.load() != mark.foreign) return false;
  if (!mark.made || refused_.load() > mark.refused) return true;
  absl::MutexLock lock(&mu_);
  return converter_ != nullptr && converter_->stats().probe_records >= mark.probes + count;
}

bool ActivityTracer::PeriodicFlush(bool even_if_held) {
  if (!running_.load()) return true;
  // One probe at a time: Stop's and this one must not switch the probe's record off
  // under each other (that would read as a takeover).
  absl::MutexLock probe_lock(&probe_mu_);
  if (!running_.load()) return true;  // Stop came first
  // Busy before looking at the hold, as HoldPeriodicFlush holds before looking at
  // busy: one of the two sees the other.
  periodic_busy_.store(true);
  if (periodic_held_.load() && !even_if_held) {
    periodic_busy_.store(false);
    return false;
  }
  if (!records_taken_.load() && !pending_probe_.made)
    pending_probe_ = RecordProbe(/*pending_out=*/false);
  Flush(/*forced=*/false);
  if (!records_taken_.load()) {
    if (foreign_.load() != pending_probe_.foreign) {
      records_taken_.store(true);  // a buffer cuscope did not hand out
    } else if (pending_probe_.made && RecordsArrived(pending_probe_, 1)) {
      pending_probe_ = ProbeMark{};
    }
  }
  periodic_busy_.store(false);
  return true;
}

void ActivityTracer::FlushAfterReplay() {
  if (running_.load()) Flush(/*forced=*/true);
}

void ActivityTracer::HoldPeriodicFlush(bool hold) {
  periodic_held_.store(hold);
  if (!hold) return;
  // A flush in progress ends first, waited for a bounded time without a lock: this
  // runs inside CUPTI's NVTX callback, and the flush inside cuptiActivityFlushAll.
  for (int i = 0; i < 200 && periodic_busy_.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

void ActivityTracer::Stop(uint64_t end_ns) {
  if (!running_.exchange(false)) return;
  absl::MutexLock probe_lock(&probe_mu_);
  cuptiActivityRegisterCallbacks(OnBufferRequested, OnBufferCompleted);
  // The flush thread's probe, if still out, must come back with Stop's.
  const bool pending = pending_probe_.made && !RecordsArrived(pending_probe_, 1);
  const ProbeMark mark = RecordProbe(pending);
  const ProbeMark& from = pending ? pending_probe_ : mark;
  {
    // A capture window or region counters switching the GPU kinds on another
    // thread (it saw the tracer running) ends first and finds none left to switch.
    absl::MutexLock kinds_lock(&kinds_mu_);
    for (CUpti_ActivityKind k : enabled_) cuptiActivityDisable(k);
    enabled_.clear();
    kernels_disabled_ = false;
    kernels_held_off_.store(false);  // no records to make: none would be drained
  }
  // The calls Start enabled one by one (the probe switches its own off).
  for (uint32_t cbid : runtime_cbids_) cuptiActivityEnableRuntimeApi(cbid, 0);
  for (uint32_t cbid : driver_cbids_) cuptiActivityEnableDriverApi(cbid, 0);
  runtime_cbids_.clear();
  driver_cbids_.clear();
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  // With no probe made this still checks for a buffer cuscope did not hand out.
  const uint64_t expected = (pending ? 1 : 0) + (mark.made ? 1 : 0);
  if (!RecordsArrived(from, expected)) records_taken_.store(true);
  pending_probe_ = ProbeMark{};
  absl::MutexLock lock(&mu_);
  if (converter_ != nullptr) {
    converter_->CloseOpenRanges(end_ns);
    EmitBatch(false);
  }
}

ActivityStats ActivityTracer::stats() {
  ActivityStats out;
  if (!started_once_.load()) return out;
  {
    absl::MutexLock lock(&pool_mu_);
    out.buffers_allocated = allocated_;
    out.buffers_outstanding = allocated_ - free_buffers_.size();
  }
  out.buffers_refused = refused_.load();
  out.records_taken = records_taken_.load();
  out.buffers_completed = completed_.load();
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    out.dropped_records = dropped;
  }
  absl::MutexLock lock(&mu_);
  if (converter_ != nullptr) {
    out.internal_kernels = converter_->stats().internal_kernels;
    out.records = converter_->stats().records;
    out.last_api_end_ns = converter_->stats().last_api_end_ns;
  }
  return out;
}

}  // namespace cuscope::collect
