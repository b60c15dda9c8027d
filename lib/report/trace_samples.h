// The GPU metric samples of a trace (model::GpuSample): each sampled device's
// configuration resolved once, and per sample, or per bin of samples
// (TraceOptions::sample_bin_ns), a counter event on its GPU's process for each rate its
// device's metrics make (the per-sample rates of lib/analysis/gpu_samples.h), as nsys
// shows them in rows under each GPU.
#ifndef CUSCOPE_LIB_REPORT_TRACE_SAMPLES_H_
#define CUSCOPE_LIB_REPORT_TRACE_SAMPLES_H_

#include <cstdint>
#include <map>
#include <vector>

#include "lib/analysis/gpu_samples.h"
#include "lib/model/profile.h"
#include "lib/report/trace_event.h"
#include "lib/report/trace_filter.h"

namespace cuscope::report {

class TraceSamples {
 public:
  // `filter`: which samples to keep and the bin width (null: every sample, unbinned).
  // Both must outlive the object.
  TraceSamples(const model::Profile& profile, const TraceFilter* filter);

  // Adds to `devices` (sorted, kept sorted) each sampled device with a configuration
  // and a kept sample: it gets its GPU process even without other work.
  void AddDevices(std::vector<uint32_t>& devices) const;
  // Hands each kept sample's counters, or each bin's, to `sink`, using `e` as scratch.
  // Samples of a device without a configuration, with no time or the wrong number of
  // values make none.
  void Events(TraceSink& sink, TraceEvent& e) const;

 private:
  const model::Profile& p_;
  const TraceFilter* filter_;
  // Each sampled device's configuration (its first, as the analysis takes them).
  std::map<uint32_t, analysis::SampleLayout> layouts_;
};

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_TRACE_SAMPLES_H_
