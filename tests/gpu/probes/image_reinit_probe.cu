// Development probe: what re-initializing a rotate counter image costs, and whether
// the zero fill before CUPTI's initialization is needed.
//   image_reinit_probe [max_ranges=2048] [sets=4]
// A GPT-2 step under `--metrics=sol --replay=rotate` (H200, session 9) spent ~0.8 s per
// set outside the Range Profiler's Start and Stop; its counter image was 1,591 MiB for
// 2,048 ranges, and RangeProfiler::InitCounterData zero-fills all of it (`assign`)
// before cuptiRangeProfilerCounterDataImageInitialize, after every set.
//
// Prints, for the image sized as cuscope sizes it: the time of GetCounterDataSize, of
// the zero fill, of the initialization; then `sets` sets of the sol configuration in
// user replay (one window of 4 launches per pass), re-initialized between sets with
// the zero fill ("zero") and without it, the buffer reused ("reuse"), with each set's
// decode, evaluation and re-initialization times and range 0's values. The two modes
// must give the same values (duration within noise) for "reuse" to be safe.
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>

#include "probe_cupti.h"
#include "probe_sol.cuh"

namespace {

struct Image {
  CUpti_RangeProfiler_Object* object;
  size_t max_ranges;
  std::vector<uint8_t> data;
  // Sizes (always: CUDA 13.0 refuses to re-initialize a used image otherwise) and
  // initializes; `zero`: fills the buffer with zeros first, as cuscope does.
  void Init(bool zero, double* size_ms, double* fill_ms, double* init_ms) {
    auto t0 = std::chrono::steady_clock::now();
    const size_t size = RangeCounterDataSize(object, kSol, max_ranges);
    *size_ms = Ms(t0);
    t0 = std::chrono::steady_clock::now();
    if (zero) {
      data.assign(size, 0);
    } else {
      data.resize(size);
    }
    *fill_ms = Ms(t0);
    t0 = std::chrono::steady_clock::now();
    InitializeRangeCounterData(object, data);
    *init_ms = Ms(t0);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const size_t max_ranges = argc > 1 ? strtoul(argv[1], nullptr, 10) : 2048;
  const int sets = argc > 2 ? atoi(argv[2]) : 4;
  const int n = 1 << 24;
  float *x, *y;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&y, n * 4);
  cudaMemset(x, 0, n * 4);
  cudaMemset(y, 0, n * 4);
  saxpy<<<n / 256, 256>>>(n, 2, x, y);
  cudaDeviceSynchronize();
  CUpti_RangeProfiler_Object* profiler = EnableRangeProfiler();
  HostConfig config = MakeHostConfig(ProbeChip(), CUPTI_PROFILER_TYPE_RANGE_PROFILER, kSol);
  Image image{profiler, max_ranges, {}};
  double size_ms, fill_ms, init_ms;
  image.Init(true, &size_ms, &fill_ms, &init_ms);
  printf("sol: %zu passes; image %.1f MiB for %zu ranges (%zu bytes a range)\n", config.passes,
         image.data.size() / 1048576.0, max_ranges, image.data.size() / max_ranges);
  printf("first init: size %.1f ms, zero fill %.1f ms, initialize %.1f ms\n", size_ms, fill_ms,
         init_ms);
  auto set_config = [&] {
    SetRangeConfig(profiler, config.image, image.data, CUPTI_AutoRange, CUPTI_UserReplay,
                   max_ranges, 0);
  };
  set_config();
  bool zeroed = true;  // how the image the next set decodes into was initialized
  for (int s = 0; s < 2 * sets; ++s) {
    SaxpyPasses(profiler, n, x, y);
    auto t0 = std::chrono::steady_clock::now();
    CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = profiler;
    CK(cuptiRangeProfilerDecodeData(&dd));
    const double decode_ms = Ms(t0);
    CUpti_RangeProfiler_GetCounterDataInfo_Params inf = {
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    inf.pCounterDataImage = image.data.data();
    inf.counterDataImageSize = image.data.size();
    CK(cuptiRangeProfilerGetCounterDataInfo(&inf));
    t0 = std::chrono::steady_clock::now();
    std::vector<double> v = EvaluateRange(config.host, image.data, 0, kSol);
    const double evaluate_ms = Ms(t0);
    printf("set %d (image %s): %zu ranges, %zu dropped; decode %.1f ms, evaluate %.2f ms; "
           "range 0: dur %.0f ns, SM %.2f%%, memory %.2f%%, DRAM %.2f%%, issue %.2f%%\n",
           s, zeroed ? "zero-filled" : "reused", inf.numTotalRanges, dd.numOfRangeDropped,
           decode_ms, evaluate_ms, v[0], v[1], v[2], v[3], v[9]);
    zeroed = !zeroed;  // the sets alternate
    image.Init(zeroed, &size_ms, &fill_ms, &init_ms);
    printf("  re-init (%s): size %.1f ms, fill %.1f ms, initialize %.1f ms\n",
           zeroed ? "zero fill" : "buffer reused", size_ms, fill_ms, init_ms);
    set_config();
  }
  ReleaseHostConfig(config);
  return 0;
}
