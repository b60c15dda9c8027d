#include "lib/inject/gpu_metrics.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace cuscope::inject {

void StartGpuMetrics(collect::Collector& collector, collect::CollectOptions& options,
                     model::RunInfo& run, WarnFn warn) {
  if (options.sampling.enabled && options.counters_enabled()) {
    // Both use the GPU's performance monitors: the counters asked for win.
    options.sampling.enabled = false;
    run.notes.gpu_metrics_status =
        "off: counters (metrics) were asked for too, and both use the GPU's performance "
        "monitors";
    warn(
        "gpu metrics: off for this run (counters were asked for too; both use the GPU's "
        "performance monitors)");
  }
  if (!options.sampling.enabled) return;
  options.sampling.run_start_ns = run.start_ns;
  absl::Status sampling = collector.sampler().Start(options.sampling);
  if (!sampling.ok()) {
    run.notes.gpu_metrics_status = std::string(sampling.message());
    warn(absl::StrCat("gpu metrics: ", sampling.message(), "; tracing goes on without them"));
  }
}

void StopGpuMetrics(collect::Collector& collector, const collect::CollectOptions& options,
                    model::RunInfo& run, bool on_signal, WarnFn warn) {
  if (!options.sampling.enabled) return;
  collector.sampler().Stop(/*wait=*/!on_signal);
  model::MergeNotes(collector.sampler().Notes(), &run.notes);
  if (!run.notes.gpu_metrics_status.empty()) {
    warn(absl::StrCat("gpu metrics: ", run.notes.gpu_metrics_status));
  }
}

void StartSource(collect::Collector& collector, const collect::CollectOptions& options,
                 model::RunInfo& run, WarnFn warn) {
  if (!options.source.enabled) return;
  absl::Status st = collector.pc_sampler().Start(options.source);
  if (!st.ok()) {
    run.notes.source_status = std::string(st.message());
    warn(absl::StrCat("source: ", st.message(), "; tracing goes on without PC samples"));
  }
}

void StopSource(collect::Collector& collector, const collect::CollectOptions& options,
                model::RunInfo& run, bool on_signal, WarnFn warn) {
  if (!options.source.enabled) return;
  if (!on_signal) collector.pc_sampler().Stop();
  model::MergeNotes(collector.pc_sampler().Notes(), &run.notes);
  if (!run.notes.source_status.empty()) {
    warn(absl::StrCat("source: ", run.notes.source_status));
  }
  if (!run.notes.source_buffer_full.empty())
    warn(absl::StrCat("source: ", run.notes.source_buffer_full));
}

absl::Status AppendBatch(store::ProfileWriter& writer, const model::Profile& batch, WarnFn warn) {
  absl::Status st = writer.Append(batch);
  if (!absl::IsInvalidArgument(st) || batch.samples.empty()) return st;
  warn(absl::StrCat("gpu metrics: a batch of samples was not written: ", st.message()));
  model::Profile rest = batch;  // a copy, in this rare case only
  rest.samples.clear();
  rest.sample_configs.clear();
  return writer.Append(rest);
}

}  // namespace cuscope::inject
