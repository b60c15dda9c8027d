#include "lib/collect/counters.h"

#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/activity.h"
#include "lib/collect/callbacks.h"
#include "lib/collect/capture.h"
#include "lib/collect/convert.h"
#include "lib/collect/driver.h"
#include "lib/collect/metric_host.h"
#include "lib/model/metrics.h"

namespace cuscope::collect::counters {
namespace {

std::string ResultString(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : absl::StrCat("CUPTI error ", static_cast<int>(r));
}

std::string Explain(const char* what, CUptiResult r) {
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
    return absl::StrCat(
        "not permitted (ERR_NVGPUCTRPERM) at ", what,
        ": GPU performance counters are restricted to administrators; run as root or set "
        "`options nvidia NVreg_RestrictProfilingToAdminUsers=0` (modprobe) and reload the driver");
  }
  if (r == CUPTI_ERROR_HARDWARE_BUSY) {
    return absl::StrCat("counters busy at ", what,
                        ": another profiler (ncu, nsys, DCGM, PM sampling) holds them");
  }
  if (r == CUPTI_ERROR_NOT_SUPPORTED || r == CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED) {
    return absl::StrCat("not supported on this device at ", what, ": ", ResultString(r));
  }
  return absl::StrCat(what, " failed: ", ResultString(r));
}

uint64_t NowNs();

// Adds the time from its construction to its destruction to *sum.
struct AddElapsed {
  uint64_t* sum;
  uint64_t t0;
  ~AddElapsed() { *sum += NowNs() - t0; }
};

uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
}

struct Signature {
  std::string name;
  model::Dim3 grid, block;
  bool operator==(const Signature& o) const {
    return name == o.name && grid == o.grid && block == o.block;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Signature& s) {
    return H::combine(std::move(h), s.name, s.grid.x, s.grid.y, s.grid.z, s.block.x,
                      s.block.y, s.block.z);
  }
};

struct Launch {
  Signature sig;
  uint32_t correlation_id = 0;
};

struct Context {
  CUcontext ctx = nullptr;
  uint32_t device_id = 0;
  CUpti_RangeProfiler_Object* object = nullptr;
  std::vector<uint8_t> counter_data;
  size_t max_ranges = 1;
  bool failed = false;
  // Rotate: the windows of the set in progress, one per pass so far.
  bool window_open = false;
  size_t window_cap = 1;
  Signature window_sig;
  std::optional<Signature> last_sig;  // the last launch seen on this context
  bool last_wanted = false;
  size_t next_pass = 0;   // what the last Stop said comes next
  size_t next_level = 1;
  std::vector<std::vector<Launch>> windows;
  // Kernel replay: the launch being measured.
  std::optional<Launch> replaying;
  uint64_t replay_start_ns = 0;
};

struct PendingSet {
  uint32_t device_id;
  Signature sig;
  model::CounterStrategy strategy;
  uint32_t passes;
  std::vector<uint32_t> correlation_ids;
  std::vector<double> values;
};

struct State {
  absl::Mutex mu;
  bool active = false;
  config::Config config;
  bool rotate = true;
  // Region counters: each matching region instance is one user range; successive
  // instances of the same region are the passes of one set.
  bool region_mode = false;
  struct OpenRegion {
    Context* context = nullptr;
    std::string name;  // the matching region's own name
    std::string path;
    size_t depth = 0;
    std::thread::id thread;
  };
  std::optional<OpenRegion> region;      // measured now
  bool region_reserved = false;          // a thread is about to open `region`
  std::string region_set_name;           // the region whose set is in progress
  std::string region_set_path;           // its first instance's path: the set's name
  absl::flat_hash_map<std::string, uint64_t> region_samples;  // complete sets per name
  bool region_paused_tracing = false;
  bool region_hold_kernels = false;      // kernel records off inside measured instances
  std::vector<std::string> metrics;
  std::string chip;
  std::unique_ptr<MetricHost> host;
  MetricHost::Config image;
  bool profiler_initialized = false;
  std::optional<std::regex> kernels;
  std::optional<std::regex> regions;
  absl::flat_hash_map<const char*, std::pair<std::string, bool>> names;  // symbol -> name, match
  absl::flat_hash_map<Signature, uint64_t> samples;  // complete samples per signature
  absl::flat_hash_map<Signature, size_t> window_size;  // rotate: next window length
  uint64_t matching_seen = 0;
  Stats stats;
  absl::flat_hash_map<CUcontext, std::unique_ptr<Context>> contexts;
  std::vector<PendingSet> pending;
  absl::flat_hash_set<uint32_t> device_metrics_done;
  std::vector<std::pair<uint32_t, std::vector<double>>> pending_device_values;
  std::map<std::string, std::string> notes;
  uint64_t last_progress_ns = 0;
  int windows_logged = 0;
  int setconfig_each_pass = 0;  // CUSCOPE_INTERNAL_SETCONFIG: 1 = SetConfig(passIndex) per window
  uint64_t start_ns = 0;

  absl::Mutex measured_mu;
  absl::flat_hash_set<uint32_t> measured ABSL_GUARDED_BY(measured_mu);
};

State& S() {
  static State* s = new State();  // never destroyed: callbacks may come until exit
  return *s;
}
std::atomic<bool> g_active{false};
std::atomic<bool> g_region_mode{false};  // NVTX pushes and pops skip counters' lock otherwise

void Note(State& s, const std::string& key, const std::string& text) {
  if (s.notes.count(key) == 0) {
    s.notes[key] = text;
    std::string line = absl::StrCat("cuscope: counters: ", text, "\n");
    ssize_t n = write(STDERR_FILENO, line.data(), line.size());
    (void)n;
  }
}

bool ReinitCounterData(State& s, Context& c) {
  // Sizing again before re-initializing a used image is required (CUDA 13.0).
  std::vector<const char*> names;
  for (const auto& m : s.metrics) names.push_back(m.c_str());
  CUpti_RangeProfiler_GetCounterDataSize_Params size = {
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = c.object;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = c.max_ranges;
  size.maxNumRangeTreeNodes = static_cast<uint32_t>(c.max_ranges);
  CUptiResult r = cuptiRangeProfilerGetCounterDataSize(&size);
  if (r != CUPTI_SUCCESS) {
    Note(s, "counters.status", Explain("cuptiRangeProfilerGetCounterDataSize", r));
    return false;
  }
  c.counter_data.assign(size.counterDataSize, 0);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pRangeProfilerObject = c.object;
  init.counterDataSize = c.counter_data.size();
  init.pCounterData = c.counter_data.data();
  r = cuptiRangeProfilerCounterDataImageInitialize(&init);
  if (r != CUPTI_SUCCESS) {
    Note(s, "counters.status", Explain("cuptiRangeProfilerCounterDataImageInitialize", r));
    return false;
  }
  return true;
}

bool SetConfig(State& s, Context& c, size_t pass = 0, size_t level = 1) {
  CUpti_RangeProfiler_SetConfig_Params p = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = c.object;
  p.configSize = s.image.image.size();
  p.pConfig = s.image.image.data();
  p.counterDataImageSize = c.counter_data.size();
  p.pCounterDataImage = c.counter_data.data();
  p.range = s.region_mode ? CUPTI_UserRange : CUPTI_AutoRange;
  p.replayMode = s.rotate ? CUPTI_UserReplay : CUPTI_KernelReplay;
  p.maxRangesPerPass = c.max_ranges;
  p.numNestingLevels = 1;
  p.minNestingLevel = 1;
  p.passIndex = pass;
  p.targetNestingLevel = static_cast<uint16_t>(level);
  CUptiResult r = cuptiRangeProfilerSetConfig(&p);
  if (r != CUPTI_SUCCESS) {
    Note(s, "counters.status", Explain("cuptiRangeProfilerSetConfig", r));
    return false;
  }
  return true;
}

// Prepares the range profiler on a context at its first measured launch.
Context* GetContextTimed(State& s, CUcontext ctx);
Context* GetContext(State& s, CUcontext ctx) {
  auto it = s.contexts.find(ctx);
  if (it != s.contexts.end()) return it->second->failed ? nullptr : it->second.get();
  uint64_t t0 = NowNs();
  Context* c = GetContextTimed(s, ctx);
  s.stats.setup_ns += NowNs() - t0;
  return c;
}

Context* GetContextTimed(State& s, CUcontext ctx) {
  auto owned = std::make_unique<Context>();
  Context& c = *owned;
  s.contexts[ctx] = std::move(owned);
  c.ctx = ctx;
  c.failed = true;  // until everything below succeeded
  if (cuptiGetDeviceId(ctx, &c.device_id) != CUPTI_SUCCESS) c.device_id = 0;
  if (!s.profiler_initialized) {
    CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CUptiResult r = cuptiProfilerInitialize(&init);
    if (r != CUPTI_SUCCESS) {
      Note(s, "counters.status", Explain("cuptiProfilerInitialize", r));
      return nullptr;
    }
    s.profiler_initialized = true;
  }
  if (s.host == nullptr) {
    CUpti_Device_GetChipName_Params chip = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = c.device_id;
    CUptiResult r = cuptiDeviceGetChipName(&chip);
    if (r != CUPTI_SUCCESS) {
      Note(s, "counters.status", Explain("cuptiDeviceGetChipName", r));
      return nullptr;
    }
    s.chip = chip.pChipName;
    auto host = MetricHost::Create(s.chip);
    if (!host.ok()) {
      Note(s, "counters.status", std::string(host.status().message()));
      return nullptr;
    }
    s.host = std::move(*host);
    std::vector<std::string> expanded = metrics::ExpandMetrics(s.config.metrics);
    auto image = s.host->BuildConfig(expanded);
    if (!image.ok()) {
      Note(s, "counters.status", std::string(image.status().message()));
      return nullptr;
    }
    s.metrics = expanded;
    s.image = std::move(*image);
    s.notes["counters.chip"] = s.chip;
    s.notes["counters.passes"] = absl::StrCat(s.image.passes);
    s.notes["counters.strategy"] = s.region_mode ? "region (user range)"
                                   : s.rotate    ? "rotate"
                                                 : "kernel replay";
    if (s.config.verbose) {
      Note(s, "counters.config",
           absl::StrFormat("%d metrics on %s in %d passes, %s", s.metrics.size(), s.chip,
                           s.image.passes, s.rotate ? "rotate" : "kernel replay"));
    }
  }
  CUpti_RangeProfiler_Enable_Params enable = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  enable.ctx = ctx;
  CUptiResult r = cuptiRangeProfilerEnable(&enable);
  if (r != CUPTI_SUCCESS) {
    Note(s, "counters.status", Explain("cuptiRangeProfilerEnable", r));
    return nullptr;
  }
  c.object = enable.pRangeProfilerObject;
  c.max_ranges = s.rotate && !s.region_mode ? static_cast<size_t>(s.config.window) : 1;
  if (!ReinitCounterData(s, c) || !SetConfig(s, c)) return nullptr;
  c.failed = false;
  return &c;
}

void Progress(State& s) {
  uint64_t now = NowNs();
  if (now - s.start_ns < 2000000000ull || now - s.last_progress_ns < 2000000000ull) return;
  s.last_progress_ns = now;
  std::string line = absl::StrFormat(
      "cuscope: counters: %d launches measured, %d samples complete (%d dropped)%s\n",
      s.stats.launches_measured, s.stats.sets_complete, s.stats.sets_dropped,
      s.config.launch_count > 0 ? absl::StrFormat(", planned at most %d", s.config.launch_count)
                                : "");
  ssize_t n = write(STDERR_FILENO, line.data(), line.size());
  (void)n;
}

// Decodes the counter data of a finished set and turns matching ranges into sets.
void DecodeSet(State& s, Context& c) {
  CUpti_RangeProfiler_DecodeData_Params decode = {
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = c.object;
  CUptiResult r = cuptiRangeProfilerDecodeData(&decode);
  std::vector<std::vector<Launch>> windows = std::move(c.windows);
  c.windows.clear();
  if (r != CUPTI_SUCCESS) {
    Note(s, "counters.decode", Explain("cuptiRangeProfilerDecodeData", r));
    ReinitCounterData(s, c);
    return;
  }
  CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = c.counter_data.data();
  info.counterDataImageSize = c.counter_data.size();
  cuptiRangeProfilerGetCounterDataInfo(&info);
  size_t launched = windows.empty() ? 0 : windows[0].size();
  if (s.config.verbose && s.windows_logged < 40) {
    ++s.windows_logged;
    std::string sizes;
    for (const auto& w : windows) absl::StrAppend(&sizes, w.size(), " ");
    Note(s, absl::StrCat("counters.decode", s.windows_logged),
         absl::StrFormat("decode: %d ranges, windows of %s", info.numTotalRanges, sizes));
  }
  if (decode.numOfRangeDropped > 0) {
    Note(s, "counters.image_full",
         absl::StrFormat("the counter image filled up: %d ranges dropped; lower CUSCOPE_WINDOW",
                         decode.numOfRangeDropped));
  }
  if (info.numTotalRanges < launched) {
    // Seen on the H200 with user replay: a window of k launches decodes k/2 ranges.
    // Ranges are matched to launches in order and the rest count as dropped.
    s.stats.sets_dropped += launched - info.numTotalRanges;
    s.notes["counters.ranges_short"] = absl::StrFormat(
        "a rotate window decoded %d ranges for %d launches", info.numTotalRanges, launched);
  }
  for (size_t i = 0; i < info.numTotalRanges && i < launched; ++i) {
    bool match = true;
    PendingSet set;
    for (const auto& pass : windows) {
      if (i >= pass.size() || !(pass[i].sig == windows[0][i].sig)) {
        match = false;
        break;
      }
      if (pass[i].correlation_id != 0) set.correlation_ids.push_back(pass[i].correlation_id);
    }
    if (!match || (s.rotate && windows.size() < s.image.passes)) {
      ++s.stats.sets_dropped;
      continue;
    }
    absl::Status st = s.host->Evaluate(c.counter_data, i, s.metrics, &set.values);
    bool finite = st.ok();
    for (double v : set.values) finite = finite && std::isfinite(v);
    if (!finite) {
      ++s.stats.sets_dropped;
      if (!st.ok()) Note(s, "counters.evaluate", std::string(st.message()));
      continue;
    }
    set.device_id = c.device_id;
    set.sig = windows[0][i].sig;
    set.strategy = s.region_mode ? model::CounterStrategy::kUserRange
                   : s.rotate    ? model::CounterStrategy::kRotate
                                 : model::CounterStrategy::kKernelReplay;
    set.passes = static_cast<uint32_t>(s.image.passes);
    ++s.samples[set.sig];
    ++s.stats.sets_complete;
    if (s.config.verbose) {
      std::string line = absl::StrFormat("cuscope: counters: %s <<<(%d,%d,%d),(%d,%d,%d)>>>",
                                         set.sig.name.substr(0, 40), set.sig.grid.x,
                                         set.sig.grid.y, set.sig.grid.z, set.sig.block.x,
                                         set.sig.block.y, set.sig.block.z);
      for (size_t k = 0; k < s.metrics.size() && k < set.values.size(); ++k) {
        absl::StrAppend(&line, " ", s.metrics[k], "=", set.values[k]);
      }
      line += "\n";
      ssize_t n = write(STDERR_FILENO, line.data(), line.size());
      (void)n;
    }
    if (s.device_metrics_done.insert(c.device_id).second) {
      s.pending_device_values.emplace_back(c.device_id, set.values);
    }
    s.pending.push_back(std::move(set));
  }
  ReinitCounterData(s, c);
  Progress(s);
}

void CloseWindow(State& s, Context& c) {
  if (!c.window_open) return;
  c.window_open = false;
  AddElapsed timed{&s.stats.measure_ns, NowNs()};
  CUpti_RangeProfiler_Stop_Params stop = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = c.object;
  CUptiResult r = cuptiRangeProfilerStop(&stop);
  if (r != CUPTI_SUCCESS) {
    Note(s, "counters.stop", Explain("cuptiRangeProfilerStop", r));
    c.failed = true;
    return;
  }
  c.next_pass = stop.passIndex;
  c.next_level = stop.targetNestingLevel;
  if (s.config.verbose && s.windows_logged < 12) {
    ++s.windows_logged;
    Note(s, absl::StrCat("counters.window", s.windows_logged),
         absl::StrFormat("window %d: %d launches, next pass %d, all passes submitted %d",
                         c.windows.size(), c.windows.back().size(), stop.passIndex,
                         stop.isAllPassSubmitted));
  }
  if (stop.isAllPassSubmitted) {
    DecodeSet(s, c);
    c.next_pass = 0;
    c.next_level = 1;
  }
}

bool InMatchingRegion(State& s) {
  if (!s.regions) return true;
  for (const auto& name : capture::ThreadRegions()) {
    if (std::regex_search(name, *s.regions)) return true;
  }
  return false;
}

bool WantSample(State& s, const Signature& sig, bool matches) {
  if (!matches) return false;
  // The cheap "done" checks before the region regexes. Either can hold only after
  // launch_skip matching launches went by, so skipping the count below changes nothing.
  if (s.config.launch_count > 0 && s.stats.launches_measured >= s.config.launch_count) {
    return false;
  }
  if (s.config.per_signature > 0) {
    auto it = s.samples.find(sig);
    if (it != s.samples.end() && it->second >= static_cast<uint64_t>(s.config.per_signature)) {
      return false;
    }
  }
  if (!InMatchingRegion(s)) return false;
  ++s.matching_seen;
  return s.matching_seen > s.config.launch_skip;
}

void MarkMeasured(State& s, uint32_t correlation_id) {
  absl::MutexLock lock(&s.measured_mu);
  s.measured.insert(correlation_id);
}

// Kernel name and launch shape of a launch callback.
bool Describe(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
              const CUpti_CallbackData* cb, model::Dim3* grid, model::Dim3* block) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (cbid) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
        auto* p = static_cast<const cudaLaunchKernel_v7000_params*>(cb->functionParams);
        *grid = {p->gridDim.x, p->gridDim.y, p->gridDim.z};
        *block = {p->blockDim.x, p->blockDim.y, p->blockDim.z};
        return true;
      }
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
        auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(cb->functionParams);
        if (p->config == nullptr) return false;
        *grid = {p->config->gridDim.x, p->config->gridDim.y, p->config->gridDim.z};
        *block = {p->config->blockDim.x, p->config->blockDim.y, p->config->blockDim.z};
        return true;
      }
      default:
        return false;
    }
  }
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      auto* p = static_cast<const cuLaunchKernel_params*>(cb->functionParams);
      *grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
      *block = {p->blockDimX, p->blockDimY, p->blockDimZ};
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      auto* p = static_cast<const cuLaunchKernelEx_params*>(cb->functionParams);
      if (p->config == nullptr) return false;
      *grid = {p->config->gridDimX, p->config->gridDimY, p->config->gridDimZ};
      *block = {p->config->blockDimX, p->config->blockDimY, p->config->blockDimZ};
      return true;
    }
    default:
      return false;
  }
}

bool IsGraphLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000;
  }
  return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
         cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

void OpenWindow(State& s, Context& c, const Signature& sig) {
  AddElapsed timed{&s.stats.measure_ns, NowNs()};
  if (s.setconfig_each_pass && c.next_pass > 0 && !SetConfig(s, c, c.next_pass, c.next_level)) {
    c.failed = true;
    return;
  }
  CUpti_RangeProfiler_Start_Params start = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  start.pRangeProfilerObject = c.object;
  CUptiResult r = cuptiRangeProfilerStart(&start);
  if (r != CUPTI_SUCCESS) {
    Note(s, "counters.status", Explain("cuptiRangeProfilerStart", r));
    c.failed = true;
    return;
  }
  c.window_open = true;
  c.window_sig = sig;
  // Windows grow as a signature keeps completing sets: few Start/Stop calls in long
  // loops, little waste where a signature stops repeating.
  size_t& next = s.window_size[sig];
  if (next == 0) next = 1;
  c.window_cap = std::min<size_t>(next, c.max_ranges);
  if (s.config.per_signature > 0) {
    uint64_t have = s.samples[sig];
    uint64_t limit = static_cast<uint64_t>(s.config.per_signature);
    uint64_t need = limit - std::min(have, limit);
    c.window_cap = std::max<size_t>(1, std::min<size_t>(c.window_cap, need));
  }
  if (c.windows.size() + 1 >= s.image.passes) next = std::min<size_t>(next * 2, c.max_ranges);
  c.windows.emplace_back();
}

void OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (!g_active.load(std::memory_order_relaxed)) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  State& s = S();
  absl::MutexLock lock(&s.mu);
  if (!s.active) return;
  if (IsGraphLaunch(domain, cbid)) {
    // Kernels of a graph are not seen one by one: keep them out of windows.
    if (cb->callbackSite == CUPTI_API_ENTER) {
      auto it = s.contexts.find(cb->context);
      if (it != s.contexts.end() && !it->second->failed) CloseWindow(s, *it->second);
    }
    return;
  }
  model::Dim3 grid, block;
  if (!Describe(domain, cbid, cb, &grid, &block)) return;
  // One launch raises its callback twice on the H200 (CUDA 13.0): the rotate run of
  // 3032a42 put every correlation id twice into its windows (sets 2 and 3 both of
  // launches 195 and 201; a window of k entries decoded k/2 ranges; 1,875 launches
  // "measured" of 1,008). Handle each call once per site.
  thread_local uint32_t last_correlation[2] = {0, 0};
  uint32_t& last = last_correlation[cb->callbackSite == CUPTI_API_EXIT ? 1 : 0];
  if (cb->correlationId != 0 && cb->correlationId == last) return;
  last = cb->correlationId;

  if (cb->callbackSite == CUPTI_API_EXIT) {
    auto it = s.contexts.find(cb->context);
    if (s.rotate) {
      // Open the next window now, between launches: a window started inside the
      // launch's own API_ENTER callback misses instrumented (SASS) counters
      // (measured on the H200: FFMA 0 instead of N), one started before it does not.
      if (it == s.contexts.end() || it->second->failed) return;
      Context& c = *it->second;
      if (c.window_open) {
        if (c.windows.back().size() < c.window_cap) return;  // room for the next launch
        // Full: end the pass here, between launches, and open the next one now, so the
        // next launch of the signature is measured (ended at its own API_ENTER, the
        // window could not reopen before it: SGEMM x3 gave no set on 2026-11-30).
        CloseWindow(s, c);
        if (c.failed) return;
      }
      if (!c.last_wanted || !c.last_sig) return;
      if (c.windows.empty() && s.config.per_signature > 0) {
        auto done = s.samples.find(*c.last_sig);
        if (done != s.samples.end() &&
            done->second >= static_cast<uint64_t>(s.config.per_signature)) {
          return;
        }
      }
      OpenWindow(s, c, *c.last_sig);
      return;
    }
    if (it == s.contexts.end() || !it->second->replaying) return;
    Context& c = *it->second;
    c.replaying.reset();
  AddElapsed timed{&s.stats.measure_ns, c.replay_start_ns};
    CUpti_RangeProfiler_Stop_Params stop = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = c.object;
    CUptiResult r = cuptiRangeProfilerStop(&stop);
    if (r != CUPTI_SUCCESS) {
      Note(s, "counters.stop", Explain("cuptiRangeProfilerStop", r));
      return;
    }
    DecodeSet(s, c);
    return;
  }

  ++s.stats.launches_seen;
  const char* symbol = cb->symbolName ? cb->symbolName : "";
  auto name_it = s.names.find(symbol);
  if (name_it == s.names.end()) {
    std::string name = DemangleKernelName(symbol);
    bool matches = !s.kernels || std::regex_search(name, *s.kernels);
    name_it = s.names.emplace(symbol, std::make_pair(name, matches)).first;
  }
  Signature sig{name_it->second.first, grid, block};
  bool want = WantSample(s, sig, name_it->second.second);

  auto ctx_it = s.contexts.find(cb->context);
  Context* c = ctx_it == s.contexts.end() ? nullptr : ctx_it->second.get();
  if (c != nullptr && !c->failed && c->window_open) {
    if (!want || !(c->window_sig == sig) || c->windows.back().size() >= c->window_cap) {
      CloseWindow(s, *c);
    }
  }
  if (c == nullptr || c->failed) {
    if (!want) return;
    c = GetContext(s, cb->context);
    if (c == nullptr) return;
  }
  c->last_sig = sig;
  c->last_wanted = want;
  if (!want) return;

  Launch launch{sig, cb->correlationId};
  if (!s.rotate) {
    uint64_t start_ns = NowNs();
    CUpti_RangeProfiler_Start_Params start = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    start.pRangeProfilerObject = c->object;
    CUptiResult r = cuptiRangeProfilerStart(&start);
    if (r != CUPTI_SUCCESS) {
      Note(s, "counters.status", Explain("cuptiRangeProfilerStart", r));
      c->failed = true;
      return;
    }
    c->windows.assign(1, {launch});
    c->replaying = launch;
    c->replay_start_ns = start_ns;
  } else {
    // Measured only inside a window opened before this launch (at the previous
    // launch's exit); the first launch of a signature opens the way for the next.
    if (!c->window_open) return;
    c->windows.back().push_back(launch);
  }
  ++s.stats.launches_measured;
  MarkMeasured(s, cb->correlationId);
}


// The calling thread's current CUDA context, from the driver already loaded. The
// lookup is kept once it succeeds (a session may start before CUDA is loaded).
CUcontext CurrentContext() {
  using GetCurrent = CUresult (*)(CUcontext*);
  static std::atomic<GetCurrent> cached{nullptr};
  GetCurrent get_current = cached.load();
  if (get_current == nullptr) {
    get_current = reinterpret_cast<GetCurrent>(LoadedDriverSymbol("cuCtxGetCurrent"));
    if (get_current == nullptr) return nullptr;
    cached.store(get_current);
  }
  CUcontext ctx = nullptr;
  if (get_current(&ctx) != CUDA_SUCCESS) return nullptr;
  return ctx;
}

// Ends the measured region instance: one pass of its set. Returns true if the
// caller must give the GPU-side activity kinds back (after releasing s.mu).
bool CloseRegion(State& s, bool keep) {
  if (!s.region) return false;
  State::OpenRegion region = std::move(*s.region);
  s.region.reset();
  ActivityCollector::HoldPeriodicFlush(false);
  const bool release = s.region_paused_tracing;
  s.region_paused_tracing = false;
  Context& c = *region.context;
  AddElapsed timed{&s.stats.measure_ns, NowNs()};
  CUpti_RangeProfiler_PopRange_Params pop = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
  pop.pRangeProfilerObject = c.object;
  CUptiResult r = cuptiRangeProfilerPopRange(&pop);
  CUpti_RangeProfiler_Stop_Params stop = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = c.object;
  CUptiResult r2 = cuptiRangeProfilerStop(&stop);
  if (r != CUPTI_SUCCESS || r2 != CUPTI_SUCCESS) {
    Note(s, "counters.status", Explain(r != CUPTI_SUCCESS ? "cuptiRangeProfilerPopRange"
                                                          : "cuptiRangeProfilerStop",
                                       r != CUPTI_SUCCESS ? r : r2));
    c.failed = true;
    return release;
  }
  if (!keep) return release;
  if (s.region_set_name.empty()) {
    s.region_set_name = region.name;
    s.region_set_path = region.path;
  }
  // Every pass carries the set's first path, so that DecodeSet matches them.
  Signature sig{s.region_set_path, {0, 0, 0}, {0, 0, 0}};
  c.windows.push_back({Launch{sig, 0}});
  ++s.stats.launches_measured;
  if (stop.isAllPassSubmitted) {
    const uint64_t complete = s.stats.sets_complete;
    DecodeSet(s, c);
    if (s.stats.sets_complete > complete) ++s.region_samples[s.region_set_name];
    s.region_set_name.clear();
    s.region_set_path.clear();
  }
  return release;
}

}  // namespace

void StopLocked();

void OnRegionPush(const std::vector<std::string>& stack) {
  if (!g_region_mode.load(std::memory_order_relaxed) || stack.empty()) return;
  State& s = S();
  const std::string& name = stack.back();
  bool hold = false;
  {
    absl::MutexLock lock(&s.mu);
    if (!s.active || !s.region_mode || !s.regions || s.region || s.region_reserved) return;
    if (!std::regex_search(name, *s.regions)) return;
    // The passes of a set all measure the same region, by name: its path may differ
    // between instances (`step 3/forward`), the set is shown with the first one.
    if (!s.region_set_name.empty() && s.region_set_name != name) return;
    if (s.region_set_name.empty()) {
      ++s.matching_seen;
      if (s.matching_seen <= s.config.launch_skip) return;
      if (s.config.launch_count > 0 && s.stats.launches_measured >= s.config.launch_count) return;
      if (s.config.per_signature > 0 &&
          s.region_samples[name] >= static_cast<uint64_t>(s.config.per_signature)) {
        return;
      }
    }
    s.region_reserved = true;  // this thread measures the next instance
    hold = s.region_hold_kernels;
  }
  // As in rotate: instruction counters read 0 under user replay while kernels are
  // traced, so the measured instance goes without kernel records. Held before the
  // range starts (the switch costs time that must not fall in the range), and outside
  // s.mu (enabling kinds may wait for CUPTI, whose buffer thread takes s.mu in Drain).
  ActivityCollector::HoldPeriodicFlush(true);
  if (hold) ActivityCollector::HoldGpuKinds(true);
  bool started = false;
  {
    absl::MutexLock lock(&s.mu);
    s.region_reserved = false;
    std::string path = absl::StrJoin(stack, "/");
    CUcontext ctx = s.active ? CurrentContext() : nullptr;
    Context* c = nullptr;
    if (!s.active) {
    } else if (ctx == nullptr) {
      Note(s, "counters.region_context",
           absl::StrFormat("region '%s' began on a thread without a CUDA context: not measured",
                           path));
    } else {
      c = GetContext(s, ctx);
    }
    if (c != nullptr) {
      AddElapsed timed{&s.stats.measure_ns, NowNs()};
      CUpti_RangeProfiler_Start_Params start = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
      start.pRangeProfilerObject = c->object;
      CUptiResult r = cuptiRangeProfilerStart(&start);
      CUpti_RangeProfiler_PushRange_Params push = {
          CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
      push.pRangeProfilerObject = c->object;
      push.pRangeName = path.c_str();
      if (r == CUPTI_SUCCESS) {
        r = cuptiRangeProfilerPushRange(&push);
        if (r != CUPTI_SUCCESS) {
          CUpti_RangeProfiler_Stop_Params stop = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
          stop.pRangeProfilerObject = c->object;
          cuptiRangeProfilerStop(&stop);
        }
      }
      if (r != CUPTI_SUCCESS) {
        Note(s, "counters.status", Explain("cuptiRangeProfilerStart/PushRange", r));
        c->failed = true;
      } else {
        started = true;
        if (hold) {
          s.region_paused_tracing = true;
          s.notes["counters.region_kernels"] =
              "kernel records are off inside measured region instances (instruction counters "
              "read 0 under user replay while kernels are traced)";
        }
        s.region = State::OpenRegion{c, name, std::move(path), stack.size(),
                                     std::this_thread::get_id()};
      }
    }
  }
  if (hold && !started) ActivityCollector::HoldGpuKinds(false);
  if (!started) ActivityCollector::HoldPeriodicFlush(false);
}

void OnRegionPop(const std::vector<std::string>& stack) {
  if (!g_region_mode.load(std::memory_order_relaxed)) return;
  State& s = S();
  bool release = false;
  {
    absl::MutexLock lock(&s.mu);
    if (!s.active || !s.region || s.region->depth != stack.size() ||
        s.region->thread != std::this_thread::get_id()) {
      return;
    }
    release = CloseRegion(s, true);
    Progress(s);
  }
  if (release) ActivityCollector::HoldGpuKinds(false);
}

bool UsesRotate(const config::Config& config) {
  switch (config.replay) {
    case config::ReplayMode::kRotate: return true;
    case config::ReplayMode::kKernel: return false;
    case config::ReplayMode::kAuto: break;
  }
  // A bounded number of samples per signature: replaying those few launches costs
  // little and gives exact values; every launch: rotate, which replays nothing.
  return config.per_signature == 0;
}

bool NeedsInstrumentedCounters(const config::Config& config) {
  for (const std::string& name : metrics::ExpandMetrics(config.metrics)) {
    if (name.rfind("smsp__sass_", 0) == 0) return true;
  }
  return false;
}

absl::Status Start(const config::Config& config) {
  State& s = S();
  absl::MutexLock lock(&s.mu);
  if (s.active) return absl::AlreadyExistsError("counters already started");
  s.config = config;
  s.region_mode = config.region_counters && !config.regions.empty();
  s.region_hold_kernels = config.trace.kernel && NeedsInstrumentedCounters(config);
  s.rotate = s.region_mode || UsesRotate(config);
  s.region.reset();
  s.region_reserved = false;
  s.region_set_name.clear();
  s.region_set_path.clear();
  s.region_samples.clear();
  s.region_paused_tracing = false;
  s.kernels.reset();
  if (!config.kernels.empty()) s.kernels.emplace(config.kernels);
  s.regions.reset();
  if (!config.regions.empty()) s.regions.emplace(config.regions);
  s.start_ns = NowNs();
  s.stats = Stats();
  // A new session starts clean: contexts were disabled at the last Stop, and the
  // metric list may differ.
  s.contexts.clear();
  s.samples.clear();
  s.window_size.clear();
  s.matching_seen = 0;
  s.notes.clear();
  s.host.reset();
  s.metrics.clear();
  s.device_metrics_done.clear();
  s.windows_logged = 0;
  const char* internal = std::getenv("CUSCOPE_INTERNAL_SETCONFIG");
  s.setconfig_each_pass = internal != nullptr && internal[0] == '1';
  if (s.region_mode) {
    // Regions arrive from capture's region tracking (OnRegionPush/Pop); no launch
    // callbacks needed.
    s.active = true;
    g_active.store(true);
    g_region_mode.store(true);
    return absl::OkStatus();
  }
  absl::Status subscribed = callbacks::AddHandler(OnCallback);
  if (!subscribed.ok()) return subscribed;
  const CUpti_CallbackId runtime[] = {
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
      CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
      CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000};
  const CUpti_CallbackId driver[] = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz};
  for (CUpti_CallbackId id : runtime) callbacks::Enable(CUPTI_CB_DOMAIN_RUNTIME_API, id).IgnoreError();
  for (CUpti_CallbackId id : driver) callbacks::Enable(CUPTI_CB_DOMAIN_DRIVER_API, id).IgnoreError();
  s.active = true;
  g_active.store(true);
  return absl::OkStatus();
}

void Stop() {
  StopLocked();
  // Outside the lock: unsubscribing may wait for callbacks that want it.
  callbacks::RemoveHandler(OnCallback);
}

void StopLocked() {
  State& s = S();
  absl::MutexLock lock(&s.mu);
  if (!s.active) return;
  g_active.store(false);
  g_region_mode.store(false);
  s.active = false;
  if (s.region) {
    s.notes["counters.region_open"] = absl::StrFormat(
        "region '%s' was still open at the end: its last instance is not measured",
        s.region->path);
    // The held GPU kinds stay off: the tracer stops next, and its Start resets them.
    CloseRegion(s, false);
  }
  for (auto& [ctx, c] : s.contexts) {
    if (c->object == nullptr) continue;
    if (!c->failed) {
      CloseWindow(s, *c);
      if (!c->windows.empty()) {
        s.stats.sets_dropped += c->windows[0].size();
        s.notes["counters.incomplete"] = absl::StrFormat(
            "%d launches measured in a set whose passes did not all run before the end",
            c->windows[0].size());
        c->windows.clear();
      }
    }
    // Failed contexts too: a later session must be able to enable the profiler again.
    CUpti_RangeProfiler_Disable_Params disable = {
        CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    disable.pRangeProfilerObject = c->object;
    cuptiRangeProfilerDisable(&disable);
    c->object = nullptr;
    c->failed = true;
  }
  s.notes["counters.launches_measured"] = absl::StrCat(s.stats.launches_measured);
  s.notes["counters.samples_complete"] = absl::StrCat(s.stats.sets_complete);
  s.notes["counters.samples_dropped"] = absl::StrCat(s.stats.sets_dropped);
  s.notes["counters.setup_ms"] = absl::StrFormat("%.1f", s.stats.setup_ns / 1e6);
  s.notes["counters.measure_ms"] = absl::StrFormat("%.1f", s.stats.measure_ns / 1e6);
}

bool Active() { return g_active.load(); }

bool IsMeasured(uint32_t correlation_id) {
  State& s = S();
  absl::MutexLock lock(&s.measured_mu);
  return s.measured.contains(correlation_id);
}

void Drain(model::Profile* batch) {
  State& s = S();
  absl::MutexLock lock(&s.mu);
  for (auto& p : s.pending) {
    model::CounterSet set;
    set.device_id = p.device_id;
    set.name = batch->strings.Intern(p.sig.name);
    set.grid = p.sig.grid;
    set.block = p.sig.block;
    set.strategy = p.strategy;
    set.passes = p.passes;
    set.correlation_ids = std::move(p.correlation_ids);
    for (size_t i = 0; i < p.values.size() && i < s.metrics.size(); ++i) {
      set.values.emplace_back(batch->strings.Intern(s.metrics[i]), p.values[i]);
    }
    batch->counters.push_back(std::move(set));
  }
  s.pending.clear();
  for (auto& [device, values] : s.pending_device_values) {
    for (size_t i = 0; i < values.size() && i < s.metrics.size(); ++i) {
      const std::string& m = s.metrics[i];
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
  s.pending_device_values.clear();
}

std::map<std::string, std::string> Notes() {
  State& s = S();
  absl::MutexLock lock(&s.mu);
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : s.notes) {
    if (k != "counters.config") out[k] = v;
  }
  return out;
}

Stats GetStats() {
  State& s = S();
  absl::MutexLock lock(&s.mu);
  return s.stats;
}

}  // namespace cuscope::collect::counters
