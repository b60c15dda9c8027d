// A fake of CUPTI's PM sampling, Profiler Host API (PM sampling configurations only:
// a Range Profiler host object is refused, so counters stay off) and device queries,
// and the callback subscription, for tests that drive the GPU sampler
// (lib/collect/gpu_sampler.h) without a GPU.
//
// It behaves as CUPTI did on the H200 towards those callers: a metric is accepted
// unless refused; metrics fit one pass up to a limit; samples made by Produce while
// a device samples wait in its "hardware buffer" until DecodeData moves them into the
// counter data image, as many as the image holds (COUNTER_DATA_FULL, else
// END_OF_RECORDS); a sample's value of metric j is its number (from 1) x 10 + j.
#ifndef CUSCOPE_TESTS_FAKE_CUPTI_FAKE_PM_SAMPLING_H_
#define CUSCOPE_TESTS_FAKE_CUPTI_FAKE_PM_SAMPLING_H_

#include <cstdint>
#include <string>

namespace fake_pm {

struct Calls {
  int enables = 0, starts = 0, stops = 0, disables = 0, decodes = 0;
  uint64_t produced = 0;  // samples made while sampling
};
Calls GetCalls();

// The chip cuptiDeviceGetChipName names ("" makes it fail).
void SetChip(const std::string& chip);
// A metric the host API refuses.
void Refuse(const std::string& metric);
// Most metrics in one pass (more need 2 passes).
void SetMetricsPerPass(int n);
// Makes `n` samples of `interval_ns` each on device `device` from `start_ns` on, if it
// samples (else none). Returns how many were made.
uint64_t Produce(uint32_t device, uint64_t n, uint64_t start_ns, uint64_t interval_ns);
// Makes each later cuptiPmSamplingStop take `ms` milliseconds (0: none).
void SetStopDelayMs(int ms);
// Makes the next `n` calls of cuptiProfilerHostEvaluateToGpuValues fail.
void FailEvaluations(int n);
// Makes one sample on `device` at `start_ns` that ends before it starts.
void ProduceBackwards(uint32_t device, uint64_t start_ns);
// Whether device `device` samples now (started, not stopped).
bool Sampling(uint32_t device);
// CUPTI's context-created callback for device `device` (its context handle is
// device + 1), made on the calling thread to the subscriber, when one is subscribed
// (the subscription always succeeds). Returns whether a callback was made.
bool ContextCreated(uint32_t device);
// Forgets everything (between tests); with `keep_objects`, not the devices' PM sampling
// objects (as in one process, where a session's sampler keeps them from run to run).
void Reset(bool keep_objects = false);

}  // namespace fake_pm

#endif  // CUSCOPE_TESTS_FAKE_CUPTI_FAKE_PM_SAMPLING_H_
