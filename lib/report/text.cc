#include "lib/report/text.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "lib/model/checked.h"
#include "lib/model/demangle.h"
#include "lib/model/metrics.h"
#include "lib/report/counter_outcome_text.h"
#include "lib/report/findings_text.h"
#include "lib/report/format.h"
#include "lib/report/gpu_samples_text.h"
#include "lib/report/number_format.h"
#include "lib/report/sizes_text.h"
#include "lib/report/verdict_text.h"

namespace cuscope::report {

using model::Demangle;
namespace {

using analysis::DurationStats;

// "  Label       value": the label padded to 11 columns.
// Long values wrap at the width, under the value.
void Field(std::ostream& out, absl::string_view label, const std::string& value, size_t width) {
  out << Wrapped(absl::StrFormat("%-11s %s", label, value), width, 2, 14);
}

std::string DeviceLine(const model::DeviceInfo& d) {
  std::string s = absl::StrFormat("GPU %d: %s", d.id, d.name.empty() ? "<unknown>" : d.name);
  std::vector<std::string> props;
  if (d.compute_major > 0) {
    props.push_back(absl::StrFormat("sm_%d%d", d.compute_major, d.compute_minor));
  }
  if (d.sm_count > 0) props.push_back(absl::StrFormat("%d SMs", d.sm_count));
  if (d.global_memory_bytes > 0) {
    props.push_back(absl::StrFormat("%.1f GiB", double(d.global_memory_bytes) / (1ull << 30)));
  }
  if (!props.empty()) absl::StrAppend(&s, " (", absl::StrJoin(props, ", "), ")");
  return s;
}

// `cells` followed by the Avg, Med, Min, Max and StdDev cells of `s`.
std::vector<std::string> WithStats(std::vector<std::string> cells, const DurationStats& s) {
  for (double ns : {s.avg_ns, s.median_ns, double(s.min_ns), double(s.max_ns), s.stddev_ns}) {
    cells.push_back(FormatDuration(ns));
  }
  return cells;
}

// The first cells of the kernel, API and memory tables: Time %, Total Time, count.
std::vector<std::string> TimeCells(double time_percent, const DurationStats& s) {
  return WithStats(
      {FormatPercent(time_percent), FormatDuration(double(s.total_ns)), absl::StrCat(s.count)}, s);
}

}  // namespace

std::string KernelTimeText(const analysis::Summary& s) {
  std::string text = absl::StrCat(FormatDuration(double(s.kernel_ns)), " in ", s.timed_launches,
                                  " timed launches");
  if (s.measured_left_out > 0) {
    absl::StrAppend(&text, "; ", s.measured_left_out, " launches measured with counters left out");
  }
  if (s.measured_launches > s.measured_left_out) {
    absl::StrAppend(&text, "; ", s.measured_launches - s.measured_left_out,
                    " measured launches in it (kernels measured at every launch)");
  }
  return text;
}

namespace {

void WriteRunFields(const model::Profile& p, const analysis::Summary& s, size_t width,
                    std::ostream& out) {
  const model::RunInfo& run = p.run;
  Field(out, "Command", run.command_line.empty() ? "<unknown>" : run.command_line, width);
  std::string process = absl::StrCat("pid ", run.pid);
  if (!run.hostname.empty()) absl::StrAppend(&process, " on ", run.hostname);
  if (run.rank >= 0) absl::StrAppend(&process, ", rank ", run.rank);
  if (!run.exit_reason.empty()) absl::StrAppend(&process, ", ended by ", run.exit_reason);
  Field(out, "Process", process, width);
  Field(out, "cuscope", run.cuscope_version.empty() ? "<unknown>" : run.cuscope_version, width);
  if (p.devices.empty()) Field(out, "Devices", "none recorded", width);
  for (size_t i = 0; i < p.devices.size(); ++i) {
    Field(out, i == 0 ? "Devices" : "", DeviceLine(p.devices[i]), width);
  }
  Field(out, "Wall time", FormatDuration(double(s.wall_ns)), width);
  for (size_t i = 0; i < s.devices.size(); ++i) {
    const analysis::DeviceBusy& d = s.devices[i];
    const double kernel_percent =
        s.wall_ns > 0 ? 100.0 * double(d.kernel_ns) / double(s.wall_ns) : 0.0;
    Field(out, i == 0 ? "GPU busy" : "",
          absl::StrFormat("GPU %d: %.1f%% (%s), kernels %.1f%% (%s)", d.device_id, d.busy_percent,
                          FormatDuration(double(d.busy_ns)), kernel_percent,
                          FormatDuration(double(d.kernel_ns))),
          width);
  }
  Field(out, "Kernel time", KernelTimeText(s), width);
  Field(out, "Records",
        absl::StrFormat("kernels %d, memcpys %d, memsets %d, API calls %d, syncs %d, ranges %d",
                        s.kernel_count, s.memcpy_count, s.memset_count, s.api_count, s.sync_count,
                        s.range_count),
        width);
}

// "cuscope's own time: 6.402 s (82.1% of the run)", when it had any (own_time.h).
void WriteOwnTime(const analysis::Summary& s, size_t width, std::ostream& out) {
  if (s.own_ns == 0) return;
  const double pct = s.wall_ns > 0 ? 100.0 * double(s.own_ns) / double(s.wall_ns) : 0.0;
  out << Wrapped(absl::StrFormat("cuscope's own time: %s (%s%% of the run)",
                                 FormatDuration(double(s.own_ns)), FormatPercent(pct)),
                 width, 2, 4);
}

void WriteRunWarnings(const model::RunInfo& run, const analysis::Summary& s, size_t width,
                      std::ostream& out) {
  if (s.dropped_records > 0) {
    out << Wrapped(absl::StrFormat("WARNING: %d records were dropped by CUPTI (activity buffers "
                                   "exhausted); totals below are incomplete.",
                                   s.dropped_records),
                   width, 2, 4);
  }
  if (run.buffers_refused > 0) {
    out << Wrapped(absl::StrFormat("WARNING: %d activity buffer requests were refused (pool cap).",
                                   run.buffers_refused),
                   width, 2, 4);
  }
  if (s.invalid_records > 0) {
    out << Wrapped(absl::StrFormat("NOTE: %d records with unusable times (start 0 or end before "
                                   "start) are left out of the statistics.",
                                   s.invalid_records),
                   width, 2, 4);
  }
}

void WriteKernels(const analysis::Summary& s, const NameCut& names, const ReportOptions& options,
                  std::ostream& out) {
  out << "\nGPU kernels\n";
  if (s.kernels.empty()) {
    out << "  (none)\n";
    return;
  }
  const size_t shown = ShownRows(s.kernels.size(), options.top);
  bool any_measured = false;
  for (size_t i = 0; i < shown; ++i) any_measured |= s.kernels[i].measured_launches > 0;
  std::vector<std::string> headers = {"Time %", "Total Time", "Instances", "Avg",
                                      "Med",    "Min",        "Max",       "StdDev"};
  if (any_measured) headers.push_back("Measured");
  headers.push_back("Name");
  TextTable table(headers);
  table.Fit(options.width, options.max_name_width, &names);
  table.SetDroppable({"Med", "Min", "Max", "StdDev"});
  for (size_t i = 0; i < shown; ++i) {
    const analysis::KernelSummaryRow& r = s.kernels[i];
    std::vector<std::string> cells = TimeCells(r.time_percent, r.stats);
    if (any_measured) {
      cells.push_back(r.measured_launches == 0 ? ""
                      : r.all_measured         ? absl::StrCat(r.measured_launches, " (all)")
                                               : absl::StrCat(r.measured_launches));
    }
    cells.push_back(Demangle(r.name));
    table.AddRow(std::move(cells));
  }
  table.Write(out);
  WriteMoreLine(s.kernels.size(), shown, "kernels", out);
  if (any_measured) {
    out << Wrapped(
        "Measured: launches slowed by counter collection, left out of the statistics "
        "(\"all\": every launch was measured and the statistics include them).",
        options.width, 2, 4);
  }
}

void WriteApi(const analysis::Summary& s, const ReportOptions& options, std::ostream& out) {
  out << "\nCUDA API\n";
  if (s.api.empty()) {
    out << "  (none)\n";
    return;
  }
  const size_t shown = ShownRows(s.api.size(), options.top);
  TextTable table(
      {"Time %", "Total Time", "Num Calls", "Avg", "Med", "Min", "Max", "StdDev", "Name"});
  table.Fit(options.width, options.max_name_width);
  table.SetDroppable({"Med", "Min", "Max", "StdDev"});
  for (size_t i = 0; i < shown; ++i) {
    const analysis::ApiSummaryRow& r = s.api[i];
    std::vector<std::string> cells = TimeCells(r.time_percent, r.stats);
    cells.push_back(r.name);
    table.AddRow(std::move(cells));
  }
  table.Write(out);
  WriteMoreLine(s.api.size(), shown, "API functions", out);
}

void WriteMemory(const analysis::Summary& s, const ReportOptions& options, std::ostream& out) {
  out << "\nMemory operations\n";
  if (s.memory.empty()) {
    out << "  (none)\n";
    return;
  }
  const size_t shown = ShownRows(s.memory.size(), options.top);
  TextTable table({"Time %", "Total Time", "Count", "Avg", "Med", "Min", "Max", "StdDev",
                   "Total Size", "Bandwidth", "Operation"});
  table.Fit(options.width, options.max_name_width);
  table.SetDroppable({"Med", "Min", "Max", "StdDev", "Count"});
  for (size_t i = 0; i < shown; ++i) {
    const analysis::MemorySummaryRow& r = s.memory[i];
    std::vector<std::string> cells = TimeCells(r.time_percent, r.stats);
    cells.push_back(FormatBytes(r.total_bytes));
    cells.push_back(absl::StrFormat("%.3f GB/s", r.bandwidth_gbps));
    cells.push_back(r.operation);
    table.AddRow(std::move(cells));
  }
  table.Write(out);
  WriteMoreLine(s.memory.size(), shown, "operations", out);
}

void WriteRegions(const std::vector<analysis::RegionSummaryRow>& regions, const NameCut& names,
                  const ReportOptions& options, std::ostream& out) {
  out << "\nRegions\n";
  if (regions.empty()) {
    out << "  (none)\n";
    return;
  }
  const size_t shown = ShownRows(regions.size(), options.top);
  // "Where" (the site's file name and line) only when a region shown has a location.
  const bool located = std::any_of(regions.begin(), regions.begin() + shown,
                                   [](const auto& r) { return !r.location.empty(); });
  std::vector<std::string> headers = {"Total Time", "Instances", "Avg",     "Med",     "Min",
                                      "Max",        "StdDev",    "Kernels", "GPU Time"};
  if (located) headers.push_back("Where");
  headers.push_back("Region");
  TextTable table(std::move(headers));
  table.Fit(options.width, options.max_name_width, &names);  // region names are fitted alone
  table.SetDroppable({"Med", "Min", "Max", "StdDev", "Where"});
  for (size_t i = 0; i < shown; ++i) {
    const analysis::RegionSummaryRow& r = regions[i];
    std::vector<std::string> cells =
        WithStats({FormatDuration(double(r.stats.total_ns)), absl::StrCat(r.stats.count)}, r.stats);
    cells.push_back(absl::StrCat(r.kernel_count));
    cells.push_back(FormatDuration(double(r.gpu_time_ns)));
    if (located) cells.push_back(r.location.substr(r.location.rfind('/') + 1));  // no dirs
    cells.push_back(analysis::RegionLabel(r));
    table.AddRow(std::move(cells));
    for (const analysis::RegionTopKernel& k : r.top_kernels) {
      table.AddDetail(absl::StrFormat("%s  %dx  ", FormatDuration(double(k.total_ns)), k.count),
                      Demangle(k.name));
    }
  }
  table.Write(out);
  WriteMoreLine(regions.size(), shown, "regions", out);
  if (std::any_of(regions.begin(), regions.end(), [](const auto& r) { return r.own_ns > 0; })) {
    out << "  Region times leave out cuscope's own time.\n";
  }
}

// --- Hardware counters ------------------------------------------------------------

// "Ceilings GPU 0: FP32 66.9 TFLOP/s, ..., L1 ... (SM clock 1.755 GHz)"; unknown
// ceilings are left out.
std::string CeilingsLine(const analysis::Ceilings& c) {
  std::vector<std::string> parts;
  auto flops = [&](const char* label, double v) {
    if (v > 0) parts.push_back(absl::StrCat(label, " ", FormatRate(v, "FLOP/s")));
  };
  auto bytes = [&](const char* label, double v) {
    if (v > 0) parts.push_back(absl::StrCat(label, " ", FormatRate(v, "B/s")));
  };
  for (analysis::Precision p : analysis::kAllPrecisions) {
    flops(analysis::PrecisionName(p), analysis::PeakFlops(c, p));
    if (analysis::PeakFlops(c, p) <= 0 && analysis::PeakFlopsPerCycle(c, p) > 0) {
      parts.push_back(absl::StrCat(analysis::PrecisionName(p), " ",
                                   FormatRatio(analysis::PeakFlopsPerCycle(c, p)), " FLOP/cycle"));
    }
  }
  bytes("DRAM", c.peak_dram_bytes_per_s);
  bytes("L2", c.peak_l2_bytes_per_s);
  bytes("L1", c.peak_l1_bytes_per_s);
  std::string line = absl::StrFormat("Ceilings GPU %d: ", c.device_id);
  if (parts.empty()) {
    absl::StrAppend(&line, "unknown (no peak or clock metrics)");
  } else {
    absl::StrAppend(&line, absl::StrJoin(parts, ", "));
  }
  if (c.sm_clock_hz > 0) {
    absl::StrAppend(&line, absl::StrFormat(" (SM clock %.3f GHz)", c.sm_clock_hz / 1e9));
  }
  return line;
}

std::string PctCell(const std::optional<double>& pct) { return pct ? FormatPercent(*pct) : "-"; }

std::string GbPerS(const analysis::KernelCounters& k, const char* bytes_metric,
                   double bytes_per_s) {
  return k.has(bytes_metric) && k.duration_ns > 0 ? absl::StrFormat("%.1f", bytes_per_s / 1e9)
                                                  : "-";
}

// "occupancy: achieved ...% theoretical ...% (...)"; "" when neither is known.
std::string OccupancyLine(const analysis::KernelCounters& k) {
  if (!k.achieved_occupancy && !k.theoretical.valid) return "";
  std::string l = "occupancy:";
  if (k.achieved_occupancy) {
    absl::StrAppend(&l, absl::StrFormat(" achieved %.1f%%", k.achieved_occupancy->percent));
  }
  if (k.theoretical.valid) {
    absl::StrAppend(
        &l, absl::StrFormat(" theoretical %.1f%% (%d blocks, %d warps per SM; limited by %s)",
                            k.theoretical.percent, k.theoretical.blocks_per_sm,
                            k.theoretical.warps_per_sm, k.theoretical.limiter));
  }
  return l;
}

// "FLOPs: BF16 tensor 1.1 TFLOP (93% of roof), FP32 ..." for each precision with
// FLOPs, most first; "" when none.
std::string FlopsLine(const analysis::KernelCounters& k) {
  std::vector<std::pair<double, analysis::Precision>> with;
  for (analysis::Precision p : analysis::kAllPrecisions) {
    if (k.flops_of(p).flops > 0) with.push_back({k.flops_of(p).flops, p});
  }
  if (with.empty()) return "";
  std::stable_sort(with.begin(), with.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> parts;
  for (const auto& [flops, p] : with) {
    const analysis::PrecisionFlops& f = k.flops_of(p);
    std::string part = absl::StrCat(analysis::PrecisionName(p), " ", FormatRate(flops, "FLOP"));
    if (f.pct_of_peak > 0)
      absl::StrAppend(&part, absl::StrFormat(" (%s of roof)", FormatPercentOfPeak(f.pct_of_peak)));
    parts.push_back(std::move(part));
  }
  std::string line = absl::StrCat("FLOPs: ", absl::StrJoin(parts, ", "));
  if (k.sm_clock_hz > 0)
    absl::StrAppend(&line, absl::StrFormat("; SM clock %.3f GHz", k.sm_clock_hz / 1e9));
  return line;
}

// Lines of the optional sections of a row (FLOPs, occupancy, stalls, memory, SOL).
// The speed-of-light line: the units measured, each as % of its peak.
std::string SolLine(const analysis::SpeedOfLight& sol) {
  auto pct = [](const char* name, double v) { return absl::StrFormat("%s %.1f%%", name, v); };
  std::vector<std::string> head, memory, pipes;
  // A side taken from its measured parts is at least their busiest.
  if (sol.has_sm) head.push_back(pct(sol.sm_parts > 0 ? "SM >=" : "SM", sol.sm_pct));
  if (sol.has_dram) memory.push_back(pct("DRAM", sol.dram_pct));
  if (sol.has_l2) memory.push_back(pct("L2", sol.l2_pct));
  if (sol.has_l1) memory.push_back(pct("L1", sol.l1_pct));
  if (sol.has_memory) {
    std::string m = pct(sol.memory_parts > 0 ? "memory >=" : "memory", sol.memory_pct);
    if (!memory.empty()) absl::StrAppend(&m, " (", absl::StrJoin(memory, ", "), ")");
    head.push_back(m);
  } else {
    head.insert(head.end(), memory.begin(), memory.end());
  }
  if (sol.has_tensor_pipe) pipes.push_back(pct("tensor pipe", sol.tensor_pipe_pct));
  if (sol.has_fma_pipe) pipes.push_back(pct("FMA pipe", sol.fma_pipe_pct));
  if (sol.has_fp64_pipe) pipes.push_back(pct("FP64 pipe", sol.fp64_pipe_pct));
  if (sol.has_issue) pipes.push_back(pct("issue", sol.issue_pct));
  head.insert(head.end(), pipes.begin(), pipes.end());
  return absl::StrCat("SOL: ", absl::StrJoin(head, ", "), "; highest ",
                      sol.highest_unit.empty() ? "-" : sol.highest_unit);
}

std::vector<std::string> CounterDetails(const analysis::KernelCounters& k) {
  std::vector<std::string> lines;
  if (std::string occupancy = OccupancyLine(k); !occupancy.empty()) lines.push_back(occupancy);
  if (!k.stalls.empty()) {
    std::vector<std::string> parts;
    for (size_t i = 0; i < k.stalls.size() && i < 4; ++i) {
      parts.push_back(absl::StrFormat("%s %.0f%%", k.stalls[i].reason, k.stalls[i].percent));
    }
    lines.push_back(absl::StrCat("stalls: ", absl::StrJoin(parts, ", ")));
  }
  if (k.memory) {
    lines.push_back(absl::StrFormat(
        "memory: shared bank conflicts/inst ld %.2f st %.2f; global sectors/request ld %.2f "
        "st %.2f",
        k.memory->shared_ld_conflicts_per_inst, k.memory->shared_st_conflicts_per_inst,
        k.memory->global_ld_sectors_per_request, k.memory->global_st_sectors_per_request));
  }
  if (std::string flops = FlopsLine(k); !flops.empty()) lines.push_back(flops);
  if (k.sol) lines.push_back(SolLine(*k.sol));
  return lines;
}

std::vector<std::string> CounterCells(const analysis::KernelCounters& k) {
  const bool flops = k.total_flops > 0 || k.pct_compute.has_value();
  return {absl::StrCat(k.time_estimated ? "~" : "", FormatPercent(k.time_percent)),
          k.region ? absl::StrCat(model::SaturatingMul(k.sets, k.max_passes), " inst")
                   : absl::StrCat(k.measured_launches, "/", k.launches),
          k.duration_ns > 0 ? FormatDuration(k.duration_ns) : "-",
          flops && k.duration_ns > 0 ? FormatRate(k.total_flops_per_s, "FLOP/s") : "-",
          k.has(metrics::kDramBytes) ? FormatRatio(k.ai_dram) : "-",
          PctCell(k.pct_compute),
          PctCell(k.pct_dram),
          PctCell(k.pct_l2),
          PctCell(k.pct_l1),
          k.region ? absl::StrCat("[region] ", k.name) : Demangle(k.name)};
}

// "measured: kernel replay, 3 passes, 1 launch; GB/s: DRAM 21.6, L2 1348.3, L1 10803.6"
// (the rates measured).
std::string StrategyLine(const analysis::KernelCounters& k) {
  std::string line = absl::StrCat("measured: ", MeasurementText(k));
  std::vector<std::string> rates;
  const std::pair<const char*, std::string> levels[] = {
      {"DRAM", GbPerS(k, metrics::kDramBytes, k.dram_bytes_per_s)},
      {"L2", GbPerS(k, metrics::kL2Bytes, k.l2_bytes_per_s)},
      {"L1", GbPerS(k, metrics::kL1Bytes, k.l1_bytes_per_s)}};
  for (const auto& [level, rate] : levels) {
    if (rate != "-") rates.push_back(absl::StrCat(level, " ", rate));
  }
  if (!rates.empty()) absl::StrAppend(&line, "; GB/s: ", absl::StrJoin(rates, ", "));
  return line;
}

void WriteCounterTable(const std::vector<analysis::KernelCounters>& counters, const NameCut& names,
                       const ReportOptions& options, std::ostream& out) {
  out << "\nKernel counters\n";
  const size_t shown = ShownRows(counters.size(), options.top);
  TextTable table({"Time %", "Measured", "Duration", "FLOP/s", "AI DRAM", "Compute %", "DRAM %",
                   "L2 %", "L1 %", "Name"},
                  /*detail_indent=*/6);
  table.Fit(options.width, options.max_name_width, &names);
  table.SetDroppable({"AI DRAM", "L2 %", "L1 %", "DRAM %"});
  for (size_t i = 0; i < shown; ++i) {
    const analysis::KernelCounters& k = counters[i];
    table.AddRow(CounterCells(k));
    table.AddDetail(absl::StrCat("verdict: ", CountersReason(k)));
    table.AddDetail(StrategyLine(k));
    if (!k.sizes.empty()) table.AddDetail(SizesLine(k));
    for (std::string& line : CounterDetails(k)) table.AddDetail(std::move(line));
  }
  table.Write(out);
  WriteMoreLine(counters.size(), shown, "kernel signatures", out);
  out << Wrapped(
      "Measured: launches whose counters were measured / launches of the signature. "
      "Compute %: the highest % of a FLOP roof (CUDA-core FP64/FP32/FP16 and each tensor "
      "precision), per elapsed SM cycle.",
      options.width, 2, 4);
  bool any_region = false;
  for (const analysis::KernelCounters& k : counters) any_region = any_region || k.region;
  if (any_region) {
    out << Wrapped(
        "[region]: a region measured as a whole (one user range per instance, "
        "instances = passes x samples); its values are the sum over its kernels.",
        options.width, 2, 4);
  }
}

void WriteCounters(const ReportData& data, const ReportOptions& options, std::ostream& out) {
  if (data.ceilings.empty() && data.counters.empty() && data.counter_notes.empty()) return;
  out << "\nHardware counters\n";
  if (data.coverage.signatures > 0) {
    out << Wrapped(CoverageLine(data.coverage), options.width, 2, 4);
  }
  for (const analysis::Ceilings& c : data.ceilings) {
    out << Wrapped(CeilingsLine(c), options.width, 2, 4);
  }
  if (!data.counters.empty()) WriteCounterTable(data.counters, data.kernel_names, options, out);
  if (!data.counter_notes.empty()) {
    out << "\n  Counter notes:\n";
    for (const std::string& n : data.counter_notes) out << Wrapped(n, options.width, 4, 6);
  }
}

}  // namespace

void WriteText(const ReportData& data, const ReportOptions& options, std::ostream& out) {
  const model::Profile& p = ProfileOf(data);
  out << "cuscope report\n";
  if (std::string line = CounterOutcomeLine(data.counter_outcome); !line.empty()) {
    out << Wrapped(line, options.width, 2, 4);
  }
  WriteRunFields(p, data.summary, options.width, out);
  WriteOwnTime(data.summary, options.width, out);
  WriteRunWarnings(p.run, data.summary, options.width, out);
  WriteKernels(data.summary, data.kernel_names, options, out);
  WriteApi(data.summary, options, out);
  WriteMemory(data.summary, options, out);
  WriteRegions(data.regions, data.kernel_names, options, out);
  WriteCounters(data, options, out);
  WriteGpuSamplesText(data.gpu_samples, data.gpu_sample_notes, data.kernel_names, options, out);
  WriteFindingsText(p, data.findings, data.kernel_names, options.findings, options.max_name_width,
                    options.width, "(`cuscope advise PROFILE` lists them all)", out);
}

}  // namespace cuscope::report
