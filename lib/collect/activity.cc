#include "lib/collect/activity.h"

#include <cupti.h>

#include "absl/strings/str_format.h"

namespace cuscope::collect {
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
  if (t != nullptr) *buffer = t->pool_.Lend(size);
}

void CUPTIAPI ActivityTracer::OnBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t,
                                                size_t valid_size) {
  ActivityTracer* t = g_buffer_tracer.load();
  if (t == nullptr || buffer == nullptr) return;
  t->batch_.AddBuffer(buffer, valid_size);
  t->pool_.Return(buffer);
}

absl::Status ActivityTracer::Start(const CollectOptions& options, Sink sink) {
  if (running_.load()) return absl::FailedPreconditionError("the tracer is already running");
  g_buffer_tracer.store(this);
  started_once_.store(true);
  // A new session may use another buffer size: pooled buffers of the old size go.
  pool_.Configure(options.trace.buffer_bytes, options.trace.max_buffers);
  probe_.Reset(options.trace.api);
  batch_.Reset(std::move(sink), options.counters_enabled());
  // One pool for all threads unless asked otherwise. CUPTI's default (CUDA 12.3 on)
  // gives each launching thread a buffer of its own: with many launching threads the
  // pool's cap is reached and CUPTI drops records (tests/gpu/fault_test.cc).
  // Before the callbacks are registered and the kinds enabled, as CUPTI requires.
  uint8_t per_thread = options.trace.per_thread_buffers ? 1 : 0;
  size_t per_thread_size = sizeof(per_thread);
  cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &per_thread_size,
                            &per_thread);
  CUptiResult r = cuptiActivityRegisterCallbacks(OnBufferRequested, OnBufferCompleted);
  if (r != CUPTI_SUCCESS) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    return absl::InternalError(
        absl::StrFormat("cuptiActivityRegisterCallbacks failed: %s", s ? s : "unknown error"));
  }
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
  absl::Status enabled = kinds_.Enable(kinds, /*with_cuda_events=*/t.sync);
  if (!enabled.ok()) return enabled;
  api_calls_ = DefaultApiCalls();
  if (t.api == ApiRecords::kDefault) api_calls_.Enable();
  return absl::OkStatus();
}

void ActivityTracer::PauseGpuKinds() {
  if (running_.load()) kinds_.Pause(true);
}

void ActivityTracer::ResumeGpuKinds() {
  if (running_.load()) kinds_.Pause(false);
}

void ActivityTracer::HoldGpuKinds(bool hold) {
  if (running_.load()) kinds_.Hold(hold);
}

void ActivityTracer::Flush(bool forced) {
  if (!started_once_.load()) return;
  cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  // Scopes closed since the last completed buffer: a program may mark regions
  // without CUDA work, and then no buffer completes to carry them.
  batch_.EmitIfRunning(running_);
}

bool ActivityTracer::PeriodicFlush(bool even_if_held) {
  return probe_.PeriodicFlush(even_if_held, running_, [this] { Flush(/*forced=*/false); });
}

void ActivityTracer::FlushAfterReplay() {
  if (running_.load()) Flush(/*forced=*/true);
}

void ActivityTracer::Stop(uint64_t end_ns) {
  if (!running_.exchange(false)) return;
  probe_.Stop([] { cuptiActivityRegisterCallbacks(OnBufferRequested, OnBufferCompleted); },
              [this] {
                // A capture window or region counters switching the GPU kinds on another
                // thread (it saw the tracer running) ends first and finds none left to switch.
                kinds_.DisableAll();
                // The calls Start enabled one by one (the probe switches its own off).
                api_calls_.Disable();
                cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
              },
              [this, end_ns] { batch_.CloseAndEmit(end_ns); });
  // Every record is in the profile: the buffers waiting in the pool are memory that
  // the run's end (the profile read back for the report) can use.
  pool_.ReleasePooled();
}

ActivityStats ActivityTracer::stats() {
  ActivityStats out;
  if (!started_once_.load()) return out;
  const BufferPool::Counts counts = pool_.counts();
  out.buffers_allocated = counts.most;
  out.buffers_outstanding = counts.outstanding;
  out.buffers_refused = pool_.refused();
  out.records_taken = probe_.records_taken();
  out.buffers_completed = pool_.completed();
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    out.dropped_records = dropped;
  }
  const ConvertStats converted = batch_.stats();
  out.internal_kernels = converted.internal_kernels;
  out.records = converted.records;
  out.last_api_end_ns = converted.last_api_end_ns;
  return out;
}

}  // namespace cuscope::collect
