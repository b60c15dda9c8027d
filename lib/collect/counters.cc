#include "lib/collect/counters.h"

#include <algorithm>
#include <cstdlib>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/launch_params.h"
#include "lib/collect/stderr.h"
#include "lib/model/metrics.h"

namespace cuscope::collect {
void CounterSampler::Note(const std::string& key, const std::string& text) {
  if (notes_.count(key) == 0) {
    notes_[key] = text;
    WriteStderr(absl::StrCat("cuscope: counters: ", text, "\n"));
  }
}

bool CounterSampler::ReinitCounterData(Context& c) {
  Phase timed(HeldPhase::kImage, &planner_->stats().reinit_ns);
  const char* failed_call = "";
  CUptiResult r = c.profiler.InitCounterData(metrics_, c.max_ranges, &failed_call);
  if (r != CUPTI_SUCCESS) {
    c.image.Invalidate();
    Note("counters.status", ExplainCupti(failed_call, r));
    return false;
  }
  ++planner_->stats().reinits;
  c.image.Reset(c.max_ranges);
  if (c.max_ranges > largest_image_ranges_) {  // the largest image
    largest_image_ranges_ = c.max_ranges;
    notes_["counters.image"] = absl::StrFormat(
        "%.1f MiB for %d ranges (%d bytes per range)", c.profiler.counter_data().size() / 1048576.0,
        c.max_ranges, c.profiler.counter_data().size() / std::max<size_t>(1, c.max_ranges));
  }
  return true;
}

bool CounterSampler::SetConfig(Context& c, size_t pass, size_t level) {
  CUptiResult r = c.profiler.SetConfig(image_.image, planner_->region_mode(), planner_->rotate(),
                                       c.max_ranges, pass, level);
  if (r != CUPTI_SUCCESS) {
    Note("counters.status", ExplainCupti("cuptiRangeProfilerSetConfig", r));
    return false;
  }
  return true;
}

// PrepareImage's calls on one context, through the sampler.
class CounterSampler::ImageSetUp final : public ImageCalls {
 public:
  ImageSetUp(CounterSampler& s, Context& c) : s_(s), c_(c) {}
  bool Reenable() override ABSL_NO_THREAD_SAFETY_ANALYSIS { return s_.Reenable(c_); }
  bool Initialize(size_t capacity) override ABSL_NO_THREAD_SAFETY_ANALYSIS {
    c_.max_ranges = capacity;
    return s_.ReinitCounterData(c_);
  }
  bool Configure() override ABSL_NO_THREAD_SAFETY_ANALYSIS { return s_.SetConfig(c_, 0, 1); }

 private:
  CounterSampler& s_;
  Context& c_;
};

bool CounterSampler::PrepareSet(Context& c, size_t ranges) {
  // SetConfig for each pass (a debugging switch) on a used image: not measured.
  if (setconfig_each_pass_) c.image.Invalidate();
  ImageSetUp calls(*this, c);
  if (!PrepareImage(c.image, ranges, size_images_ && !c.sizing_off, planner_->window_limit(),
                    &c.configured, calls)) {
    c.failed = true;
    return false;
  }
  return true;
}

// A new Range Profiler object for a larger image (ImageRanges::Before). A failed
// Disable keeps the object, so that Stop still disables it.
bool CounterSampler::Reenable(Context& c) {
  Phase timed(HeldPhase::kImage, &planner_->stats().reinit_ns);
  CUptiResult r = c.profiler.Disable();
  if (r != CUPTI_SUCCESS) {
    Note("counters.status", ExplainCupti("cuptiRangeProfilerDisable", r));
    return false;
  }
  r = c.profiler.Enable(c.ctx);
  if (r != CUPTI_SUCCESS) {
    Note("counters.status", ExplainCupti("cuptiRangeProfilerEnable", r));
    return false;
  }
  ++planner_->stats().reenables;
  return true;
}

// A profiler whose Disable failed at the last Stop is tried again; if it fails still,
// its context (and the counter image CUPTI may still write) stays alive, apart.
size_t CounterSampler::ClearContexts() {
  size_t kept = 0;
  for (auto& [ctx, c] : contexts_) {
    if (c->profiler.enabled() && c->profiler.Disable() != CUPTI_SUCCESS) {
      still_enabled_.push_back(std::move(c));
      ++kept;
    }
  }
  contexts_.clear();
  return kept;
}

CounterSampler::Context* CounterSampler::GetContext(CUcontext ctx) {
  auto it = contexts_.find(ctx);
  if (it != contexts_.end()) return it->second->failed ? nullptr : it->second.get();
  Phase timed(HeldPhase::kSetup, &planner_->stats().setup_ns);
  return SetUpContext(ctx);
}

// The metric configuration, once per session (at the first measured context).
bool CounterSampler::SetUpMetrics(uint32_t device_id) {
  CUptiResult r = ChipName(device_id, &chip_);
  if (r != CUPTI_SUCCESS) {
    Note("counters.status", ExplainCupti("cuptiDeviceGetChipName", r));
    return false;
  }
  auto host = MetricHost::Create(chip_);
  if (!host.ok()) {
    Note("counters.status", std::string(host.status().message()));
    return false;
  }
  host_ = std::move(*host);
  std::optional<Resolution> resolved = ResolveForChip();
  if (!resolved) return false;
  std::vector<std::string> collected = resolved->CollectedNames();
  auto image = host_->BuildConfig(collected);
  if (!image.ok()) {
    Note("counters.status", std::string(image.status().message()));
    return false;
  }
  metrics_ = collected;
  {
    absl::MutexLock out(&out_mu_);
    out_metrics_.clear();
    for (const ResolvedMetric& m : resolved->metrics) out_metrics_.push_back(m.name);
  }
  const bool substituted = std::any_of(resolved->metrics.begin(), resolved->metrics.end(),
                                       [](const ResolvedMetric& m) { return m.substituted(); });
  if (substituted) resolution_ = std::move(*resolved);
  image_ = std::move(*image);
  planner_->set_passes(image_.passes);
  const bool rotate = planner_->rotate();
  notes_["counters.chip"] = chip_;
  notes_["counters.passes"] = absl::StrCat(image_.passes);
  notes_["counters.strategy"] = planner_->region_mode() ? "region (user range)"
                                : rotate                ? "rotate"
                                                        : "kernel replay";
  if (options_.verbose) {
    Note("counters.config",
         absl::StrFormat("%d metrics on %s in %d passes, %s", metrics_.size(), chip_, image_.passes,
                         rotate ? "rotate" : "kernel replay"));
  }
  return true;
}

// The requested metrics as this chip collects them (lib/collect/metric_resolve.h):
// what a named set needs and the chip lacks is dropped, in one line; a raw name the
// chip lacks is refused with the nearest valid names.
std::optional<Resolution> CounterSampler::ResolveForChip() {
  const std::vector<std::string>& requested = options_.counters.metrics;
  // Every measurement holds the range's duration, a raw list too: rates need it, and a
  // kernel replay launch (which CUPTI leaves without times) is placed with it.
  std::vector<std::string> collected = metrics::ExpandMetrics(requested);
  if (std::find(collected.begin(), collected.end(), metrics::kDuration) == collected.end()) {
    collected.insert(collected.begin(), metrics::kDuration);
  }
  Resolution resolved = ResolveMetrics(chip_, collected, host_->BaseMetrics());
  for (const DroppedMetric& d : resolved.dropped) {
    if (std::find(requested.begin(), requested.end(), d.name) == requested.end()) continue;
    absl::Status st = host_->Validate(d.name);
    if (st.ok())
      st = absl::InvalidArgumentError(absl::StrCat(d.name, " is not available on ", chip_));
    Note("counters.status", std::string(st.message()));
    return std::nullopt;
  }
  if (resolved.metrics.empty()) {
    Note("counters.status", absl::StrCat("none of the requested metrics exists on ", chip_));
    return std::nullopt;
  }
  if (!resolved.dropped.empty()) Note("counters.dropped", resolved.DroppedLine());
  return resolved;
}

CounterSampler::Context* CounterSampler::SetUpContext(CUcontext ctx) {
  auto owned = std::make_unique<Context>();
  Context& c = *owned;
  contexts_[ctx] = std::move(owned);
  c.failed = true;  // until everything below succeeded
  c.device_id = DeviceOf(ctx);
  c.ctx = ctx;
  if (!profiler_initialized_) {
    CUptiResult r = InitializeProfiler();
    if (r != CUPTI_SUCCESS) {
      Note("counters.status", ExplainCupti("cuptiProfilerInitialize", r));
      return nullptr;
    }
    profiler_initialized_ = true;
  }
  if (host_ == nullptr && !SetUpMetrics(c.device_id)) return nullptr;
  CUptiResult r = c.profiler.Enable(ctx);
  if (r != CUPTI_SUCCESS) {
    Note("counters.status", ExplainCupti("cuptiRangeProfilerEnable", r));
    return nullptr;
  }
  const bool rotate = planner_->rotate() && !planner_->region_mode();
  c.max_ranges = rotate ? planner_->window_limit() : 1;
  c.image = ImageRanges(c.max_ranges);
  // Rotate: the first set's PrepareSet sizes the image (and so the object's room).
  if (!rotate) {
    if (!ReinitCounterData(c) || !SetConfig(c, 0, 1)) return nullptr;
    c.configured = true;
  }
  c.failed = false;
  return &c;
}

void CounterSampler::Progress() {
  uint64_t now = MonotonicNs();
  if (now - start_ns_ < 2000000000ull || now - last_progress_ns_ < 2000000000ull) return;
  last_progress_ns_ = now;
  WriteStderr(absl::StrFormat(
      "cuscope: counters: %.0f s: %s%s\n", (now - start_ns_) / 1e9, planner_->Describe(),
      options_.counters.launch_count > 0
          ? absl::StrFormat(", planned at most %d", options_.counters.launch_count)
          : ""));
  AdviseOnce();
}

void CounterSampler::AdviseOnce() {
  if (std::string advice = planner_->ReplayAdviceOnce(); !advice.empty()) {
    WriteStderr(absl::StrCat("cuscope: counters: ", advice, "\n"));
  }
}

namespace {
// A kernel name as the measured-launch table keeps it: 0 for none (then every record
// of the launch counts).
uint64_t NameKey(const std::string& name) {
  if (name.empty()) return 0;
  const uint64_t h = absl::Hash<std::string>()(name);
  return h == 0 ? 1 : h;
}
}  // namespace

void CounterSampler::MarkMeasured(uint32_t correlation_id, const std::string& name) {
  const uint64_t key = NameKey(name);
  absl::MutexLock lock(&measured_mu_);
  measured_.insert_or_assign(correlation_id, key);
}

MeasuredLaunches::Kind CounterSampler::Classify(uint32_t correlation_id,
                                                const std::string& kernel_name) const {
  uint64_t stored = 0;
  {
    absl::MutexLock lock(&measured_mu_);
    auto it = measured_.find(correlation_id);
    if (it == measured_.end()) return Kind::kNotMeasured;
    stored = it->second;
  }
  // A launch or a record without a name cannot be told apart: every record counts.
  if (stored == 0 || kernel_name.empty()) return Kind::kMeasured;
  return stored == NameKey(kernel_name) ? Kind::kMeasured : Kind::kProfilerKernel;
}

absl::Status CounterSampler::Start(const CollectOptions& options) {
  absl::MutexLock switch_lock(&switch_mu_);
  absl::MutexLock lock(&mu_);
  if (active_) return absl::AlreadyExistsError("counters already started");
  options_ = options;
  const CounterOptions& counters = options.counters;
  const bool region_mode = counters.region_counters && !counters.regions.empty();
  region_hold_kernels_ = options.trace.kernel && NeedsInstrumentedCounters(counters);
  // Instruction counters read 0 under user replay while kernels are traced (H200): rotate
  // holds kernel records off while a set runs, as region counters do inside an instance.
  rotate_hold_kernels_ = region_hold_kernels_ && !region_mode && UsesRotate(counters);
  {
    absl::MutexLock hold_lock(&hold_mu_);  // the tracer's Start released its hold
    sets_holding_kernels_ = 0;
    kernels_held_ = false;
  }
  release_pending_.store(false);
  // A new session starts clean: contexts were disabled at the last Stop, and the
  // metric list may differ.
  planner_.emplace(counters, /*rotate=*/region_mode || UsesRotate(counters), region_mode);
  {
    absl::MutexLock measured_lock(&measured_mu_);
    measured_.clear();  // this session's launches only
  }
  region_.reset();
  region_reserved_ = false;
  region_paused_tracing_ = false;
  start_ns_ = MonotonicNs();
  const size_t kept = ClearContexts();
  notes_.clear();
  if (kept > 0) {
    Note("counters.disable",
         absl::StrFormat("the Range Profiler of %d context(s) could not be disabled after the last "
                         "session: counters there may fail to start",
                         kept));
  }
  NoteRotateSettings(counters, region_mode);
  host_.reset();
  metrics_.clear();
  resolution_.reset();
  {
    absl::MutexLock out(&out_mu_);
    out_metrics_.clear();
  }
  device_metrics_done_.clear();
  windows_logged_ = 0;
  null_context_launches_ = 0;
  made_dropped_ = 0;
  ResetIdle();
  const char* internal = std::getenv("CUSCOPE_INTERNAL_SETCONFIG");
  setconfig_each_pass_ = internal != nullptr && internal[0] == '1';
  const char* sizing = std::getenv("CUSCOPE_INTERNAL_IMAGE_SIZING");
  size_images_ = sizing == nullptr || sizing[0] != '0';
  largest_image_ranges_ = 0;
  if (region_mode) {
    // Regions arrive from region tracking (OnRegionPush/Pop); no launch callbacks.
    active_ = true;
    active_flag_.store(true);
    region_mode_flag_.store(true);
    return absl::OkStatus();
  }
  absl::Status subscribed = callbacks_->Add(CallbackSubscription::kCounters);
  if (!subscribed.ok()) return subscribed;
  for (const auto& [domain, cbid] : LaunchCallbacks()) {
    callbacks_->Enable(domain, cbid).IgnoreError();
  }
  active_ = true;
  active_flag_.store(true);
  return absl::OkStatus();
}

void CounterSampler::Stop() {
  absl::MutexLock switch_lock(&switch_mu_);
  StopLocked();
  ReleaseKernelHold();  // every set ended in StopLocked
  // Outside the lock: unsubscribing may wait for callbacks that want it.
  callbacks_->Remove(CallbackSubscription::kCounters);
}

void CounterSampler::StopLocked() {
  absl::MutexLock lock(&mu_);
  if (!active_) return;
  active_flag_.store(false);
  region_mode_flag_.store(false);
  active_ = false;
  if (region_) {
    notes_["counters.region_open"] = absl::StrFormat(
        "region '%s' was still open at the end: its last instance is not measured", region_->path);
    // The held GPU kinds stay off: the tracer stops next, and its Start resets them.
    CloseRegion(false);
  }
  CounterStats& stats = planner_->stats();
  for (auto& [ctx, c] : contexts_) {
    if (!c->profiler.enabled()) continue;
    if (!c->failed && planner_->rotate() && !planner_->region_mode()) {
      EndRotate(*c);
    }
    SetInProgress(*c, false);  // a hold left by a set that could not end (none expected)
    // Failed contexts too: a later session must be able to enable the profiler again.
    if (CUptiResult r = c->profiler.Disable(); r != CUPTI_SUCCESS) {
      Note("counters.disable", ExplainCupti("cuptiRangeProfilerDisable", r));
    }
    c->failed = true;
  }
  if (null_context_launches_ > 0) {
    notes_["counters.no_context_callbacks"] = absl::StrCat(null_context_launches_);
  }
  planner_->budget().Observe(MonotonicNs());  // the share up to the end, callbacks off or on
  NoteIdle();
  notes_["counters.launches_measured"] = absl::StrCat(stats.launches_measured);
  notes_["counters.samples_complete"] = absl::StrCat(stats.sets_complete);
  notes_["counters.samples_dropped"] = absl::StrCat(stats.sets_dropped);
  if (host_ != nullptr) {
    Note("counters.summary", absl::StrCat(notes_["counters.strategy"], ": ", planner_->Describe()));
  }
  if (std::string advice = planner_->ReplayAdvice(); !advice.empty()) {
    Note("counters.advice", advice);
  }
  notes_["counters.setup_ms"] = absl::StrFormat("%.1f", stats.setup_ns / 1e6);
  notes_["counters.measure_ms"] = absl::StrFormat("%.1f", stats.measure_ns / 1e6);
  notes_["counters.host_ms"] = absl::StrFormat(
      "decode %.1f, evaluate %.1f, counter image initialized %.1f (%d times%s)",
      stats.decode_ns / 1e6, stats.evaluate_ns / 1e6, stats.reinit_ns / 1e6, stats.reinits,
      stats.reenables > 0
          ? absl::StrFormat(", %d of them on a new Range Profiler object", stats.reenables)
          : "");
}

// Timed with the cheap monotonic clock on every callback; CUPTI's clock is read only
// for a span worth recording, whose start is then its end minus its length.
thread_local CounterSampler::HeldTimer* CounterSampler::HeldTimer::current_ = nullptr;

CounterSampler::HeldTimer::HeldTimer(CounterSampler* sampler)
    : sampler_(sampler), start_(MonotonicNs()), outer_(current_) {
  current_ = this;
}

CounterSampler::HeldTimer::~HeldTimer() {
  current_ = outer_;
  const uint64_t now = MonotonicNs();
  const uint64_t held = now - start_;
  uint64_t end = 0;
  if (held < kRecordedHeldNs || cuptiGetTimestamp(&end) != CUPTI_SUCCESS || end < held) return;
  // CUPTI's clock at `now`: the phases move by the same offset.
  absl::MutexLock lock(&sampler_->out_mu_);
  for (const HeldSpan& s : SplitHeld(start_, now, phases_, kFoldedOtherNs)) {
    sampler_->pending_held_.push_back({s.phase, end - (now - s.start_ns), end - (now - s.end_ns)});
  }
}

CounterSampler::Phase::~Phase() {
  const uint64_t now = MonotonicNs();
  if (sum_ != nullptr) *sum_ += now - t0_;
  HeldTimer* held = HeldTimer::current_;
  if (held == nullptr) return;
  // A few spans a callback, without allocating: a phase like the last one (a set's
  // ranges evaluated one by one), or one past the room, extends the last.
  auto& phases = held->phases_;
  if (!phases.empty() && (phases.back().phase == phase_ || phases.size() == phases.capacity())) {
    phases.back().end_ns = std::max(phases.back().end_ns, now);
  } else {
    phases.push_back({phase_, t0_, now});
  }
}

void CounterSampler::Drain(model::Profile* batch) {
  absl::MutexLock lock(&out_mu_);
  for (auto& p : pending_) {
    model::CounterSet set;
    set.device_id = p.device_id;
    set.name = batch->strings.Intern(p.sig.name);
    set.grid = p.sig.grid;
    set.block = p.sig.block;
    set.strategy = p.strategy;
    set.passes = p.passes;
    set.correlation_ids = std::move(p.correlation_ids);
    for (size_t i = 0; i < p.values.size() && i < out_metrics_.size(); ++i) {
      set.values.emplace_back(batch->strings.Intern(out_metrics_[i]), p.values[i]);
    }
    batch->counters.push_back(std::move(set));
  }
  pending_.clear();
  DrainHeldLaunches(batch);
  for (const HeldSpan& held : pending_held_) {
    model::OverheadRecord o;
    o.start_ns = held.start_ns;
    o.end_ns = held.end_ns;
    o.kind = batch->strings.Intern(HeldPhaseKind(held.phase));
    batch->overheads.push_back(o);
  }
  pending_held_.clear();
  for (auto& [device, values] : pending_device_values_) {
    for (size_t i = 0; i < values.size() && i < out_metrics_.size(); ++i) {
      const std::string& m = out_metrics_[i];
      bool is_peak = m.size() > 15 && m.compare(m.size() - 15, 15, ".peak_sustained") == 0;
      bool is_clock = m.find(".per_second") != std::string::npos;
      if (!is_peak && !is_clock) continue;
      model::DeviceMetric dm;
      dm.device_id = device;
      dm.metric = batch->strings.Intern(m);
      dm.value = values[i];
      batch->device_metrics.push_back(dm);
    }
  }
  pending_device_values_.clear();
}

std::map<std::string, std::string> CounterSampler::Notes() {
  absl::MutexLock lock(&mu_);
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : notes_) {
    if (k != "counters.config") out[k] = v;
  }
  return out;
}

}  // namespace cuscope::collect
