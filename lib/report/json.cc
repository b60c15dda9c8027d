#include "lib/report/json.h"

#include <cmath>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lib/model/demangle.h"
#include "lib/report/counter_outcome_text.h"
#include "lib/report/findings_text.h"
#include "lib/report/format.h"
#include "lib/report/gpu_samples_text.h"
#include "lib/report/json_writer.h"
#include "lib/report/number_format.h"
#include "lib/report/run_fields.h"
#include "lib/report/verdict_text.h"

namespace cuscope::report {

using model::Demangle;
namespace {

using analysis::DurationStats;
using json::Key;
using json::Num;
using json::Str;
using json::Writer;

// A number, or null when not known or not finite (infinite intensity: no bytes).
void NumOrNull(Writer& w, bool known, double v) {
  if (known && std::isfinite(v)) {
    w.Double(v);
  } else {
    w.Null();
  }
}

void JsonStats(Writer& w, const DurationStats& s) {
  Key(w, "instances"), w.Uint64(s.count);
  Key(w, "total_ns"), w.Uint64(s.total_ns);
  Key(w, "avg_ns"), Num(w, s.avg_ns);
  Key(w, "median_ns"), Num(w, s.median_ns);
  Key(w, "min_ns"), w.Uint64(s.min_ns);
  Key(w, "max_ns"), w.Uint64(s.max_ns);
  Key(w, "stddev_ns"), Num(w, s.stddev_ns);
}

// Writes "name": {"total_rows": N, "rows": [...]} with `write_row` for each shown row.
template <typename Row, typename WriteRow>
void JsonTable(Writer& w, absl::string_view name, const std::vector<Row>& rows, int top,
               WriteRow write_row) {
  Key(w, name);
  w.StartObject();
  Key(w, "total_rows"), w.Uint64(rows.size());
  Key(w, "rows");
  w.StartArray();
  const size_t shown = ShownRows(rows.size(), top);
  for (size_t i = 0; i < shown; ++i) {
    w.StartObject();
    write_row(rows[i]);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// The run fields of `group` (run_fields.h), each with the JSON type of its value.
void WriteRunFields(Writer& w, RunField::Group group, const model::RunInfo& run,
                    const analysis::Summary& s) {
  for (const RunField& f : RunFields()) {
    if (f.group != group) continue;
    Key(w, f.key);
    const RunFieldValue v = f.value(run, s);
    if (const std::string* text = std::get_if<std::string>(&v)) {
      Str(w, *text);
    } else if (const int64_t* i = std::get_if<int64_t>(&v)) {
      w.Int64(*i);
    } else {
      w.Uint64(std::get<uint64_t>(v));
    }
  }
}

void WriteRun(Writer& w, const model::RunInfo& run, const analysis::Summary& s) {
  Key(w, "run");
  w.StartObject();
  WriteRunFields(w, RunField::Group::kRun, run, s);
  Key(w, "extra");
  w.StartObject();
  // The run notes, by their stored keys (the profile's extra.* meta keys).
  for (const auto& [k, v] : model::NotesToKeyValues(run.notes)) Key(w, k), Str(w, v);
  w.EndObject();
  w.EndObject();

  Key(w, "counts");
  w.StartObject();
  WriteRunFields(w, RunField::Group::kCounts, run, s);
  w.EndObject();
}

void WriteDevices(Writer& w, const model::Profile& p, const analysis::Summary& s) {
  Key(w, "devices");
  w.StartArray();
  for (const analysis::DeviceBusy& d : s.devices) {
    w.StartObject();
    Key(w, "id"), w.Uint(d.device_id);
    Key(w, "name"), Str(w, d.device_name);
    if (const model::DeviceInfo* info = p.FindDevice(d.device_id)) {
      Key(w, "uuid"), Str(w, info->uuid);
      Key(w, "compute_capability"),
          Str(w, absl::StrFormat("%d.%d", info->compute_major, info->compute_minor));
      Key(w, "sm_count"), w.Int(info->sm_count);
      Key(w, "global_memory_bytes"), w.Int64(info->global_memory_bytes);
      Key(w, "global_memory_bandwidth_kbps"), w.Int64(info->global_memory_bandwidth_kbps);
      Key(w, "l2_cache_bytes"), w.Int64(info->l2_cache_bytes);
      Key(w, "core_clock_khz"), w.Int64(info->core_clock_khz);
    }
    Key(w, "busy_ns"), w.Uint64(d.busy_ns);
    Key(w, "kernel_ns"), w.Uint64(d.kernel_ns);
    Key(w, "busy_percent"), Num(w, d.busy_percent);
    w.EndObject();
  }
  w.EndArray();
}

void WriteSummaryTables(Writer& w, const analysis::Summary& s, int top) {
  JsonTable(w, "kernels", s.kernels, top, [&](const analysis::KernelSummaryRow& r) {
    Key(w, "name"), Str(w, Demangle(r.name));
    Key(w, "time_percent"), Num(w, r.time_percent);
    JsonStats(w, r.stats);
    Key(w, "measured_launches"), w.Uint64(r.measured_launches);
    Key(w, "all_measured"), w.Bool(r.all_measured);
  });
  JsonTable(w, "api", s.api, top, [&](const analysis::ApiSummaryRow& r) {
    Key(w, "name"), Str(w, r.name);
    Key(w, "time_percent"), Num(w, r.time_percent);
    JsonStats(w, r.stats);
  });
  JsonTable(w, "memory", s.memory, top, [&](const analysis::MemorySummaryRow& r) {
    Key(w, "operation"), Str(w, r.operation);
    Key(w, "time_percent"), Num(w, r.time_percent);
    JsonStats(w, r.stats);
    Key(w, "total_bytes"), w.Uint64(r.total_bytes);
    Key(w, "bandwidth_gbps"), Num(w, r.bandwidth_gbps);
  });
}

void WriteRegions(Writer& w, const std::vector<analysis::RegionSummaryRow>& regions, int top) {
  JsonTable(w, "regions", regions, top, [&](const analysis::RegionSummaryRow& r) {
    Key(w, "path"), Str(w, r.path);
    Key(w, "domain"), Str(w, r.domain);
    JsonStats(w, r.stats);
    Key(w, "kernel_count"), w.Uint64(r.kernel_count);
    Key(w, "gpu_time_ns"), w.Uint64(r.gpu_time_ns);
    if (!r.location.empty()) Key(w, "location"), Str(w, r.location);  // only when known
    Key(w, "top_kernels");
    w.StartArray();
    for (const analysis::RegionTopKernel& k : r.top_kernels) {
      w.StartObject();
      Key(w, "name"), Str(w, Demangle(k.name));
      Key(w, "count"), w.Uint64(k.count);
      Key(w, "total_ns"), w.Uint64(k.total_ns);
      w.EndObject();
    }
    w.EndArray();
  });
}

void WriteCeilings(Writer& w, const std::vector<analysis::Ceilings>& ceilings) {
  if (ceilings.empty()) return;
  Key(w, "ceilings");
  w.StartArray();
  for (const analysis::Ceilings& c : ceilings) {
    w.StartObject();
    Key(w, "device_id"), w.Uint(c.device_id);
    Key(w, "valid"), w.Bool(c.valid);
    Key(w, "sm_clock_hz"), Num(w, c.sm_clock_hz);
    // FLOP/s need the SM clock; the per-cycle peaks (what the text prints without it)
    // do not.
    for (analysis::Precision p : analysis::kAllPrecisions) {
      Key(w, absl::StrCat("peak_", analysis::PrecisionKey(p), "_flops"));
      Num(w, analysis::PeakFlops(c, p));
      Key(w, absl::StrCat("peak_", analysis::PrecisionKey(p), "_flops_per_cycle"));
      Num(w, analysis::PeakFlopsPerCycle(c, p));
    }
    Key(w, "peak_dram_bytes_per_s"), Num(w, c.peak_dram_bytes_per_s);
    Key(w, "peak_l2_bytes_per_s"), Num(w, c.peak_l2_bytes_per_s);
    Key(w, "peak_l1_bytes_per_s"), Num(w, c.peak_l1_bytes_per_s);
    w.EndObject();
  }
  w.EndArray();
}

// The signature, how it was measured and its kernel time.
void WriteCounterIdentity(Writer& w, const analysis::KernelCounters& k) {
  Key(w, "name"), Str(w, Demangle(k.name));
  Key(w, "device_id"), w.Uint(k.device_id);
  Key(w, "grid"), w.StartArray(), w.Uint(k.grid.x), w.Uint(k.grid.y), w.Uint(k.grid.z),
      w.EndArray();
  Key(w, "block"), w.StartArray(), w.Uint(k.block.x), w.Uint(k.block.y), w.Uint(k.block.z),
      w.EndArray();
  Key(w, "region"), w.Bool(k.region);
  if (k.region) {
    // The region's kernels per traced instance (0/null when unknown).
    Key(w, "region_kernel_ns"),
        NumOrNull(w, k.region_kernels.has_value(),
                  k.region_kernels.value_or(analysis::RegionKernels()).ns_per_instance);
    Key(w, "region_kernel_flops_per_s"),
        NumOrNull(w, k.region_kernels.has_value() && k.total_flops > 0,
                  k.region_kernels.value_or(analysis::RegionKernels()).flops_per_s);
  }
  Key(w, "time_percent"), Num(w, k.time_percent);
  Key(w, "total_time_ns"), w.Uint64(k.total_time_ns);
  Key(w, "time_estimated"), w.Bool(k.time_estimated);
  Key(w, "launches"), w.Uint64(k.launches);
  Key(w, "measured_launches"), w.Uint64(k.measured_launches);
  Key(w, "sets"), w.Uint64(k.sets);
  Key(w, "passes"), w.Uint(k.max_passes);
  Key(w, "strategies");
  w.StartArray();
  for (model::CounterStrategy st : k.strategies) Str(w, model::CounterStrategyName(st));
  w.EndArray();
  // How far the best set got (docs/counters.md, "In the reports").
  Key(w, "measurement");
  w.StartObject();
  Key(w, "text"), Str(w, MeasurementText(k));
  Key(w, "complete"), w.Bool(k.complete());
  Key(w, "passes"), w.Uint(k.progress.passes);
  Key(w, "passes_run"), w.Uint(k.progress.passes_run);
  Key(w, "metrics"), w.Uint64(k.progress.metrics);
  Key(w, "metrics_measured"), w.Uint64(k.progress.metrics_measured);
  w.EndObject();
  Key(w, "duration_ns"), Num(w, k.duration_ns);
}

// "key": {"dram": ..., "l2": ..., "l1": ...}.
void MemoryLevels(Writer& w, absl::string_view key, double dram, double l2, double l1) {
  Key(w, key);
  w.StartObject();
  Key(w, "dram"), Num(w, dram);
  Key(w, "l2"), Num(w, l2);
  Key(w, "l1"), Num(w, l1);
  w.EndObject();
}

// "key": {"fp32": ..., "fp64": ..., "fp16": ..., "tensor_fp16": ..., ...,
// "tensor": (every tensor precision), "total": ...}: one value per precision.
void Precisions(Writer& w, absl::string_view key, const analysis::KernelCounters& k,
                double (*value)(const analysis::PrecisionFlops&), double tensor, double total) {
  Key(w, key);
  w.StartObject();
  for (analysis::Precision p : analysis::kAllPrecisions) {
    Key(w, analysis::PrecisionKey(p)), Num(w, value(k.flops_of(p)));
  }
  Key(w, "tensor"), Num(w, tensor);
  Key(w, "total"), Num(w, total);
  w.EndObject();
}

// "precisions": {"tensor_bf16": {"flops", "flops_per_s", "pct_of_peak"}, ...}: the
// measured precisions.
void MeasuredPrecisions(Writer& w, const analysis::KernelCounters& k) {
  Key(w, "precisions");
  w.StartObject();
  for (analysis::Precision p : analysis::kAllPrecisions) {
    const analysis::PrecisionFlops& f = k.flops_of(p);
    if (!f.measured) continue;
    Key(w, analysis::PrecisionKey(p));
    w.StartObject();
    Key(w, "flops"), Num(w, f.flops);
    Key(w, "flops_per_s"), Num(w, f.flops_per_s);
    Key(w, "pct_of_peak"), Num(w, f.pct_of_peak);
    w.EndObject();
  }
  w.EndObject();
}

// FLOPs, bytes, their rates, intensities, % of each roof, ridges and the verdict.
void WriteCounterRoofline(Writer& w, const analysis::KernelCounters& k) {
  Key(w, "elapsed_cycles"), Num(w, k.elapsed_cycles);
  Key(w, "sm_clock_hz"), Num(w, k.sm_clock_hz);
  Precisions(
      w, "flops", k, [](const analysis::PrecisionFlops& f) { return f.flops; }, k.tensor_flops,
      k.total_flops);
  Precisions(
      w, "flops_per_s", k, [](const analysis::PrecisionFlops& f) { return f.flops_per_s; },
      k.tensor_flops_per_s, k.total_flops_per_s);
  MeasuredPrecisions(w, k);
  MemoryLevels(w, "bytes", k.dram_bytes, k.l2_bytes, k.l1_bytes);
  MemoryLevels(w, "bytes_per_s", k.dram_bytes_per_s, k.l2_bytes_per_s, k.l1_bytes_per_s);
  Key(w, "arithmetic_intensity");
  w.StartObject();
  Key(w, "dram"), NumOrNull(w, true, k.ai_dram);
  Key(w, "l2"), NumOrNull(w, true, k.ai_l2);
  Key(w, "l1"), NumOrNull(w, true, k.ai_l1);
  w.EndObject();
  Key(w, "pct_of_peak");
  w.StartObject();
  for (analysis::Precision p : analysis::kAllPrecisions) {
    Key(w, analysis::PrecisionKey(p)), Num(w, k.flops_of(p).pct_of_peak);
  }
  Key(w, "tensor"), Num(w, k.pct_tensor);
  Key(w, "compute"), NumOrNull(w, k.pct_compute.has_value(), k.pct_compute.value_or(0));
  Key(w, "dram"), NumOrNull(w, k.pct_dram.has_value(), k.pct_dram.value_or(0));
  Key(w, "l2"), NumOrNull(w, k.pct_l2.has_value(), k.pct_l2.value_or(0));
  Key(w, "l1"), NumOrNull(w, k.pct_l1.has_value(), k.pct_l1.value_or(0));
  w.EndObject();
  Key(w, "dominant_precision"), Str(w, analysis::PrecisionName(k.dominant));
  MemoryLevels(w, "ridge", k.ridge_dram, k.ridge_l2, k.ridge_l1);
  Key(w, "verdict"), Str(w, analysis::VerdictName(k.verdict.bound));
  Key(w, "sol_class"), Str(w, analysis::SolClassName(k.verdict.sol_class));
  Key(w, "small_grid"), w.Bool(k.verdict.small_grid);
  Key(w, "wave_blocks"), w.Uint64(k.wave_blocks);
  Key(w, "reason"), Str(w, CountersReason(k));
  // A verdict per launch size (analysis::LaunchSize), when the signature has sizes.
  Key(w, "sizes");
  w.StartArray();
  for (const analysis::LaunchSize& s : k.sizes) {
    w.StartObject();
    Key(w, "min_duration_ns"), Num(w, s.min_ns);
    Key(w, "max_duration_ns"), Num(w, s.max_ns);
    Key(w, "sets"), w.Uint64(s.set_indices.size());
    Key(w, "launches"), w.Uint64(s.launches);
    Key(w, "time_ns"), w.Uint64(s.time_ns);
    Key(w, "verdict"), Str(w, analysis::VerdictName(s.verdict.bound));
    Key(w, "sol_class"), Str(w, analysis::SolClassName(s.verdict.sol_class));
    w.EndObject();
  }
  w.EndArray();
}

void WriteOccupancy(Writer& w, const analysis::KernelCounters& k) {
  if (!k.achieved_occupancy && !k.theoretical.valid) return;
  Key(w, "occupancy");
  w.StartObject();
  const analysis::AchievedOccupancy achieved =
      k.achieved_occupancy.value_or(analysis::AchievedOccupancy());
  Key(w, "achieved_pct"), NumOrNull(w, k.achieved_occupancy.has_value(), achieved.percent);
  Key(w, "achieved_warps_per_sm"),
      NumOrNull(w, k.achieved_occupancy.has_value(), achieved.warps_per_sm);
  if (k.theoretical.valid) {
    Key(w, "theoretical_pct"), Num(w, k.theoretical.percent);
    Key(w, "blocks_per_sm"), w.Int(k.theoretical.blocks_per_sm);
    Key(w, "warps_per_sm"), w.Int(k.theoretical.warps_per_sm);
    Key(w, "limiter"), Str(w, k.theoretical.limiter);
  }
  w.EndObject();
}

// The optional sections (occupancy, stalls, memory, SOL), then every metric.
void WriteCounterSections(Writer& w, const analysis::KernelCounters& k) {
  WriteOccupancy(w, k);
  if (!k.stalls.empty()) {
    Key(w, "stalls");
    w.StartArray();
    for (const analysis::StallShare& st : k.stalls) {
      w.StartObject();
      Key(w, "reason"), Str(w, st.reason);
      Key(w, "percent"), Num(w, st.percent);
      w.EndObject();
    }
    w.EndArray();
  }
  if (k.memory) {
    Key(w, "memory");
    w.StartObject();
    Key(w, "shared_ld_bank_conflicts_per_inst"), Num(w, k.memory->shared_ld_conflicts_per_inst);
    Key(w, "shared_st_bank_conflicts_per_inst"), Num(w, k.memory->shared_st_conflicts_per_inst);
    Key(w, "global_ld_sectors_per_request"), Num(w, k.memory->global_ld_sectors_per_request);
    Key(w, "global_st_sectors_per_request"), Num(w, k.memory->global_st_sectors_per_request);
    w.EndObject();
  }
  if (k.sol) {
    Key(w, "sol");
    w.StartObject();
    // null where not measured.
    const analysis::SpeedOfLight& s = *k.sol;
    Key(w, "sm_pct"), NumOrNull(w, s.has_sm, s.sm_pct);
    Key(w, "memory_pct"), NumOrNull(w, s.has_memory, s.memory_pct);
    Key(w, "dram_pct"), NumOrNull(w, s.has_dram, s.dram_pct);
    Key(w, "l2_pct"), NumOrNull(w, s.has_l2, s.l2_pct);
    Key(w, "l1_pct"), NumOrNull(w, s.has_l1, s.l1_pct);
    Key(w, "tensor_pipe_pct"), NumOrNull(w, s.has_tensor_pipe, s.tensor_pipe_pct);
    Key(w, "fma_pipe_pct"), NumOrNull(w, s.has_fma_pipe, s.fma_pipe_pct);
    Key(w, "fp64_pipe_pct"), NumOrNull(w, s.has_fp64_pipe, s.fp64_pipe_pct);
    Key(w, "issue_pct"), NumOrNull(w, s.has_issue, s.issue_pct);
    Key(w, "highest_unit"), Str(w, k.sol->highest_unit);
    // sm_pct (memory_pct) is the busiest of this many measured parts of its breakdown,
    // so at least that; 0: measured itself.
    Key(w, "sm_parts"), w.Int(s.sm_parts);
    Key(w, "memory_parts"), w.Int(s.memory_parts);
    w.EndObject();
  }
  Key(w, "metrics");
  w.StartObject();
  for (const auto& [metric, v] : k.values) Key(w, metric), Num(w, v);
  w.EndObject();
}

// "counter_coverage": what the text's coverage line says, in numbers.
void WriteCoverage(Writer& w, const analysis::VerdictCoverage& c) {
  Key(w, "counter_coverage");
  w.StartObject();
  Key(w, "percent"), Num(w, c.percent());
  Key(w, "kernel_ns"), w.Uint64(c.kernel_ns);
  Key(w, "covered_ns"), w.Uint64(c.covered_ns);
  Key(w, "signatures"), w.Uint64(c.signatures);
  Key(w, "covered"), w.Uint64(c.covered);
  Key(w, "measured"), w.Uint64(c.measured);
  Key(w, "partial"), w.Uint64(c.partial);
  Key(w, "unknown"), w.Uint64(c.unknown);
  Key(w, "not_measured"), w.Uint64(c.not_measured());
  Key(w, "line"), Str(w, CoverageLine(c));
  w.EndObject();
}

// "counters_outcome": the opening line and its facts, when counters were asked for.
void WriteCounterOutcome(Writer& w, const analysis::CounterOutcome& o) {
  if (!o.asked) return;
  Key(w, "counters_outcome");
  w.StartObject();
  Key(w, "line"), Str(w, CounterOutcomeLine(o));
  Key(w, "settings_recorded"), w.Bool(o.settings_recorded);
  Key(w, "metrics"), Str(w, o.metrics);
  Key(w, "replay"), Str(w, o.replay);
  Key(w, "strategy"), Str(w, o.strategy);
  Key(w, o.regions ? "regions_measured" : "signatures_measured"), w.Uint64(o.measured);
  if (!o.regions) Key(w, "signatures"), w.Uint64(o.signatures);
  Key(w, "steps"), w.Uint64(o.steps);
  Key(w, "shortfalls");
  w.StartArray();
  for (const std::string& s : ShortfallTexts(o)) Str(w, s);
  w.EndArray();
  w.EndObject();
}

void WriteCounters(Writer& w, const ReportData& data, int top) {
  const bool section =
      !data.ceilings.empty() || !data.counters.empty() || !data.counter_notes.empty();
  if (section && data.coverage.signatures > 0) WriteCoverage(w, data.coverage);
  if (!data.counters.empty()) {
    JsonTable(w, "kernel_counters", data.counters, top, [&](const analysis::KernelCounters& k) {
      WriteCounterIdentity(w, k);
      WriteCounterRoofline(w, k);
      WriteCounterSections(w, k);
    });
  }
  if (!data.counter_notes.empty()) {
    Key(w, "counter_notes");
    w.StartArray();
    for (const std::string& n : data.counter_notes) Str(w, n);
    w.EndArray();
  }
}

}  // namespace

void WriteJson(const ReportData& data, const ReportOptions& options, std::ostream& out) {
  const model::Profile& p = ProfileOf(data);
  json::Document doc;
  Writer& w = doc.writer();
  w.StartObject();
  Key(w, "schema_version"), w.Int(kJsonSchemaVersion);
  WriteCounterOutcome(w, data.counter_outcome);
  WriteRun(w, p.run, data.summary);
  WriteDevices(w, p, data.summary);
  WriteSummaryTables(w, data.summary, options.top);
  WriteRegions(w, data.regions, options.top);
  WriteCeilings(w, data.ceilings);
  WriteCounters(w, data, options.top);
  WriteGpuSamplesJson(w, data.gpu_samples, data.gpu_sample_notes, options.top);
  WriteFindingsJson(w, p, data.findings, 0);
  w.EndObject();
  doc.WriteTo(out);
}

}  // namespace cuscope::report
