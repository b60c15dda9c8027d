// Development probe (issue 11): PM sampling as a way to have speed-of-light numbers on
// every kernel of a loop at a small cost. The same 400-launch step as
// sparse_range_probe (4 kernel sizes), with kernel activity records on; PM sampling of
// a few metrics every INTERVAL ns while the steps run; then the samples are matched to
// the kernels by time.
//   pm_sampling_probe [interval_ns=10000] [steps=24] [metrics=...]
// Prints: which metrics PM sampling accepts, the median step with and without
// sampling, samples decoded, and per kernel size the mean of each metric over the
// samples inside its kernels.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include "probe_cupti.h"
#include "probe_pm_sampling.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>



static double RunSteps(int steps, const int* sizes, float* x, float* y) {
  std::vector<double> ms;
  for (int s = 0; s < steps; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 400; ++k) {
      int n = sizes[k % 4];
      axpy<<<(n + 255) / 256, 256>>>(n, 1.0f, x, y);
    }
    cudaDeviceSynchronize();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::vector<double> tail(ms.begin() + std::min<size_t>(3, ms.size()), ms.end());
  std::sort(tail.begin(), tail.end());
  return tail.empty() ? 0 : tail[tail.size() / 2];
}

int main(int argc, char** argv) {
  uint64_t interval = argc > 1 ? strtoull(argv[1], nullptr, 10) : 10000;
  int steps = argc > 2 ? atoi(argv[2]) : 24;
  std::string list = argc > 3 ? argv[3]
                              : "dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,"
                                "sm__cycles_active.avg,sm__inst_executed.sum,"
                                "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
                                "sm__throughput.avg.pct_of_peak_sustained_elapsed,"
                                "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,"
                                "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,"
                                "gr__cycles_active.avg,gpu__time_duration.sum";
  const int sizes[4] = {1 << 16, 1 << 20, 1 << 22, 1 << 18};
  float *x, *y;
  cudaMalloc(&x, (1 << 22) * 4);
  cudaMalloc(&y, (1 << 22) * 4);
  cudaMemset(x, 0, (1 << 22) * 4);
  cudaMemset(y, 0, (1 << 22) * 4);
  RecordKernels();
  const double plain = RunSteps(steps, sizes, x, y);

  CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CK(cuptiProfilerInitialize(&pi));
  const char* chip = ProbeChip();
  // Each metric alone: accepted, and in how many passes (PM sampling takes one-pass
  // configurations only).
  std::vector<std::string> names;
  std::stringstream in(list);
  for (std::string m; std::getline(in, m, ',');) {
    HostConfig one;
    CUptiResult r = TryHostConfig(chip, CUPTI_PROFILER_TYPE_PM_SAMPLING, {m.c_str()}, &one);
    const char* s;
    cuptiGetResultString(r, &s);
    printf("metric %s: %s, %zu pass(es)\n", m.c_str(), r == CUPTI_SUCCESS ? "accepted" : s,
           one.passes);
    if (r == CUPTI_SUCCESS && one.passes == 1) names.push_back(m);
    ReleaseHostConfig(one);
  }
  if (names.empty()) return 1;
  std::vector<const char*> metrics;
  for (auto& m : names) metrics.push_back(m.c_str());
  HostConfig config;
  while (!metrics.empty()) {
    if (TryHostConfig(chip, CUPTI_PROFILER_TYPE_PM_SAMPLING, metrics, &config) == CUPTI_SUCCESS &&
        config.passes == 1) {
      break;
    }
    printf("together in %zu passes: dropping %s\n", config.passes, metrics.back());
    ReleaseHostConfig(config);
    metrics.pop_back();
  }
  if (metrics.empty()) return 1;
  const uint32_t kMaxSamples = 200000;
  PmSampling pm = EnablePmSampling(config, metrics, interval, size_t{512} << 20,
                                   /*keep_latest=*/false, kMaxSamples);
  std::vector<uint8_t>& data = pm.image;

  cuptiActivityFlushAll(1);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_kernels.clear();
  }
  CUpti_PmSampling_Start_Params st = {CUpti_PmSampling_Start_Params_STRUCT_SIZE};
  st.pPmSamplingObject = pm.object;
  CK(cuptiPmSamplingStart(&st));
  const double sampled = RunSteps(steps, sizes, x, y);
  CUpti_PmSampling_Stop_Params sp = {CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
  sp.pPmSamplingObject = pm.object;
  CK(cuptiPmSamplingStop(&sp));
  CUpti_PmSampling_DecodeData_Params dd = {CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
  dd.pPmSamplingObject = pm.object;
  dd.pCounterDataImage = data.data();
  dd.counterDataImageSize = data.size();
  CK(cuptiPmSamplingDecodeData(&dd));
  CUpti_PmSampling_GetCounterDataInfo_Params inf = {CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
  inf.pCounterDataImage = data.data();
  inf.counterDataImageSize = data.size();
  CK(cuptiPmSamplingGetCounterDataInfo(&inf));
  cuptiActivityFlushAll(1);
  printf("interval %llu ns, %d steps: median step %.3f ms plain, %.3f ms sampled (%.2fx); samples "
         "total %zu populated %zu completed %zu; decode stop reason %d, overflow %d; kernels %zu\n",
         (unsigned long long)interval, steps, plain, sampled, sampled / plain, inf.numTotalSamples,
         inf.numPopulatedSamples, inf.numCompletedSamples, (int)dd.decodeStopReason, dd.overflow,
         g_kernels.size());
  // Per sample: its span and values; a sample inside a kernel (by time) counts for it.
  std::sort(g_kernels.begin(), g_kernels.end(), [](auto& a, auto& b) { return a.start < b.start; });
  std::vector<std::vector<double>> sum(5, std::vector<double>(metrics.size(), 0));
  std::vector<int> count(5, 0);
  uint64_t first_sample = 0, last_sample = 0;
  for (size_t i = 0; i < inf.numCompletedSamples; ++i) {
    struct {
      uint64_t startTimestamp = 0, endTimestamp = 0;
    } si;
    if (!SampleSpan(pm.object, data, i, &si.startTimestamp, &si.endTimestamp)) {
      printf("sample %zu: no span\n", i);
      return 1;
    }
    const std::vector<double> v = EvaluateRange(config.host, data, i, metrics);
    if (i == 0) first_sample = si.startTimestamp;
    last_sample = si.endTimestamp;
    if (i < 3) {
      printf("sample %zu: %llu..%llu (%llu ns):", i, (unsigned long long)si.startTimestamp,
             (unsigned long long)si.endTimestamp,
             (unsigned long long)(si.endTimestamp - si.startTimestamp));
      for (size_t m = 0; m < v.size(); ++m) printf(" %s=%.4g", metrics[m], v[m]);
      printf("\n");
    }
    const uint64_t mid = (si.startTimestamp + si.endTimestamp) / 2;
    auto it = std::upper_bound(g_kernels.begin(), g_kernels.end(), mid,
                               [](uint64_t t, const Kernel& k) { return t < k.start; });
    int cls = 4;  // between kernels
    if (it != g_kernels.begin()) {
      const Kernel& k = *(it - 1);
      if (mid <= k.end && si.startTimestamp >= k.start && si.endTimestamp <= k.end) {
        cls = k.grid == (1 << 16) / 256 ? 0 : k.grid == (1 << 18) / 256 ? 1 : k.grid == (1 << 20) / 256 ? 2 : 3;
      } else if (mid <= k.end) {
        cls = -1;  // straddles a kernel's edge
      }
    }
    if (cls < 0) continue;
    ++count[cls];
    for (size_t m = 0; m < v.size(); ++m) sum[cls][m] += v[m];
  }
  if (!g_kernels.empty()) {
    printf("samples span %llu..%llu; kernels span %llu..%llu\n", (unsigned long long)first_sample,
           (unsigned long long)last_sample, (unsigned long long)g_kernels.front().start,
           (unsigned long long)g_kernels.back().end);
  }
  const char* label[5] = {"64K floats", "256K floats", "1M floats", "4M floats", "idle"};
  for (int c = 0; c < 5; ++c) {
    printf("%-12s %6d samples inside:", label[c], count[c]);
    for (size_t m = 0; m < metrics.size(); ++m)
      printf(" %s=%.4g", metrics[m], count[c] ? sum[c][m] / count[c] : 0.0);
    printf("\n");
  }
  // Kernel durations by size, for reference.
  std::vector<double> dur(4, 0);
  std::vector<int> n(4, 0);
  for (const Kernel& k : g_kernels) {
    int c = k.grid == (1 << 16) / 256 ? 0 : k.grid == (1 << 18) / 256 ? 1 : k.grid == (1 << 20) / 256 ? 2 : 3;
    dur[c] += k.end - k.start;
    ++n[c];
  }
  for (int c = 0; c < 4; ++c) printf("%s: %d kernels, mean %.2f us\n", label[c], n[c], n[c] ? dur[c] / n[c] / 1e3 : 0);
  return 0;
}
