// Development probe (issue 10): does the order in which metrics are added to a
// configuration decide which kernel-replay pass collects them, and does the first pass
// see the program's own cache state? A producer writes 24 MiB (it stays in the 50 MB
// L2), then a consumer reads it and writes 24 MiB more; only the consumer is measured
// (kernel replay, auto range). Unprofiled, its input hits in L2: few DRAM reads.
//   pass_order_probe METRIC[,METRIC...]
// Prints the passes and every metric's value for the consumer's range.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "probe_cupti.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>


__global__ void produce(float* y, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = static_cast<float>(i & 1023);
}

__global__ void consume(const float* y, float* z, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) z[i] = 2.0f * y[i];
}

int main(int argc, char** argv) {
  std::vector<std::string> names;
  std::stringstream in(argc > 1 ? argv[1] : "dram__bytes_read.sum,dram__bytes_write.sum");
  for (std::string m; std::getline(in, m, ',');) names.push_back(m);
  std::vector<const char*> metrics;
  for (auto& m : names) metrics.push_back(m.c_str());
  const size_t n = size_t{6} << 20;  // 24 MiB of floats
  float *y, *z, *big;
  cudaMalloc(&y, n * 4);
  cudaMalloc(&z, n * 4);
  cudaMalloc(&big, size_t{1} << 30);  // memory a kernel replay must save and restore
  cudaMemset(big, 0, size_t{1} << 30);
  produce<<<(n + 255) / 256, 256>>>(y, n);
  consume<<<(n + 255) / 256, 256>>>(y, z, n);
  cudaDeviceSynchronize();
  CUpti_RangeProfiler_Object* profiler = EnableRangeProfiler();
  HostConfig config = MakeHostConfig(ProbeChip(), CUPTI_PROFILER_TYPE_RANGE_PROFILER, metrics);
  std::vector<uint8_t> data = RangeCounterData(profiler, metrics, 4);
  SetRangeConfig(profiler, config.image, data, CUPTI_AutoRange, CUPTI_KernelReplay, 4, 0);
  produce<<<(n + 255) / 256, 256>>>(y, n);  // not measured: leaves y in L2
  cudaDeviceSynchronize();
  CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  st.pRangeProfilerObject = profiler;
  CK(cuptiRangeProfilerStart(&st));
  consume<<<(n + 255) / 256, 256>>>(y, z, n);
  CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  sp.pRangeProfilerObject = profiler;
  CK(cuptiRangeProfilerStop(&sp));
  CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  dd.pRangeProfilerObject = profiler;
  CK(cuptiRangeProfilerDecodeData(&dd));
  const std::vector<double> v = EvaluateRange(config.host, data, 0, metrics);
  printf("passes %zu:", config.passes);
  for (size_t i = 0; i < metrics.size(); ++i) {
    if (names[i].rfind("dram", 0) == 0 || names[i].rfind("gpu__time", 0) == 0 ||
        names[i].rfind("lts__t_bytes", 0) == 0)
      printf(" %s=%.4g", metrics[i], v[i]);
  }
  printf("\n");
  return 0;
}
