// What the GPU metrics sampled at a fixed interval (model::GpuSample, CUPTI PM
// sampling) say about each kernel and each device. Pure: profile in, rows out.
//
// A sample belongs to a kernel when it lies wholly inside one of its launches while
// no other kernel runs on the device: samples across a launch's edges, in gaps, or
// over concurrent kernels are left out (they count for the device, not a kernel).
// Per kernel name, a count metric (bytes, cycles, instructions) is summed over its
// samples and divided by their time; a rate metric (a percentage of peak) is
// averaged over their time. Kernels shorter than the interval hold no whole sample.
#ifndef CUSCOPE_LIB_ANALYSIS_GPU_SAMPLES_H_
#define CUSCOPE_LIB_ANALYSIS_GPU_SAMPLES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/analysis/verdict.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

// What sampled metrics make, each unset when a metric it needs was not sampled
// (or, for one sample, is not finite).
struct DerivedRates {
  std::optional<double> sm_active_pct;     // SM cycles active / elapsed
  std::optional<double> issue_pct;         // instructions / (SMs x 4 per cycle x cycles)
  std::optional<double> tensor_pct;        // tensor pipe, % of peak
  std::optional<double> dram_pct;          // DRAM throughput, % of peak
  std::optional<double> dram_bytes_per_s;  // read + write
  std::optional<double> l2_bytes_per_s;
  std::optional<double> sm_clock_hz;  // SM cycles elapsed per second
};

// Sampled metrics over some samples (a kernel's, or a device's), and what they make.
struct SampledRates : DerivedRates {
  uint64_t samples = 0;
  uint64_t sampled_ns = 0;  // total time of the samples
  // Each sampled metric: a count per second, or a rate averaged over time.
  std::vector<std::pair<std::string, double>> values;
};

struct SampledKernel {
  uint32_t device_id = 0;
  std::string name;  // demangled
  uint64_t launches = 0;
  uint64_t kernel_ns = 0;  // total time of its launches with usable times
  SampledRates rates;
  // The speed-of-light verdict from its samples (sampled_verdict.h), absent with fewer
  // than kMinSampledVerdictSamples samples or without an SM part and a memory level.
  std::optional<Verdict> verdict;
  // Share of its time its samples cover (0..100).
  double coverage_pct() const {
    return kernel_ns > 0 ? 100.0 * double(rates.sampled_ns) / double(kernel_ns) : 0;
  }
};

struct SampledDevice {
  uint32_t device_id = 0;
  uint64_t interval_ns = 0;
  std::vector<std::string> metrics;  // as configured
  SampledRates all;                  // every sample
  SampledRates in_kernels;           // samples that lie inside any kernel(s)
  uint64_t attributed = 0;           // samples that went to one kernel
};

struct GpuSampleAnalysis {
  std::vector<SampledDevice> devices;
  // Kernels with at least one launch on a sampled device, by total time, descending.
  std::vector<SampledKernel> kernels;
  bool empty() const { return devices.empty(); }
};

GpuSampleAnalysis AnalyzeGpuSamples(const model::Profile& p);

// What the run says of its GPU metrics sampling: "name: value" for each run note of
// the "gpu_metrics" group (model::NotesOfGroup), e.g. "status: cuptiPmSamplingEnable
// failed: ...", "metrics: ...", "samples: 1234".
std::vector<std::string> GpuSampleNotes(const model::Profile& p);

// A device's sample configuration, resolved once: its metrics, which are rates, and
// where the metrics the derived rates need sit among them (-1: not sampled).
struct SampleLayout {
  std::vector<std::string> names;  // in the order of GpuSample::values
  std::vector<bool> rate;          // per metric: a rate (% of peak), else a count
  int sm_count = 0;                // the device's SMs (0: unknown, no issue %)
  int sm_elapsed = -1, sm_active = -1, inst = -1, tensor = -1, dram_pct = -1, dram_read = -1,
      dram_write = -1, l2 = -1;
};
SampleLayout SampleLayoutOf(const model::Profile& p, const model::GpuSampleConfig& config);

// Samples combined by the rules above (a kernel's, a device's, a trace's bin): each
// count summed and divided by the time of the samples where it was finite, each rate
// averaged over that time. `layout` must outlive it.
class SampleSum {
 public:
  explicit SampleSum(const SampleLayout& layout)
      : layout_(&layout), sums_(layout.names.size()), metric_ns_(layout.names.size()) {}
  // A sample with no time or another number of values than the layout's is left out.
  void Add(const model::GpuSample& s);
  uint64_t samples() const { return samples_; }
  uint64_t ns() const { return ns_; }
  SampledRates Rates() const;
  void Clear();

 private:
  const SampleLayout* layout_;
  uint64_t samples_ = 0, ns_ = 0;
  std::vector<double> sums_;         // counts, or rates times the sample's time
  std::vector<uint64_t> metric_ns_;  // time of the samples where the metric was finite
};

// One sample's derived rates, by the rules above: its counts over its duration, its
// rates as they are; a metric whose value is not finite counts as not sampled. All
// unset for a sample of zero duration or whose values do not match the layout.
DerivedRates SampleRates(const model::GpuSample& s, const SampleLayout& layout);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_GPU_SAMPLES_H_
