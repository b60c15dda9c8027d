#include "lib/collect/gpu_sampler.h"

#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/collect/cupti_result.h"
#include "lib/collect/driver.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/own_spans.h"
#include "lib/model/metrics.h"

namespace cuscope::collect {

absl::Status GpuSampler::Start(const SamplingOptions& options) {
  // The thread of an earlier session has ended (Stop joined it): its state is ours.
  // Unless it was left running (it did not stop in time): then no sampling again.
  if (abandoned_) {
    absl::MutexLock lock(&mu_);
    notes_ = model::RunNotes();  // the earlier session's: not this run's
    return absl::UnavailableError("off: the sampler of an earlier session did not stop in time");
  }
  options_ = options;
  sampled_base_ns_ = SampledNs();
  if (options_.metrics.empty()) options_.metrics = metrics::DefaultSampledMetrics();
  samples_ = lost_ = bad_times_ = long_ = decode_ns_ = bursts_ = 0;
  decodes_logged_ = 0;
  overflow_ = capped_ = behind_ = false;
  {
    absl::MutexLock lock(&mu_);
    running_ = true;
    stopping_ = false;
    finished_ = false;
    notes_ = model::RunNotes();
    ready_.clear();
    configs_ready_.clear();
  }
  absl::Status st = callbacks_->Add(CallbackSubscription::kSampler);
  if (st.ok()) {
    st = callbacks_->Enable(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  }

  // Without the callback, the primary contexts active when the thread starts are still
  // sampled.
  if (!st.ok()) Note(&model::RunNotes::gpu_metrics_contexts, std::string(st.message()));
  thread_ = std::thread([this] { Run(); });
  return absl::OkStatus();
}

void GpuSampler::OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || cbid != CUPTI_CBID_RESOURCE_CONTEXT_CREATED) return;
  const auto* r = static_cast<const CUpti_ResourceData*>(data);
  uint32_t device = 0;
  if (r == nullptr || cuptiGetDeviceId(r->context, &device) != CUPTI_SUCCESS) return;
  absl::MutexLock lock(&mu_);
  if (running_) asked_.insert(device);
}

void GpuSampler::Stop(bool wait) {
  // One Stop at a time: the exit handler's, a signal's and the session's can meet.
  std::lock_guard<std::mutex> serial(stop_mu_);
  {
    absl::MutexLock lock(&mu_);
    if (!running_) return;
    stopping_ = true;
  }
  // The thread stops sampling and decodes what is left: it is waited for, up to
  // kStopWaitMs (a CUPTI call that blocks at exit must not hang the program).
  bool finished = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kStopWaitMs);
  while (wait) {
    {
      absl::MutexLock lock(&mu_);
      finished = finished_;
    }
    if (finished || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (thread_.joinable()) {
    if (finished) {
      thread_.join();
    } else {
      thread_.detach();
      abandoned_ = true;
      if (wait) {
        Note(&model::RunNotes::gpu_metrics_status,
             absl::StrCat("sampling did not stop within ", kStopWaitMs / 1000,
                          " s: the samples not yet decoded are lost"));
      }
    }
  }
  callbacks_->Remove(CallbackSubscription::kSampler);
  absl::MutexLock lock(&mu_);
  running_ = false;
}

namespace {
// The sampler StopAtExit registered (the session's lives on), and its process: a
// forked child inherits the handler but not the sampler's thread.
std::atomic<GpuSampler*> g_exit_sampler{nullptr};
std::atomic<pid_t> g_exit_pid{0};
void StopSamplerAtExit() {
  GpuSampler* s = g_exit_sampler.load();
  if (s != nullptr && getpid() == g_exit_pid.load()) s->Stop();
}
}  // namespace

GpuSampler::~GpuSampler() {
  Stop();
  GpuSampler* self = this;
  g_exit_sampler.compare_exchange_strong(self, nullptr);
}

void GpuSampler::StopAtExit() {
  // Registered after the CUDA runtime's own exit handlers (a device is set up once the
  // program's CUDA is initialized): handlers run last-registered first, so sampling
  // stops while the contexts still exist. It must not wait for cuscope's own exit
  // handler (registered inside cuInit, so run after the runtime's): the contexts are
  // gone by then and stopping PM sampling crashes the program (docs/validation.md,
  // "Facts the code relies on"). One sampler per process (the session's).
  static std::once_flag once;
  std::call_once(once, [this] {
    g_exit_pid = getpid();
    g_exit_sampler = this;
    std::atexit(StopSamplerAtExit);
  });
}

int GpuSampler::StopDevices(const std::set<uint32_t>& skip) {
  int stopped = 0;
  for (auto& d : devices_) {
    if (abandoned_.load()) break;
    if (skip.count(d->index()) != 0 || !d->started()) continue;
    ++stopped;
    absl::Status st = d->Stop();
    if (!st.ok()) Note(&model::RunNotes::gpu_metrics_status, std::string(st.message()));
  }
  return stopped;
}

int GpuSampler::WaitMs() const {
  if (options_.burst_samples == 0) return kDecodePeriodMs;
  const uint64_t burst_ms = options_.burst_samples * options_.interval_ns / 1000000;
  return static_cast<int>(std::clamp<uint64_t>(burst_ms, 10, kDecodePeriodMs));
}

void GpuSampler::Run() {
  Resume();
  bool polled = false;
  const bool bursts = options_.burst_samples > 0;
  for (;;) {
    // Sleeps in steps of 10 ms (no CondVar or Await: the TSan build sees only
    // absl::Mutex's Lock and Unlock, tests/fake_cupti/absl_mutex_tsan.cc).
    for (int waited = 0; waited < WaitMs(); waited += 10) {
      {
        absl::MutexLock lock(&mu_);
        if (stopping_ || !asked_.empty()) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // Contexts made before the start (a linked program that starts cuscope late), asked
    // after the first wait: an injected session starts inside cuInit, which must have
    // returned before the driver is asked anything.
    std::set<uint32_t> asked;
    if (!polled) {
      polled = true;
      asked = ActivePrimaryContexts();
    }
    bool stopping;
    {
      absl::MutexLock lock(&mu_);
      stopping = stopping_;
      asked.insert(asked_.begin(), asked_.end());
      asked_.clear();
    }
    // Devices set up now have just started: their first burst is the next one.
    const std::set<uint32_t> fresh = stopping ? std::set<uint32_t>() : SetUp(asked);
    // The end of a burst (or of the run): the devices stop while their samples are
    // decoded, then start again.
    if (stopping && options_.verbose) std::fputs("cuscope: gpu metrics: stopping\n", stderr);
    if ((stopping || bursts) && StopDevices(fresh) > 0 && !stopping) ++bursts_;
    // Stop gave up waiting (the process may be exiting): no more CUPTI calls.
    if (abandoned_.load()) return;
    DecodeAll();
    if (abandoned_.load()) return;
    if (stopping && options_.verbose) std::fputs("cuscope: gpu metrics: stopped\n", stderr);
    if (stopping) break;
    if (bursts && !capped_) Resume(/*configs=*/false);
  }
  EndNotes();
}

uint64_t GpuSampler::SampledNs() const {
  uint64_t ns = 0;
  for (const auto& d : devices_) ns += d->sampled_ns();
  return ns;
}

void GpuSampler::EndNotes() {
  const bool bursts = options_.burst_samples > 0;
  absl::MutexLock lock(&mu_);
  finished_ = true;
  notes_.gpu_metrics_samples = static_cast<int64_t>(samples_);
  notes_.gpu_metrics_sampled_ms = absl::StrFormat("%.1f", (SampledNs() - sampled_base_ns_) / 1e6);
  if (bursts) {
    notes_.gpu_metrics_bursts =
        absl::StrCat(bursts_ + 1, " bursts of ", WaitMs(), " ms (gpu_metrics_burst_samples ",
                     options_.burst_samples, " at ", options_.interval_ns / 1000,
                     " us, within 10-100 ms), each paused while it was decoded");
  }
  if (behind_) {
    notes_.gpu_metrics_behind =
        "decoding fell behind the sampling: the oldest samples of the GPU's buffer were "
        "overwritten (bursts, gpu_metrics_burst_samples, or a longer interval keep up)";
  }
  if (long_ > 0) {
    notes_.gpu_metrics_long = absl::StrCat(
        long_,
        " samples dropped: each spanned over 10 intervals (the first sample after sampling "
        "starts can hold the time before it)");
  }
  // The decoding thread's time (it runs beside the program; what it costs the program is
  // in the step times, not here).
  notes_.gpu_metrics_decode_ms = absl::StrFormat("%.1f", decode_ns_ / 1e6);
  if (lost_ > 0) {
    notes_.gpu_metrics_lost =
        absl::StrCat(lost_, " samples after the first ", options_.max_samples,
                     " (gpu_metrics_max_samples) were decoded and dropped; sampling stopped "
                     "there");
  }
  if (bad_times_ > 0) {
    notes_.gpu_metrics_bad_times = absl::StrCat(
        bad_times_,
        " samples dropped: their times cannot be the run's (the GPU's sample clock does not "
        "match the records' clock, or a sample ends before it starts)");
  }
  if (overflow_) {
    notes_.gpu_metrics_overflow =
        "the GPU's sample buffer overflowed: samples were lost (a longer gpu_metrics_interval_us "
        "keeps up)";
  }
}

std::set<uint32_t> GpuSampler::SetUp(const std::set<uint32_t>& devices) {
  std::set<uint32_t> started;
  for (uint32_t index : devices) {
    if (abandoned_.load()) break;
    if (capped_ || !tried_.insert(index).second) continue;
    if (!profiler_initialized_) {
      // Before any device query: cuptiDeviceGetChipName needs it (it crashes without).
      CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
      const CUptiResult r = cuptiProfilerInitialize(&init);
      if (r != CUPTI_SUCCESS) {
        Note(&model::RunNotes::gpu_metrics_status,
             absl::StrCat("cuptiProfilerInitialize failed: ", CuptiResultString(r)));
        continue;
      }
      profiler_initialized_ = true;
    }
    CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = index;
    const CUptiResult r = cuptiDeviceGetChipName(&cn);
    if (r != CUPTI_SUCCESS || cn.pChipName == nullptr) {
      Note(&model::RunNotes::gpu_metrics_status,
           absl::StrCat("GPU ", index, ": cuptiDeviceGetChipName failed: ", CuptiResultString(r)));
      continue;
    }
    const std::string chip = cn.pChipName;
    const uint64_t t0 = MonotonicNs();
    auto it = choices_.find(chip);
    if (it == choices_.end()) {
      absl::StatusOr<PmDevice::Choice> choice = PmDevice::ChooseMetrics(chip, options_.metrics);
      if (!choice.ok()) {
        Note(&model::RunNotes::gpu_metrics_status, std::string(choice.status().message()));
        continue;
      }
      it = choices_.emplace(chip, *std::move(choice)).first;
      if (!it->second.left_out.empty()) {
        Note(&model::RunNotes::gpu_metrics_left_out, absl::StrJoin(it->second.left_out, "; "));
      }
    }
    const uint64_t t1 = MonotonicNs();
    absl::StatusOr<std::unique_ptr<PmDevice>> d =
        PmDevice::Start(index, chip, it->second.metrics, options_.interval_ns);
    // The set-up's cost, on this thread: no sample is taken before it ends.
    Note(&model::RunNotes::gpu_metrics_setup_ms,
         absl::StrFormat("GPU %u: %.0f ms choosing the metrics, %.0f ms starting", index,
                         (t1 - t0) / 1e6, (MonotonicNs() - t1) / 1e6));
    if (!d.ok()) {
      Note(&model::RunNotes::gpu_metrics_status,
           absl::StrCat("GPU ", index, " (", chip, "): ", d.status().message()));
      continue;
    }
    Note(&model::RunNotes::gpu_metrics_metrics, absl::StrJoin(it->second.metrics, ", "));
    StopAtExit();
    absl::MutexLock lock(&mu_);
    configs_ready_.push_back({index, options_.interval_ns, it->second.metrics});
    devices_.push_back(*std::move(d));
    started.insert(index);
  }
  return started;
}

void GpuSampler::Resume(bool configs) {
  for (auto& d : devices_) {
    if (abandoned_.load()) break;
    absl::Status st = d->Resume(options_.interval_ns);
    if (!st.ok()) {
      Note(&model::RunNotes::gpu_metrics_status,
           absl::StrCat("GPU ", d->index(), ": ", st.message()));
      continue;
    }
    if (!configs) continue;
    absl::MutexLock lock(&mu_);
    configs_ready_.push_back({d->index(), options_.interval_ns, d->metrics()});
  }
}

void GpuSampler::DropBadTimes(std::vector<model::GpuSample>& samples) {
  constexpr uint64_t kMinute = 60'000'000'000;
  uint64_t now = 0;
  const bool clock = cuptiGetTimestamp(&now) == CUPTI_SUCCESS;
  const uint64_t earliest = options_.run_start_ns > kMinute ? options_.run_start_ns - kMinute : 0;
  const uint64_t latest = now + kMinute;
  // A sample over 10 intervals long: the first after a start can begin seconds
  // before it, its values spread over that time (docs/validation.md, "Facts the code
  // relies on").
  const uint64_t longest = 10 * options_.interval_ns;
  samples.erase(std::remove_if(samples.begin(), samples.end(),
                               [&](const model::GpuSample& g) {
                                 if (g.end_ns < g.start_ns ||
                                     (clock && (g.start_ns < earliest || g.end_ns > latest))) {
                                   ++bad_times_;
                                   return true;
                                 }
                                 if (g.end_ns - g.start_ns <= longest) return false;
                                 ++long_;
                                 return true;
                               }),
                samples.end());
}

void GpuSampler::DecodeAll() {
  AddElapsed timed{&decode_ns_, MonotonicNs()};
  std::vector<model::GpuSample> decoded;
  std::vector<model::OwnInterval> own;  // the decodes long enough to record (own_time.h)
  for (auto& d : devices_) {
    if (abandoned_.load()) break;
    const uint64_t have = samples_ + decoded.size();
    const size_t room = have < options_.max_samples ? options_.max_samples - have : 0;
    const uint64_t start_ns = MonotonicNs();
    absl::StatusOr<PmDevice::Decoded> got = d->Decode(room, &decoded, abandoned_);
    if (auto o = OwnSpanUntilNow(model::OwnKind::kPmDecode, start_ns, kRecordedBackgroundNs)) {
      o->device_id = d->index();
      own.push_back(*o);
    }
    if (options_.verbose) LogDecode(d->index(), got);
    if (!got.ok()) {
      Note(&model::RunNotes::gpu_metrics_status,
           absl::StrCat("GPU ", d->index(), ": ", got.status().message()));
      continue;
    }
    lost_ += got->dropped;
    overflow_ = overflow_ || got->overflow;
    behind_ = behind_ || got->behind;
  }
  DropBadTimes(decoded);
  samples_ += decoded.size();
  if (samples_ >= options_.max_samples && !capped_) {
    // The cap is reached: the GPUs stop sampling (what their buffers hold is still
    // decoded, then dropped and counted).
    capped_ = true;
    StopDevices();
  }
  if (decoded.empty() && own.empty()) return;
  absl::MutexLock lock(&mu_);
  own_ready_.insert(own_ready_.end(), own.begin(), own.end());
  ready_.insert(ready_.end(), std::make_move_iterator(decoded.begin()),
                std::make_move_iterator(decoded.end()));
}

void GpuSampler::LogDecode(uint32_t device, const absl::StatusOr<PmDevice::Decoded>& got) {
  if (got.ok() && got->samples == 0 && got->dropped == 0) return;
  if (++decodes_logged_ > 200) return;
  uint64_t now = 0;
  if (cuptiGetTimestamp(&now) != CUPTI_SUCCESS) now = 0;
  const double t0 = static_cast<double>(options_.run_start_ns);
  std::string line;
  if (!got.ok()) {
    line = absl::StrFormat("cuscope: gpu metrics: GPU %u at %.1f ms: %s\n", device,
                           (now - t0) / 1e6, got.status().message());
  } else {
    const std::string span = got->first_ns == 0
                                 ? std::string("-")
                                 : absl::StrFormat("%.2f..%.2f ms", (got->first_ns - t0) / 1e6,
                                                   (got->last_ns - t0) / 1e6);
    line = absl::StrFormat(
        "cuscope: gpu metrics: GPU %u at %.1f ms: %d decode calls, %d samples (%s), %d dropped, "
        "stop reason %d%s%s\n",
        device, (now - t0) / 1e6, got->rounds, got->samples, span, got->dropped, got->stop_reason,
        got->overflow ? ", overflow" : "", got->behind ? ", behind" : "");
  }
  std::fputs(line.c_str(), stderr);
}

void GpuSampler::Drain(model::Profile* batch) {
  absl::MutexLock lock(&mu_);
  for (const Config& c : configs_ready_) {
    model::GpuSampleConfig config;
    config.device_id = c.device_id;
    config.interval_ns = c.interval_ns;
    for (const std::string& m : c.metrics) config.metrics.push_back(batch->strings.Intern(m));
    batch->sample_configs.push_back(std::move(config));
  }
  configs_ready_.clear();
  if (batch->samples.empty()) {
    batch->samples.swap(ready_);
  } else {
    batch->samples.insert(batch->samples.end(), std::make_move_iterator(ready_.begin()),
                          std::make_move_iterator(ready_.end()));
  }
  ready_.clear();
  batch->own_time.insert(batch->own_time.end(), own_ready_.begin(), own_ready_.end());
  own_ready_.clear();
}

model::RunNotes GpuSampler::Notes() {
  absl::MutexLock lock(&mu_);
  return notes_;
}

void GpuSampler::Note(model::NoteText model::RunNotes::*note, const std::string& text) {
  absl::MutexLock lock(&mu_);
  std::string& held = notes_.*note;
  if (held.find(text) == std::string::npos) model::AddNote(&held, text);
}

std::set<uint32_t> GpuSampler::ActivePrimaryContexts() {
  std::set<uint32_t> out;
  using CountFn = int (*)(int*);
  using GetFn = int (*)(int*, int);
  using StateFn = int (*)(int, unsigned*, int*);
  auto count = reinterpret_cast<CountFn>(LoadedDriverSymbol("cuDeviceGetCount"));
  auto get = reinterpret_cast<GetFn>(LoadedDriverSymbol("cuDeviceGet"));
  auto state = reinterpret_cast<StateFn>(LoadedDriverSymbol("cuDevicePrimaryCtxGetState"));
  int n = 0;
  if (count == nullptr || get == nullptr || state == nullptr || count(&n) != 0) return out;
  for (int i = 0; i < n; ++i) {
    int device = 0;
    unsigned flags = 0;
    int active = 0;
    if (get(&device, i) == 0 && state(device, &flags, &active) == 0 && active != 0) {
      out.insert(static_cast<uint32_t>(i));
    }
  }
  return out;
}

}  // namespace cuscope::collect
