// Probe: what the Range Profiler (CUDA 13 cuptiRangeProfiler* API, Profiler Host API for
// the configuration and the values) reports for the kernel nodes of a CUDA graph.
// A graph of 3 kernel nodes (vector add, FMA loop, strided copy; 3 different grids) is
// measured in each mode, against the same 3 kernels launched directly:
//   direct-auto-kernel   (a) auto range + kernel replay, direct launches (reference)
//   graph-auto-kernel    (a) auto range + kernel replay, cudaGraphLaunch
//   graph-auto-user      (b) auto range + user replay (one pass)
//   graph-auto-user-x2   (b) the graph launched twice in one pass: 2 x 3 ranges?
//   graph-user-user      (c) user range ("graph") + user replay around the launch
//   direct-auto-user     (b) for direct launches (a second reference)
// Each CUPTI call's result is printed (CUPTI's string on failure); a failed mode goes on
// to the next. Each mode has its own Range Profiler object (Enable ... Disable): one
// object switched between user and kernel replay has crashed a process.
//   graph_ranges_probe [MODE...]    (no MODE: all of them, a table last)
// Build and run: bench/device/graph_ranges_probe.sh OUTDIR; by hand, with C the CUPTI folder
// (/usr/local/cuda/extras/CUPTI, or /usr/local/cuda where CUPTI lies in the toolkit's folders):
// clang-format off
//   nvcc -std=c++17 -O2 -arch=sm_90 -I$C/include -L$C/lib64 bench/device/graph_ranges_probe.cu -o graph_ranges_probe -lcupti -lcuda
// clang-format on
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

// Outside the anonymous namespace: range names then read as the kernels' own.
__global__ void VecAdd(int n, const float* a, const float* b, float* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void FmaLoop(int iters, float* x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  for (int k = 0; k < iters; ++k) v = fmaf(v, 1.0001f, 0.5f);
  x[i] = v;
}

__global__ void StridedCopy(int count, int stride, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = in[static_cast<size_t>(i) * stride];
}

namespace {

const std::vector<const char*> kMetrics = {"gpu__time_duration.sum", "sm__cycles_elapsed.max",
                                           "dram__bytes_read.sum", "sm__inst_executed.sum",
                                           "smsp__inst_executed.sum"};
constexpr size_t kMaxRanges = 16;
constexpr int kMaxPasses = 8;
constexpr int kN = 1 << 24;  // floats per buffer (64 MiB, above the L2)
constexpr int kFmaIters = 1 << 14;
constexpr int kStride = 8;  // floats: one 32-byte sector per copied element

// The buffers, the stream and the instantiated graph of the 3 kernels.
struct Workload {
  float* a = nullptr;
  float* b = nullptr;
  float* c = nullptr;
  float* x = nullptr;
  cudaStream_t stream = nullptr;
  cudaGraphExec_t graph = nullptr;
};

// The 3 launches, in order, each with its own grid; with `marks`, an event recorded
// before each and after the last.
void LaunchThree(const Workload& w, cudaEvent_t* marks = nullptr) {
  if (marks != nullptr) cudaEventRecord(marks[0], w.stream);
  VecAdd<<<kN / 256, 256, 0, w.stream>>>(kN, w.a, w.b, w.c);
  if (marks != nullptr) cudaEventRecord(marks[1], w.stream);
  FmaLoop<<<264, 128, 0, w.stream>>>(kFmaIters, w.x);
  if (marks != nullptr) cudaEventRecord(marks[2], w.stream);
  StridedCopy<<<kN / kStride / 512, 512, 0, w.stream>>>(kN / kStride, kStride, w.a, w.c);
  if (marks != nullptr) cudaEventRecord(marks[3], w.stream);
}

bool CudaOk(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  printf("    %s -> %s\n", what, cudaGetErrorString(e));
  return false;
}

// Buffers and a graph captured from LaunchThree on the workload's stream.
bool MakeWorkload(Workload* w) {
  for (float** p : {&w->a, &w->b, &w->c, &w->x}) {
    if (!CudaOk(cudaMalloc(p, kN * sizeof(float)), "cudaMalloc")) return false;
    cudaMemset(*p, 0, kN * sizeof(float));
  }
  if (!CudaOk(cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking), "stream")) return false;
  cudaGraph_t graph;
  if (!CudaOk(cudaStreamBeginCapture(w->stream, cudaStreamCaptureModeGlobal), "BeginCapture")) {
    return false;
  }
  LaunchThree(*w);
  if (!CudaOk(cudaStreamEndCapture(w->stream, &graph), "EndCapture")) return false;
  size_t nodes = 0;
  cudaGraphGetNodes(graph, nullptr, &nodes);
  printf("graph: %zu nodes\n", nodes);
  if (!CudaOk(cudaGraphInstantiate(&w->graph, graph, 0), "cudaGraphInstantiate")) return false;
  return CudaOk(cudaGraphLaunch(w->graph, w->stream), "warm-up cudaGraphLaunch") &&
         CudaOk(cudaStreamSynchronize(w->stream), "warm-up sync");
}

// Each kernel timed alone with events, no profiler (a reference for gpu__time_duration).
void TimeUnprofiled(const Workload& w) {
  cudaEvent_t e[4];
  for (auto& ev : e) cudaEventCreate(&ev);
  LaunchThree(w, e);
  cudaEventSynchronize(e[3]);
  printf("unprofiled (events, us): VecAdd / FmaLoop / StridedCopy");
  for (int i = 0; i < 3; ++i) {
    float ms = 0;
    cudaEventElapsedTime(&ms, e[i], e[i + 1]);
    printf(" %.1f", ms * 1000);
  }
  printf("\n");
  for (auto& ev : e) cudaEventDestroy(ev);
}

// Prints a CUPTI call's result; false on failure.
bool Ok(CUptiResult r, const char* what) {
  const char* s = "?";
  cuptiGetResultString(r, &s);
  printf("    %-44s %s\n", what, r == CUPTI_SUCCESS ? "ok" : s);
  return r == CUPTI_SUCCESS;
}

// The host object holding kMetrics, its configuration image and pass count.
struct HostConfig {
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<uint8_t> image;
  size_t passes = 0;
};

bool AddMetrics(const char* chip, HostConfig* c) {
  CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  hi.pChipName = chip;
  if (!Ok(cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize")) return false;
  c->host = hi.pHostObject;
  CUpti_Profiler_Host_ConfigAddMetrics_Params am = {
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  am.pHostObject = c->host;
  am.ppMetricNames = const_cast<const char**>(kMetrics.data());
  am.numMetrics = kMetrics.size();
  return Ok(cuptiProfilerHostConfigAddMetrics(&am), "cuptiProfilerHostConfigAddMetrics");
}

bool BuildConfig(const char* chip, HostConfig* c) {
  if (!AddMetrics(chip, c)) return false;
  CUpti_Profiler_Host_GetConfigImageSize_Params cs = {
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  cs.pHostObject = c->host;
  if (!Ok(cuptiProfilerHostGetConfigImageSize(&cs), "cuptiProfilerHostGetConfigImageSize")) {
    return false;
  }
  c->image.resize(cs.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params gi = {
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  gi.pHostObject = c->host;
  gi.configImageSize = c->image.size();
  gi.pConfigImage = c->image.data();
  if (!Ok(cuptiProfilerHostGetConfigImage(&gi), "cuptiProfilerHostGetConfigImage")) return false;
  CUpti_Profiler_Host_GetNumOfPasses_Params np = {
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  np.configImageSize = c->image.size();
  np.pConfigImage = c->image.data();
  if (!Ok(cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses")) return false;
  c->passes = np.numOfPasses;
  return true;
}

struct Mode {
  const char* name;
  CUpti_ProfilerRange range;
  CUpti_ProfilerReplayMode replay;
  bool graph;
  int launches;  // graph launches (or sets of 3 direct launches) in a pass
};

const Mode kModes[] = {
    {"direct-auto-kernel", CUPTI_AutoRange, CUPTI_KernelReplay, false, 1},
    {"graph-auto-kernel", CUPTI_AutoRange, CUPTI_KernelReplay, true, 1},
    {"graph-auto-user", CUPTI_AutoRange, CUPTI_UserReplay, true, 1},
    {"graph-auto-user-x2", CUPTI_AutoRange, CUPTI_UserReplay, true, 2},
    {"graph-user-user", CUPTI_UserRange, CUPTI_UserReplay, true, 1},
    {"direct-auto-user", CUPTI_AutoRange, CUPTI_UserReplay, false, 1},
};

struct Range {
  std::string name;
  std::vector<double> values;
};

// What one mode gave: the first failed call (empty when none) and the decoded ranges.
struct Outcome {
  const char* mode = "";
  std::string failed;
  int passes = 0;
  size_t dropped = 0;
  size_t total_ranges = 0;
  std::vector<Range> ranges;
};

// One mode on its own Range Profiler object, from Enable to Disable.
class ModeRun {
 public:
  ModeRun(const Mode& mode, const HostConfig& config, const Workload& work, Outcome* out)
      : mode_(mode), config_(config), work_(work), out_(out) {
    out_->mode = mode.name;
  }
  void Run() {
    if (Enable() && MakeImage() && SetConfig() && Passes() && Decode()) ReadRanges();
    if (object_ != nullptr) Disable();
  }

 private:
  bool Check(CUptiResult r, const char* what) {
    if (Ok(r, what)) return true;
    if (out_->failed.empty()) {
      const char* s = "?";
      cuptiGetResultString(r, &s);
      out_->failed = std::string(what) + ": " + s;
    }
    return false;
  }
  bool Enable();
  bool MakeImage();
  bool SetConfig();
  bool Passes();
  bool OnePass(bool* all_submitted);
  void Launch();
  bool Decode();
  void ReadRanges();
  void Disable();

  const Mode& mode_;
  const HostConfig& config_;
  const Workload& work_;
  Outcome* out_;
  CUpti_RangeProfiler_Object* object_ = nullptr;
  std::vector<uint8_t> data_;
};

bool ModeRun::Enable() {
  CUcontext ctx = nullptr;
  cuCtxGetCurrent(&ctx);
  CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  en.ctx = ctx;
  if (!Check(cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable")) return false;
  object_ = en.pRangeProfilerObject;
  return true;
}

bool ModeRun::MakeImage() {
  CUpti_RangeProfiler_GetCounterDataSize_Params ds = {
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  ds.pRangeProfilerObject = object_;
  ds.pMetricNames = const_cast<const char**>(kMetrics.data());
  ds.numMetrics = kMetrics.size();
  ds.maxNumOfRanges = kMaxRanges;
  ds.maxNumRangeTreeNodes = static_cast<uint32_t>(kMaxRanges);
  if (!Check(cuptiRangeProfilerGetCounterDataSize(&ds), "cuptiRangeProfilerGetCounterDataSize")) {
    return false;
  }
  data_.resize(ds.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci = {
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  ci.pRangeProfilerObject = object_;
  ci.counterDataSize = data_.size();
  ci.pCounterData = data_.data();
  return Check(cuptiRangeProfilerCounterDataImageInitialize(&ci),
               "cuptiRangeProfilerCounterDataImageInitialize");
}

bool ModeRun::SetConfig() {
  CUpti_RangeProfiler_SetConfig_Params sc = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  sc.pRangeProfilerObject = object_;
  sc.configSize = config_.image.size();
  sc.pConfig = config_.image.data();
  sc.counterDataImageSize = data_.size();
  sc.pCounterDataImage = data_.data();
  sc.range = mode_.range;
  sc.replayMode = mode_.replay;
  sc.maxRangesPerPass = kMaxRanges;
  sc.numNestingLevels = 1;
  sc.minNestingLevel = 1;
  sc.passIndex = 0;
  sc.targetNestingLevel = 1;
  return Check(cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");
}

// Start ... Stop until CUPTI says every pass was submitted (one, for kMetrics on GH100).
bool ModeRun::Passes() {
  bool all = false;
  while (!all && out_->passes < kMaxPasses) {
    if (!OnePass(&all)) return false;
    ++out_->passes;
  }
  if (!all && out_->failed.empty()) out_->failed = "pass limit (not all passes submitted)";
  return all;
}

bool ModeRun::OnePass(bool* all_submitted) {
  CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  st.pRangeProfilerObject = object_;
  if (!Check(cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart")) return false;
  bool user_range = mode_.range == CUPTI_UserRange;
  CUpti_RangeProfiler_PushRange_Params push = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
  push.pRangeProfilerObject = object_;
  push.pRangeName = "graph";
  if (user_range) Check(cuptiRangeProfilerPushRange(&push), "cuptiRangeProfilerPushRange");
  Launch();
  CUpti_RangeProfiler_PopRange_Params pop = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
  pop.pRangeProfilerObject = object_;
  if (user_range) Check(cuptiRangeProfilerPopRange(&pop), "cuptiRangeProfilerPopRange");
  CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  sp.pRangeProfilerObject = object_;
  if (!Check(cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop")) return false;
  printf("      stop: passIndex %zu, targetNestingLevel %zu, isAllPassSubmitted %d\n", sp.passIndex,
         sp.targetNestingLevel, sp.isAllPassSubmitted);
  *all_submitted = sp.isAllPassSubmitted != 0;
  return true;
}

// The mode's launches, then a wait for them (a launch's CUDA error is printed and kept).
void ModeRun::Launch() {
  for (int i = 0; i < mode_.launches; ++i) {
    if (!mode_.graph) {
      LaunchThree(work_);
      CudaOk(cudaGetLastError(), "direct launches");
    } else if (!CudaOk(cudaGraphLaunch(work_.graph, work_.stream), "cudaGraphLaunch") &&
               out_->failed.empty()) {
      out_->failed = "cudaGraphLaunch";
    }
  }
  CudaOk(cudaStreamSynchronize(work_.stream), "cudaStreamSynchronize");
}

bool ModeRun::Decode() {
  CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  dd.pRangeProfilerObject = object_;
  if (!Check(cuptiRangeProfilerDecodeData(&dd), "cuptiRangeProfilerDecodeData")) return false;
  out_->dropped = dd.numOfRangeDropped;
  CUpti_RangeProfiler_GetCounterDataInfo_Params inf = {
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  inf.pCounterDataImage = data_.data();
  inf.counterDataImageSize = data_.size();
  if (!Check(cuptiRangeProfilerGetCounterDataInfo(&inf), "cuptiRangeProfilerGetCounterDataInfo")) {
    return false;
  }
  out_->total_ranges = inf.numTotalRanges;
  printf("      decoded: %zu ranges, %zu dropped\n", inf.numTotalRanges, dd.numOfRangeDropped);
  return true;
}

// Each range's name ("/" between nesting levels) and values, printed as read.
void ModeRun::ReadRanges() {
  for (size_t i = 0; i < out_->total_ranges; ++i) {
    Range range;
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri = {
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
    ri.pCounterDataImage = data_.data();
    ri.counterDataImageSize = data_.size();
    ri.rangeIndex = i;
    ri.rangeDelimiter = "/";
    if (Check(cuptiRangeProfilerCounterDataGetRangeInfo(&ri),
              "cuptiRangeProfilerCounterDataGetRangeInfo")) {
      range.name = ri.rangeName != nullptr ? ri.rangeName : "(null)";
    }
    range.values.assign(kMetrics.size(), -1);
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    ev.pHostObject = config_.host;
    ev.pCounterDataImage = data_.data();
    ev.counterDataImageSize = data_.size();
    ev.rangeIndex = i;
    ev.ppMetricNames = const_cast<const char**>(kMetrics.data());
    ev.numMetrics = kMetrics.size();
    ev.pMetricValues = range.values.data();
    Check(cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues");
    printf("      range %zu \"%s\":", i, range.name.c_str());
    for (size_t m = 0; m < kMetrics.size(); ++m) printf(" %s=%.0f", kMetrics[m], range.values[m]);
    printf("\n");
    out_->ranges.push_back(range);
  }
}

void ModeRun::Disable() {
  CUpti_RangeProfiler_Disable_Params dis = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
  dis.pRangeProfilerObject = object_;
  Check(cuptiRangeProfilerDisable(&dis), "cuptiRangeProfilerDisable");
  object_ = nullptr;
}

// The kernel's name without its parameter list, at most 24 characters.
std::string Short(const std::string& name) {
  std::string s = name.substr(0, name.find('('));
  return s.size() > 24 ? s.substr(0, 24) : s;
}

// sm__inst_executed.sum against the reference range of the same position (mod 3), or
// against the 3 together for a mode of one range: "=" when equal, else the ratio.
std::string AgainstReference(const Outcome& ref, size_t ranges, size_t i, double inst) {
  if (ref.ranges.size() != 3) return "-";
  double want = 0;
  for (size_t k = 0; k < 3; ++k) {
    if (ranges == 1 || k == i % 3) want += ref.ranges[k].values[3];
  }
  if (want == inst) return "=";
  char buf[32];
  snprintf(buf, sizeof(buf), "x%.3f", want > 0 ? inst / want : 0.0);
  return buf;
}

void PrintRange(const Outcome* ref, const Outcome& o, size_t i) {
  const std::vector<double>& v = o.ranges[i].values;
  std::string vs = ref != nullptr ? AgainstReference(*ref, o.ranges.size(), i, v[3]) : "-";
  printf("  %-2zu %-24s %10.0f %10.0f %12.0f %10.0f %10.0f %s\n", i,
         Short(o.ranges[i].name).c_str(), v[0], v[1], v[2], v[3], v[4], vs.c_str());
}

// One line a mode, one a range; the last column compares with direct-auto-kernel.
void PrintTable(const std::vector<Outcome>& outcomes) {
  const Outcome* ref = nullptr;
  for (const Outcome& o : outcomes) {
    if (strcmp(o.mode, "direct-auto-kernel") == 0) ref = &o;
  }
  printf("\nTABLE\n  %-2s %-24s %10s %10s %12s %10s %10s %s\n", "#", "range name", "time_ns",
         "cycles", "dram_rd_B", "sm_inst", "smsp_inst", "sm_inst vs direct");
  for (const Outcome& o : outcomes) {
    printf("%s: %s, %zu ranges, %zu dropped, %d passes\n", o.mode,
           o.failed.empty() ? "ok" : ("FAILED at " + o.failed).c_str(), o.total_ranges, o.dropped,
           o.passes);
    for (size_t i = 0; i < o.ranges.size(); ++i) PrintRange(ref, o, i);
  }
}

bool Selected(int argc, char** argv, const char* name) {
  if (argc < 2) return true;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], name) == 0) return true;
  }
  return false;
}

// CUPTI's profiler, the chip and the configuration for kMetrics; false when not usable.
bool Prepare(HostConfig* config) {
  CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  if (!Ok(cuptiProfilerInitialize(&pi), "cuptiProfilerInitialize")) return false;
  CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  cn.deviceIndex = 0;
  if (!Ok(cuptiDeviceGetChipName(&cn), "cuptiDeviceGetChipName")) return false;
  printf("chip %s\n", cn.pChipName);
  if (!BuildConfig(cn.pChipName, config)) return false;
  printf("metrics:");
  for (const char* m : kMetrics) printf(" %s", m);
  printf("\npasses (host API): %zu%s\n", config->passes,
         config->passes == 1 ? "" : "  <- more than one: user replay modes replay the launches");
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);  // a crash keeps what was printed
  uint32_t version = 0;
  cuptiGetVersion(&version);
  printf("CUPTI API version %u\n", version);
  Workload work;
  if (!MakeWorkload(&work)) return 1;
  TimeUnprofiled(work);
  HostConfig config;
  if (!Prepare(&config)) return 1;
  std::vector<Outcome> outcomes;
  for (const Mode& mode : kModes) {
    if (!Selected(argc, argv, mode.name)) continue;
    printf("\n== %s (%d launch%s of %s)\n", mode.name, mode.launches,
           mode.launches == 1 ? "" : "es", mode.graph ? "the graph" : "the 3 kernels");
    outcomes.emplace_back();
    ModeRun(mode, config, work, &outcomes.back()).Run();
  }
  PrintTable(outcomes);
  CUpti_Profiler_Host_Deinitialize_Params d = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  d.pHostObject = config.host;
  cuptiProfilerHostDeinitialize(&d);
  return 0;
}
