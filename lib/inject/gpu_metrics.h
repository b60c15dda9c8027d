// The session's GPU metrics sampling (the gpu_metrics setting; lib/collect/
// gpu_sampler.h) and PC sampling (the source setting; lib/collect/pc_sampler.h):
// started after the other parts of the collector, stopped before the tracer's last
// flush. Its problems are notes in the run info and one stderr line.
#ifndef CUSCOPE_LIB_INJECT_GPU_METRICS_H_
#define CUSCOPE_LIB_INJECT_GPU_METRICS_H_

#include <string>

#include "lib/collect/collector.h"
#include "lib/collect/options.h"
#include "lib/model/profile.h"
#include "lib/store/writer.h"

namespace cuscope::inject {

// Starts the sampler when `options` ask for it. Settings asking for counters too are
// refused before (config::ConfigFromEnv); options that still hold both leave sampling
// off (and say so), since both use the GPU's performance monitors.
// `warn` prints one stderr line (the session's Warn).
using WarnFn = void (*)(const std::string& message);
void StartGpuMetrics(collect::Collector& collector, collect::CollectOptions& options,
                     model::RunInfo& run, WarnFn warn);
// Stops it and puts its notes into `run.notes`; `on_signal`: without waiting for its
// thread (which may be stuck in CUPTI where the signal interrupted the program).
void StopGpuMetrics(collect::Collector& collector, const collect::CollectOptions& options,
                    model::RunInfo& run, bool on_signal, WarnFn warn);

// Starts PC sampling when `options` ask for it (the source setting): a failure is the
// source.status note and one stderr line; the run goes on without samples.
void StartSource(collect::Collector& collector, const collect::CollectOptions& options,
                 model::RunInfo& run, WarnFn warn);
// Ends it (samples drained, sampling disabled) and puts its notes into `run.notes`; one
// stderr line when samples are missing or were lost. `on_signal`: no CUPTI call (the
// signal may have interrupted the program inside one); the samples of the last periodic
// drain are what the run keeps.
void StopSource(collect::Collector& collector, const collect::CollectOptions& options,
                model::RunInfo& run, bool on_signal, WarnFn warn);

// Appends `batch`; when the writer refuses it for its GPU samples (they would not
// load: InvalidArgument), writes the rest of it without them and says so, so that
// samples never cost the program's records.
absl::Status AppendBatch(store::ProfileWriter& writer, const model::Profile& batch, WarnFn warn);

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_GPU_METRICS_H_
