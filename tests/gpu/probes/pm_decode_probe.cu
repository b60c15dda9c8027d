// Development probe (issue 11): PM sampling decoded WHILE the GPU runs, as cuscope's
// sampler does (the session-6 probe decoded once, after stopping). A worker thread
// runs a 400-launch step over and over for RUN_MS; the main thread decodes every
// DECODE_MS and prints one line per decode call: its result, stop reason, overflow
// flag, completed samples and their span (relative to the start of sampling). Then the
// share of samples that lie wholly inside a kernel.
//   pm_decode_probe APPEND RESET [interval_ns=10000] [run_ms=2000] [decode_ms=100]
//                   [buffer_mb=512] [image_samples=20000] [early]
//   early: sampling starts right after the context is made, before the program's
//          allocations and first kernels (as cuscope's context-created callback does)
//   APPEND: oldest | latest (hardware buffer append mode)
//   RESET:  copy (a blank copy of the image) | init (cuptiPmSamplingCounterDataImageInitialize)
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
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>


int main(int argc, char** argv) {
  if (argc < 3) {
    printf("usage: pm_decode_probe oldest|latest copy|init [interval_ns] [run_ms] [decode_ms] "
           "[buffer_mb] [image_samples]\n");
    return 2;
  }
  const bool latest = strcmp(argv[1], "latest") == 0;
  const bool init_reset = strcmp(argv[2], "init") == 0;
  const uint64_t interval = argc > 3 ? strtoull(argv[3], nullptr, 10) : 10000;
  const int run_ms = argc > 4 ? atoi(argv[4]) : 2000;
  const int decode_ms = argc > 5 ? atoi(argv[5]) : 100;
  const size_t buffer_mb = argc > 6 ? strtoull(argv[6], nullptr, 10) : 512;
  const uint32_t image_samples = argc > 7 ? strtoul(argv[7], nullptr, 10) : 20000;
  std::vector<const char*> metrics = {
      "sm__cycles_elapsed.avg", "sm__cycles_active.avg",
      "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
      "dram__throughput.avg.pct_of_peak_sustained_elapsed", "sm__inst_executed.sum",
      "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum"};
  const bool early = argc > 8 && strcmp(argv[8], "early") == 0;
  const int sizes[4] = {1 << 16, 1 << 20, 1 << 22, 1 << 18};
  float *x = nullptr, *y = nullptr;
  auto allocate = [&] {
    cudaMalloc(&x, (1 << 22) * 4);
    cudaMalloc(&y, (1 << 22) * 4);
    cudaMemset(x, 0, (1 << 22) * 4);
    cudaMemset(y, 0, (1 << 22) * 4);
    cudaDeviceSynchronize();
  };
  cudaFree(0);  // the context
  if (!early) allocate();
  RecordKernels();

  CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CK(cuptiProfilerInitialize(&pi));
  const char* chip = ProbeChip();
  HostConfig config = MakeHostConfig(chip, CUPTI_PROFILER_TYPE_PM_SAMPLING, metrics);
  printf("%s %s interval %llu ns, run %d ms, decode every %d ms, buffer %zu MB, image %u samples; "
         "passes %zu\n",
         argv[1], argv[2], (unsigned long long)interval, run_ms, decode_ms, buffer_mb,
         image_samples, config.passes);

  PmSampling pm = EnablePmSampling(config, metrics, interval, buffer_mb << 20, latest, image_samples);
  std::vector<uint8_t>& data = pm.image;
  const std::vector<uint8_t> blank = data;
  printf("counter data image: %zu bytes (%.1f bytes a sample)\n", data.size(),
         double(data.size()) / image_samples);

  uint64_t t0 = 0;
  cuptiGetTimestamp(&t0);
  CUpti_PmSampling_Start_Params st = {CUpti_PmSampling_Start_Params_STRUCT_SIZE};
  st.pPmSamplingObject = pm.object;
  CK(cuptiPmSamplingStart(&st));
  if (early) allocate();
  std::atomic<bool> done{false};
  std::thread worker([&] {
    auto begin = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - begin < std::chrono::milliseconds(run_ms)) {
      for (int k = 0; k < 400; ++k) {
        int n = sizes[k % 4];
        axpy<<<(n + 255) / 256, 256>>>(n, 1.0f, x, y);
      }
      cudaDeviceSynchronize();
    }
    done = true;
  });

  struct Sample {
    uint64_t start, end;
  };
  std::vector<Sample> samples;
  auto decode_all = [&](const char* when) {
    for (int round = 0; round < 100; ++round) {
      auto d0 = std::chrono::steady_clock::now();
      CUpti_PmSampling_DecodeData_Params dd = {CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
      dd.pPmSamplingObject = pm.object;
      dd.pCounterDataImage = data.data();
      dd.counterDataImageSize = data.size();
      CUptiResult r = cuptiPmSamplingDecodeData(&dd);
      const double decode_ms_taken =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - d0).count();
      CUpti_PmSampling_GetCounterDataInfo_Params inf = {
          CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
      inf.pCounterDataImage = data.data();
      inf.counterDataImageSize = data.size();
      CUptiResult ri = cuptiPmSamplingGetCounterDataInfo(&inf);
      uint64_t first = 0, last = 0;
      auto e0 = std::chrono::steady_clock::now();
      for (size_t i = 0; ri == CUPTI_SUCCESS && i < inf.numCompletedSamples; ++i) {
        uint64_t start = 0, end = 0;
        if (!SampleSpan(pm.object, data, i, &start, &end)) break;
        EvaluateRange(config.host, data, i, metrics);
        if (i == 0) first = start;
        last = end;
        samples.push_back({start, end});
      }
      const double eval_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - e0).count();
      uint64_t now = 0;
      cuptiGetTimestamp(&now);
      const char* rs = "";
      cuptiGetResultString(r, &rs);
      printf("%s t=%.1f ms: decode %s (%.2f ms) reason %d overflow %d | total %zu populated %zu "
             "completed %zu | span %.2f..%.2f ms | evaluate %.2f ms\n",
             when, (now - t0) / 1e6, rs, decode_ms_taken, (int)dd.decodeStopReason, dd.overflow,
             (size_t)inf.numTotalSamples, (size_t)inf.numPopulatedSamples,
             (size_t)inf.numCompletedSamples, first ? (first - (double)t0) / 1e6 : -1.0,
             last ? (last - (double)t0) / 1e6 : -1.0, eval_ms);
      if (init_reset) {
        InitializeImage(pm);
      } else {
        data = blank;
      }
      if (r != CUPTI_SUCCESS || dd.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL)
        break;
    }
  };
  while (!done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(decode_ms));
    decode_all("run ");
  }
  worker.join();
  CUpti_PmSampling_Stop_Params sp = {CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
  sp.pPmSamplingObject = pm.object;
  CK(cuptiPmSamplingStop(&sp));
  decode_all("stop");
  cuptiActivityFlushAll(1);
  std::sort(g_kernels.begin(), g_kernels.end(),
            [](const Kernel& a, const Kernel& b) { return a.start < b.start; });
  size_t inside = 0;
  for (const Sample& s : samples) {
    auto it = std::upper_bound(g_kernels.begin(), g_kernels.end(), s.start,
                               [](uint64_t t, const Kernel& k) { return t < k.start; });
    if (it != g_kernels.begin() && s.end <= (it - 1)->end) ++inside;
  }
  printf("RESULT %s %s %llu ns: %zu samples, %zu wholly inside one of %zu kernels; kernels "
         "%.2f..%.2f ms\n",
         argv[1], argv[2], (unsigned long long)interval, samples.size(), inside,
         g_kernels.size(), g_kernels.empty() ? 0 : (g_kernels.front().start - (double)t0) / 1e6,
         g_kernels.empty() ? 0 : (g_kernels.back().end - (double)t0) / 1e6);
  return 0;
}
