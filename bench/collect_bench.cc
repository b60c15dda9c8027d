// Activity records into the model: the work cuscope does for every CUPTI record
// on CUPTI's buffer thread. Target: at least 5 million records/s.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include "lib/collect/convert.h"

namespace {

// A launch as CUPTI reports it: one kernel record and one runtime API record.
struct Workload {
  std::vector<CUpti_ActivityKernel10> kernels;
  std::vector<CUpti_ActivityAPI> apis;
  std::vector<std::string> names;
};

Workload MakeWorkload(int launches, int distinct_kernels) {
  Workload w;
  for (int i = 0; i < distinct_kernels; ++i) {
    w.names.push_back("_Z6kernelILi" + std::to_string(i) + "EEvPfS0_i");
  }
  w.kernels.resize(launches);
  w.apis.resize(launches);
  for (int i = 0; i < launches; ++i) {
    CUpti_ActivityKernel10& k = w.kernels[i];
    std::memset(&k, 0, sizeof(k));
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = 1000000 + i * 5000ull;
    k.end = k.start + 3000;
    k.deviceId = 0;
    k.contextId = 1;
    k.streamId = 7 + i % 4;
    k.gridX = 128;
    k.gridY = 1;
    k.gridZ = 1;
    k.blockX = 256;
    k.blockY = 1;
    k.blockZ = 1;
    k.registersPerThread = 32;
    k.correlationId = i + 1;
    k.name = w.names[i % distinct_kernels].c_str();
    CUpti_ActivityAPI& a = w.apis[i];
    std::memset(&a, 0, sizeof(a));
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = 211;  // cudaLaunchKernel_v7000
    a.start = k.start - 2000;
    a.end = k.start - 500;
    a.processId = 100;
    a.threadId = 101;
    a.correlationId = i + 1;
  }
  return w;
}

void BM_ConvertLaunchRecords(benchmark::State& state) {
  Workload w = MakeWorkload(100000, static_cast<int>(state.range(0)));
  cuscope::model::Profile batch;
  cuscope::collect::RecordConverter converter(&batch);
  for (auto _ : state) {
    for (size_t i = 0; i < w.kernels.size(); ++i) {
      converter.Add(reinterpret_cast<const CUpti_Activity*>(&w.apis[i]));
      converter.Add(reinterpret_cast<const CUpti_Activity*>(&w.kernels[i]));
    }
    benchmark::DoNotOptimize(batch.kernels.data());
    batch.ClearRecords();  // as the collector does after each buffer
  }
  state.SetItemsProcessed(state.iterations() * w.kernels.size() * 2);
}
BENCHMARK(BM_ConvertLaunchRecords)->Arg(10)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
