// Development probe: can one Range Profiler object switch between user replay
// (rotate: a set's passes spread over later launches) and kernel replay (CUPTI
// replays one launch once per pass)? Signature mode's first step costs kernel replay's
// ~280 ms for each measured launch (sol, 9 passes, H200, session 10), while rotate
// measures a repeating step's kernels at no replay: a hybrid would rotate what repeats
// and replay only what does not. Each block prints whether the calls succeed and the
// decoded values (duration, SM %), against a plain set of the same kernel.
//   replay_switch_probe [one-object]
//  rotate:         a user-replay set of 4 launches a pass (the reference values)
//  then-kernel:    on the same object, SetConfig(kernel replay) with a new 1-range
//                  image, one launch between Start and Stop, DecodeData
//  then-rotate:    back to user replay with a new 64-range image, a set of 4
//  reenabled:      the same switches with Disable + Enable before each (the default;
//                  `one-object` runs the switches on one object)
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>

#include "probe_cupti.h"
#include "probe_sol.cuh"

namespace {

struct Rig {
  int n = 1 << 24;
  float* x = nullptr;
  float* y = nullptr;
  CUpti_RangeProfiler_Object* profiler = nullptr;
  HostConfig config;

  bool Reenable() {
    profiler = ReenableRangeProfiler(profiler);
    return profiler != nullptr;
  }
  bool Decode(size_t* dropped) {
    CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = profiler;
    if (!ProbeOk(cuptiRangeProfilerDecodeData(&dd), "DecodeData")) return false;
    *dropped = dd.numOfRangeDropped;
    return true;
  }
  bool StartStop(int launches, bool* all) {
    CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = profiler;
    if (!ProbeOk(cuptiRangeProfilerStart(&st), "Start")) return false;
    for (int j = 0; j < launches; ++j) saxpy<<<n / 256, 256>>>(n, 2, x, y);
    CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = profiler;
    if (!ProbeOk(cuptiRangeProfilerStop(&sp), "Stop")) return false;
    *all = sp.isAllPassSubmitted;
    return true;
  }
  // A rotate set: 4 launches a pass until CUPTI has every pass.
  void Rotate(const char* label) {
    std::vector<uint8_t> data = RangeCounterData(profiler, kSol, 64);
    if (!ProbeOk(TrySetRangeConfig(profiler, config.image, data, CUPTI_AutoRange, CUPTI_UserReplay, 64,
                              0),
            "SetConfig(user replay)")) {
      return;
    }
    auto t0 = std::chrono::steady_clock::now();
    bool all = false;
    size_t passes = 0, dropped = 0;
    while (!all && passes < 64) {
      if (!StartStop(4, &all)) return;
      ++passes;
    }
    if (!Decode(&dropped)) return;
    printf("  %s: %zu passes, %.0f ms, %zu dropped;", label, passes, Ms(t0), dropped);
    Describe(data);
  }
  // Kernel replay of one launch.
  void Kernel(const char* label) {
    std::vector<uint8_t> data = RangeCounterData(profiler, kSol, 1);
    if (!ProbeOk(TrySetRangeConfig(profiler, config.image, data, CUPTI_AutoRange, CUPTI_KernelReplay,
                              1, 0),
            "SetConfig(kernel replay)")) {
      return;
    }
    auto t0 = std::chrono::steady_clock::now();
    bool all = false;
    size_t dropped = 0;
    if (!StartStop(1, &all) || !Decode(&dropped)) return;
    printf("  %s: all passes %d, %.0f ms, %zu dropped;", label, all, Ms(t0), dropped);
    Describe(data);
  }
  void Describe(std::vector<uint8_t>& data) {
    CUpti_RangeProfiler_GetCounterDataInfo_Params inf = {
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    inf.pCounterDataImage = data.data();
    inf.counterDataImageSize = data.size();
    if (!ProbeOk(cuptiRangeProfilerGetCounterDataInfo(&inf), "GetCounterDataInfo")) return;
    printf(" %zu ranges; duration (ns) / SM %%:", inf.numTotalRanges);
    for (size_t i = 0; i < inf.numTotalRanges && i < 6; ++i) {
      std::vector<double> v = EvaluateRange(config.host, data, i, kSol);
      printf(" %.0f/%.1f", v[0], v[1]);
    }
    printf("\n");
  }
};

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);  // a crash keeps what was printed
  Rig rig;
  cudaMalloc(&rig.x, rig.n * 4);
  cudaMalloc(&rig.y, rig.n * 4);
  cudaMemset(rig.x, 0, rig.n * 4);
  cudaMemset(rig.y, 0, rig.n * 4);
  saxpy<<<rig.n / 256, 256>>>(rig.n, 2, rig.x, rig.y);
  cudaDeviceSynchronize();
  rig.profiler = EnableRangeProfiler();
  rig.config = MakeHostConfig(ProbeChip(), CUPTI_PROFILER_TYPE_RANGE_PROFILER, kSol);
  printf("sol: %zu passes\n", rig.config.passes);
  if (argc > 1 && strcmp(argv[1], "one-object") == 0) {
    // On the H200 (CUDA 13.0, 2026-12-02) the first SetConfig(kernel replay) after a
    // user-replay set on the same object crashed the process (SIGSEGV).
    printf("one object:\n");
    rig.Rotate("rotate");
    rig.Kernel("then kernel replay");
    rig.Rotate("then rotate");
    rig.Kernel("kernel replay again");
    return 0;
  }
  printf("Disable + Enable before each switch:\n");
  rig.Rotate("rotate");
  for (int i = 0; i < 2; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (!rig.Reenable()) return 1;
    printf("  Disable + Enable: %.1f ms\n", Ms(t0));
    rig.Kernel("kernel replay");
    t0 = std::chrono::steady_clock::now();
    if (!rig.Reenable()) return 1;
    printf("  Disable + Enable: %.1f ms\n", Ms(t0));
    rig.Rotate("rotate");
  }
  ReleaseHostConfig(rig.config);
  return 0;
}
