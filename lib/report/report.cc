#include "lib/report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/model/metrics.h"
#include "lib/report/cut.h"
#include "lib/report/demangle.h"
#include "lib/report/number_format.h"
#include "lib/report/verdict_text.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

namespace cuscope::report {
namespace {

using analysis::DurationStats;

// Rows to show of a table of `total` rows.
size_t ShownRows(size_t total, int top) {
  return top <= 0 ? total : std::min(total, static_cast<size_t>(top));
}

// --- Text helpers -------------------------------------------------------------------

std::string FormatDuration(double ns) {
  if (!std::isfinite(ns) || ns < 0) ns = 0;
  if (ns < 1e3) {
    if (ns == std::floor(ns)) return absl::StrFormat("%.0f ns", ns);
    return absl::StrFormat("%.1f ns", ns);
  }
  if (ns < 1e6) return absl::StrFormat("%.3f us", ns / 1e3);
  if (ns < 1e9) return absl::StrFormat("%.3f ms", ns / 1e6);
  return absl::StrFormat("%.3f s", ns / 1e9);
}

std::string FormatBytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes < 1000) return absl::StrFormat("%d B", bytes);
  if (b < 1e6) return absl::StrFormat("%.3f KB", b / 1e3);
  if (b < 1e9) return absl::StrFormat("%.3f MB", b / 1e6);
  return absl::StrFormat("%.3f GB", b / 1e9);
}

std::string FormatPercent(double p) { return absl::StrFormat("%.1f", p); }

// Fits a name in `width` bytes: first the parameter list of a function signature
// collapses to "(...)", then the name is cut with "..." (never inside a UTF-8 sequence).
std::string Truncate(absl::string_view name, size_t width) {
  if (width < 4 || name.size() <= width) return std::string(name);
  std::string collapsed;
  if (name.back() == ')') {
    int level = 0;
    for (size_t i = name.size(); i-- > 0;) {
      if (name[i] == ')') ++level;
      if (name[i] == '(' && --level == 0) {
        if (i > 0) collapsed = absl::StrCat(name.substr(0, i), "(...)");
        break;
      }
    }
  }
  if (!collapsed.empty() && collapsed.size() < name.size()) {
    if (collapsed.size() <= width) return collapsed;
    name = collapsed;
  }
  return CutWithEllipsis(name, width);
}

// A table with right-aligned numeric columns and a left-aligned last column.
class TextTable {
 public:
  // Detail lines are indented to the name column, or by `detail_indent` spaces when
  // it is not negative.
  explicit TextTable(std::vector<std::string> headers, int detail_indent = -1)
      : headers_(std::move(headers)), detail_indent_(detail_indent) {}
  void AddRow(std::vector<std::string> cells) { rows_.push_back({std::move(cells), {}}); }
  // Lines printed under the last row, indented to its name column.
  void AddDetail(std::string line) { rows_.back().details.push_back(std::move(line)); }

  void Write(std::ostream& out) const {
    const size_t n = headers_.size();
    std::vector<size_t> widths(n);
    for (size_t c = 0; c < n; ++c) widths[c] = headers_[c].size();
    for (const Row& r : rows_) {
      for (size_t c = 0; c + 1 < n; ++c) widths[c] = std::max(widths[c], r.cells[c].size());
    }
    size_t name_column = 2;
    for (size_t c = 0; c + 1 < n; ++c) name_column += widths[c] + 2;
    auto line = [&](const std::vector<std::string>& cells) {
      std::string s = "  ";
      for (size_t c = 0; c < n; ++c) {
        if (c + 1 < n) {
          s.append(widths[c] - cells[c].size(), ' ');
          s += cells[c];
          s += "  ";
        } else {
          s += cells[c];
        }
      }
      out << s << "\n";
    };
    line(headers_);
    std::vector<std::string> rule(n);
    for (size_t c = 0; c < n; ++c) {
      rule[c] = std::string(c + 1 < n ? widths[c] : std::max<size_t>(headers_[c].size(), 4), '-');
    }
    line(rule);
    for (const Row& r : rows_) {
      line(r.cells);
      const size_t indent = detail_indent_ >= 0 ? size_t(detail_indent_) : name_column + 2;
      for (const std::string& d : r.details) out << std::string(indent, ' ') << d << "\n";
    }
  }

 private:
  struct Row {
    std::vector<std::string> cells;
    std::vector<std::string> details;
  };
  std::vector<std::string> headers_;
  int detail_indent_ = -1;
  std::vector<Row> rows_;
};

void WriteMoreLine(size_t total, size_t shown, absl::string_view what, std::ostream& out) {
  if (total > shown) out << "  ... " << (total - shown) << " more " << what << "\n";
}

std::vector<std::string> StatCells(const DurationStats& s) {
  return {FormatDuration(s.avg_ns),           FormatDuration(s.median_ns),
          FormatDuration(double(s.min_ns)),   FormatDuration(double(s.max_ns)),
          FormatDuration(s.stddev_ns)};
}

std::string DeviceLine(const model::DeviceInfo& d) {
  std::string s = absl::StrFormat("GPU %d: %s", d.id, d.name.empty() ? "<unknown>" : d.name);
  std::vector<std::string> props;
  if (d.compute_major > 0) props.push_back(absl::StrFormat("sm_%d%d", d.compute_major, d.compute_minor));
  if (d.sm_count > 0) props.push_back(absl::StrFormat("%d SMs", d.sm_count));
  if (d.global_memory_bytes > 0) {
    props.push_back(absl::StrFormat("%.1f GiB", double(d.global_memory_bytes) / (1ull << 30)));
  }
  if (!props.empty()) absl::StrAppend(&s, " (", absl::StrJoin(props, ", "), ")");
  return s;
}

// --- CSV helpers --------------------------------------------------------------------

std::string CsvField(absl::string_view s) {
  if (s.find_first_of(",\"\r\n") == absl::string_view::npos) return std::string(s);
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  q += '"';
  return q;
}

std::string CsvNum(double v) { return absl::StrFormat("%.3f", std::isfinite(v) ? v : 0.0); }

void CsvRow(std::ostream& out, const std::vector<std::string>& fields) {
  out << absl::StrJoin(fields, ",") << "\n";
}

std::vector<std::string> CsvStats(const DurationStats& s) {
  return {absl::StrCat(s.total_ns), absl::StrCat(s.count),  CsvNum(s.avg_ns),
          CsvNum(s.median_ns),      absl::StrCat(s.min_ns), absl::StrCat(s.max_ns),
          CsvNum(s.stddev_ns)};
}

template <typename... Parts>
std::vector<std::string> Concat(std::vector<std::string> a, const Parts&... parts) {
  (a.insert(a.end(), parts.begin(), parts.end()), ...);
  return a;
}

// --- JSON helpers -------------------------------------------------------------------

using JsonWriter = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void Str(JsonWriter& w, absl::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
void Key(JsonWriter& w, absl::string_view k) {
  w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}
void Num(JsonWriter& w, double v) { w.Double(std::isfinite(v) ? v : 0.0); }

void JsonStats(JsonWriter& w, const DurationStats& s) {
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
void JsonTable(JsonWriter& w, absl::string_view name, const std::vector<Row>& rows, int top,
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


// --- Counter helpers ----------------------------------------------------------------

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
  flops("FP32", c.peak_fp32_flops);
  flops("FP64", c.peak_fp64_flops);
  flops("FP16", c.peak_fp16_flops);
  flops("bf16 tensor", c.peak_tensor_bf16_flops);
  bytes("DRAM", c.peak_dram_bytes_per_s);
  bytes("L2", c.peak_l2_bytes_per_s);
  bytes("L1", c.peak_l1_bytes_per_s);
  std::string line = absl::StrFormat("Ceilings GPU %d: ", c.device_id);
  if (parts.empty()) {
    absl::StrAppend(&line, "unknown (no peak or clock metrics)");
  } else {
    absl::StrAppend(&line, absl::StrJoin(parts, ", "));
  }
  if (c.sm_clock_hz > 0) absl::StrAppend(&line, absl::StrFormat(" (SM clock %.3f GHz)", c.sm_clock_hz / 1e9));
  return line;
}

std::string PctCell(const std::optional<double>& pct) { return pct ? FormatPercent(*pct) : "-"; }

std::string GbPerS(const analysis::KernelCounters& k, const char* bytes_metric, double bytes_per_s) {
  return k.has(bytes_metric) && k.duration_ns > 0 ? absl::StrFormat("%.1f", bytes_per_s / 1e9) : "-";
}

// Lines of the optional sections of a row (occupancy, stalls, memory, SOL).
std::vector<std::string> CounterDetails(const analysis::KernelCounters& k) {
  std::vector<std::string> lines;
  if (k.achieved_occupancy || k.theoretical.valid) {
    std::string l = "occupancy:";
    if (k.achieved_occupancy) absl::StrAppend(&l, absl::StrFormat(" achieved %.1f%%", k.achieved_occupancy->percent));
    if (k.theoretical.valid) {
      absl::StrAppend(&l, absl::StrFormat(" theoretical %.1f%% (%d blocks, %d warps per SM; limited by %s)",
                                          k.theoretical.percent, k.theoretical.blocks_per_sm,
                                          k.theoretical.warps_per_sm, k.theoretical.limiter));
    }
    lines.push_back(l);
  }
  if (!k.stalls.empty()) {
    std::vector<std::string> parts;
    for (size_t i = 0; i < k.stalls.size() && i < 4; ++i) {
      parts.push_back(absl::StrFormat("%s %.0f%%", k.stalls[i].reason, k.stalls[i].percent));
    }
    lines.push_back(absl::StrCat("stalls: ", absl::StrJoin(parts, ", ")));
  }
  if (k.memory) {
    lines.push_back(absl::StrFormat(
        "memory: shared bank conflicts/inst ld %.2f st %.2f; global sectors/request ld %.2f st %.2f",
        k.memory->shared_ld_conflicts_per_inst, k.memory->shared_st_conflicts_per_inst,
        k.memory->global_ld_sectors_per_request, k.memory->global_st_sectors_per_request));
  }
  if (k.sol) {
    lines.push_back(absl::StrFormat(
        "SOL: SM %.1f%%, memory %.1f%% (DRAM %.1f%%, L2 %.1f%%, L1 %.1f%%), tensor pipe %.1f%%, "
        "FMA pipe %.1f%%; highest %s",
        k.sol->sm_pct, k.sol->memory_pct, k.sol->dram_pct, k.sol->l2_pct, k.sol->l1_pct,
        k.sol->tensor_pipe_pct, k.sol->fma_pipe_pct,
        k.sol->highest_unit.empty() ? "-" : k.sol->highest_unit));
  }
  return lines;
}

std::string CsvRatio(double v) { return std::isfinite(v) ? absl::StrFormat("%.6g", v) : ""; }
std::string CsvDim(const model::Dim3& d) { return absl::StrFormat("%dx%dx%d", d.x, d.y, d.z); }


const model::DeviceInfo* FindDevice(const model::Profile* p, uint32_t id) {
  return p == nullptr ? nullptr : p->FindDevice(id);
}

}  // namespace

ReportData BuildReport(const model::Profile& profile) {
  ReportData data;
  data.profile = &profile;
  data.summary = analysis::Summarize(profile);
  data.regions = analysis::SummarizeRegions(profile);
  data.ceilings = analysis::ComputeAllCeilings(profile);
  data.counters = analysis::AnalyzeCounters(profile, data.ceilings, &data.regions);
  data.counter_notes = analysis::CounterNotes(profile, data.ceilings);
  return data;
}

// --- Text ---------------------------------------------------------------------------

void WriteText(const ReportData& data, const ReportOptions& options, std::ostream& out) {
  static const model::Profile kEmpty;
  const model::Profile& p = data.profile ? *data.profile : kEmpty;
  const model::RunInfo& run = p.run;
  const analysis::Summary& s = data.summary;
  const size_t name_width = options.max_name_width;

  out << "cuscope report\n";
  auto field = [&](absl::string_view label, const std::string& value) {
    out << absl::StrFormat("  %-11s %s\n", label, value);
  };
  field("Command", run.command_line.empty() ? "<unknown>" : run.command_line);
  std::string process = absl::StrCat("pid ", run.pid);
  if (!run.hostname.empty()) absl::StrAppend(&process, " on ", run.hostname);
  if (run.rank >= 0) absl::StrAppend(&process, ", rank ", run.rank);
  if (!run.exit_reason.empty()) absl::StrAppend(&process, ", ended by ", run.exit_reason);
  field("Process", process);
  field("cuscope", run.cuscope_version.empty() ? "<unknown>" : run.cuscope_version);
  if (p.devices.empty()) field("Devices", "none recorded");
  for (size_t i = 0; i < p.devices.size(); ++i) {
    field(i == 0 ? "Devices" : "", DeviceLine(p.devices[i]));
  }
  field("Wall time", FormatDuration(double(s.wall_ns)));
  for (size_t i = 0; i < s.devices.size(); ++i) {
    const analysis::DeviceBusy& d = s.devices[i];
    const double kernel_percent =
        s.wall_ns > 0 ? 100.0 * double(d.kernel_ns) / double(s.wall_ns) : 0.0;
    field(i == 0 ? "GPU busy" : "",
          absl::StrFormat("GPU %d: %.1f%% (%s), kernels %.1f%% (%s)", d.device_id,
                          d.busy_percent, FormatDuration(double(d.busy_ns)), kernel_percent,
                          FormatDuration(double(d.kernel_ns))));
  }
  field("Records", absl::StrFormat("kernels %d, memcpys %d, memsets %d, API calls %d, "
                                   "syncs %d, ranges %d",
                                   s.kernel_count, s.memcpy_count, s.memset_count,
                                   s.api_count, s.sync_count, s.range_count));
  if (s.dropped_records > 0) {
    out << absl::StrFormat(
        "  WARNING: %d records were dropped by CUPTI (activity buffers exhausted); "
        "totals below are incomplete.\n",
        s.dropped_records);
  }
  if (run.buffers_refused > 0) {
    out << absl::StrFormat("  WARNING: %d activity buffer requests were refused (pool cap).\n",
                           run.buffers_refused);
  }
  if (s.invalid_records > 0) {
    out << absl::StrFormat(
        "  NOTE: %d records with unusable times (start 0 or end before start) are left "
        "out of the statistics.\n",
        s.invalid_records);
  }

  // GPU kernels.
  out << "\nGPU kernels\n";
  if (s.kernels.empty()) {
    out << "  (none)\n";
  } else {
    const size_t shown = ShownRows(s.kernels.size(), options.top);
    bool any_measured = false;
    for (size_t i = 0; i < shown; ++i) any_measured |= s.kernels[i].measured_launches > 0;
    std::vector<std::string> headers = {"Time %", "Total Time", "Instances", "Avg", "Med",
                                        "Min",    "Max",        "StdDev"};
    if (any_measured) headers.push_back("Measured");
    headers.push_back("Name");
    TextTable table(headers);
    for (size_t i = 0; i < shown; ++i) {
      const analysis::KernelSummaryRow& r = s.kernels[i];
      std::vector<std::string> cells = Concat(
          {FormatPercent(r.time_percent), FormatDuration(double(r.stats.total_ns)),
           absl::StrCat(r.stats.count)},
          StatCells(r.stats));
      if (any_measured) {
        cells.push_back(r.measured_launches == 0 ? ""
                        : r.all_measured       ? absl::StrCat(r.measured_launches, " (all)")
                                               : absl::StrCat(r.measured_launches));
      }
      cells.push_back(Truncate(Demangle(r.name), name_width));
      table.AddRow(std::move(cells));
    }
    table.Write(out);
    WriteMoreLine(s.kernels.size(), shown, "kernels", out);
    if (any_measured) {
      out << "  Measured: launches slowed by counter collection, left out of the statistics "
             "(\"all\": every launch was measured and the statistics include them).\n";
    }
  }

  // CUDA API.
  out << "\nCUDA API\n";
  if (s.api.empty()) {
    out << "  (none)\n";
  } else {
    const size_t shown = ShownRows(s.api.size(), options.top);
    TextTable table({"Time %", "Total Time", "Num Calls", "Avg", "Med", "Min", "Max", "StdDev",
                     "Name"});
    for (size_t i = 0; i < shown; ++i) {
      const analysis::ApiSummaryRow& r = s.api[i];
      std::vector<std::string> cells = Concat(
          {FormatPercent(r.time_percent), FormatDuration(double(r.stats.total_ns)),
           absl::StrCat(r.stats.count)},
          StatCells(r.stats));
      cells.push_back(Truncate(r.name, name_width));
      table.AddRow(std::move(cells));
    }
    table.Write(out);
    WriteMoreLine(s.api.size(), shown, "API functions", out);
  }

  // Memory operations.
  out << "\nMemory operations\n";
  if (s.memory.empty()) {
    out << "  (none)\n";
  } else {
    const size_t shown = ShownRows(s.memory.size(), options.top);
    TextTable table({"Time %", "Total Time", "Count", "Avg", "Med", "Min", "Max", "StdDev",
                     "Total Size", "Bandwidth", "Operation"});
    for (size_t i = 0; i < shown; ++i) {
      const analysis::MemorySummaryRow& r = s.memory[i];
      std::vector<std::string> cells = Concat(
          {FormatPercent(r.time_percent), FormatDuration(double(r.stats.total_ns)),
           absl::StrCat(r.stats.count)},
          StatCells(r.stats));
      cells.push_back(FormatBytes(r.total_bytes));
      cells.push_back(absl::StrFormat("%.3f GB/s", r.bandwidth_gbps));
      cells.push_back(r.operation);
      table.AddRow(std::move(cells));
    }
    table.Write(out);
    WriteMoreLine(s.memory.size(), shown, "operations", out);
  }

  // Regions.
  out << "\nRegions\n";
  if (data.regions.empty()) {
    out << "  (none)\n";
  } else {
    const size_t shown = ShownRows(data.regions.size(), options.top);
    TextTable table({"Total Time", "Instances", "Avg", "Med", "Min", "Max", "StdDev", "Kernels",
                     "GPU Time", "Region"});
    for (size_t i = 0; i < shown; ++i) {
      const analysis::RegionSummaryRow& r = data.regions[i];
      std::vector<std::string> cells =
          Concat({FormatDuration(double(r.stats.total_ns)), absl::StrCat(r.stats.count)},
                 StatCells(r.stats));
      cells.push_back(absl::StrCat(r.kernel_count));
      cells.push_back(FormatDuration(double(r.gpu_time_ns)));
      const std::string label = analysis::RegionLabel(r);
      cells.push_back(Truncate(label, name_width));
      table.AddRow(std::move(cells));
      for (const analysis::RegionTopKernel& k : r.top_kernels) {
        table.AddDetail(absl::StrFormat("%s  %dx  %s", FormatDuration(double(k.total_ns)),
                                        k.count, Truncate(Demangle(k.name), name_width)));
      }
    }
    table.Write(out);
    WriteMoreLine(data.regions.size(), shown, "regions", out);
  }

  // Hardware counters.
  if (!data.ceilings.empty() || !data.counters.empty() || !data.counter_notes.empty()) {
    out << "\nHardware counters\n";
    for (const analysis::Ceilings& c : data.ceilings) out << "  " << CeilingsLine(c) << "\n";
    if (!data.counters.empty()) {
      out << "\nKernel counters\n";
      const size_t shown = ShownRows(data.counters.size(), options.top);
      TextTable table({"Time %", "Measured", "Strategy", "Duration", "FLOP/s", "DRAM GB/s",
                       "L2 GB/s", "L1 GB/s", "AI DRAM", "Compute %", "DRAM %", "L2 %", "L1 %",
                       "Verdict", "Name"},
                      /*detail_indent=*/6);
      for (size_t i = 0; i < shown; ++i) {
        const analysis::KernelCounters& k = data.counters[i];
        const bool flops = k.total_flops > 0 || k.pct_compute.has_value();
        table.AddRow({FormatPercent(k.time_percent),
                      k.region ? absl::StrCat(k.sets * k.max_passes, " inst")
                               : absl::StrCat(k.measured_launches, "/", k.launches),
                      k.StrategyNames(),
                      k.duration_ns > 0 ? FormatDuration(k.duration_ns) : "-",
                      flops && k.duration_ns > 0 ? FormatRate(k.total_flops_per_s, "FLOP/s") : "-",
                      GbPerS(k, metrics::kDramBytes, k.dram_bytes_per_s),
                      GbPerS(k, metrics::kL2Bytes, k.l2_bytes_per_s),
                      GbPerS(k, metrics::kL1Bytes, k.l1_bytes_per_s),
                      k.has(metrics::kDramBytes) ? FormatRatio(k.ai_dram) : "-",
                      PctCell(k.pct_compute),
                      PctCell(k.pct_dram),
                      PctCell(k.pct_l2),
                      PctCell(k.pct_l1),
                      VerdictLabel(k.verdict),
                      Truncate(k.region ? absl::StrCat("[region] ", k.name) : Demangle(k.name),
                               name_width)});
        table.AddDetail(CountersReason(k));
        for (std::string& line : CounterDetails(k)) table.AddDetail(std::move(line));
      }
      table.Write(out);
      WriteMoreLine(data.counters.size(), shown, "kernel signatures", out);
      out << "  Measured: launches whose counters were measured / launches of the signature. "
             "Compute %: the highest % of a FLOP roof (over FP64, FP32, FP16, bf16 tensor).\n";
      bool any_region = false;
      for (const analysis::KernelCounters& k : data.counters) any_region = any_region || k.region;
      if (any_region) {
        out << "  [region]: a region measured as a whole (one user range per instance, "
               "instances = passes x samples); its values are the sum over its kernels.\n";
      }
    }
    if (!data.counter_notes.empty()) {
      out << "\n  Counter notes:\n";
      for (const std::string& n : data.counter_notes) out << "    " << n << "\n";
    }
  }
}

// --- CSV ----------------------------------------------------------------------------

void WriteCsv(const ReportData& data, const ReportOptions& options, std::ostream& out) {
  static const model::Profile kEmpty;
  const model::Profile& p = data.profile ? *data.profile : kEmpty;
  const model::RunInfo& run = p.run;
  const analysis::Summary& s = data.summary;

  out << "# run\n";
  CsvRow(out, {"key", "value"});
  auto kv = [&](absl::string_view k, const std::string& v) { CsvRow(out, {std::string(k), CsvField(v)}); };
  kv("command_line", run.command_line);
  kv("pid", absl::StrCat(run.pid));
  kv("hostname", run.hostname);
  kv("cuscope_version", run.cuscope_version);
  kv("rank", absl::StrCat(run.rank));
  kv("exit_reason", run.exit_reason);
  kv("start_unix_ns", absl::StrCat(run.start_unix_ns));
  kv("end_unix_ns", absl::StrCat(run.end_unix_ns));
  kv("wall_ns", absl::StrCat(s.wall_ns));
  kv("kernels", absl::StrCat(s.kernel_count));
  kv("memcpys", absl::StrCat(s.memcpy_count));
  kv("memsets", absl::StrCat(s.memset_count));
  kv("api_calls", absl::StrCat(s.api_count));
  kv("syncs", absl::StrCat(s.sync_count));
  kv("ranges", absl::StrCat(s.range_count));
  kv("dropped_records", absl::StrCat(s.dropped_records));
  kv("buffers_refused", absl::StrCat(run.buffers_refused));
  kv("internal_kernels", absl::StrCat(run.internal_kernels));
  kv("invalid_records", absl::StrCat(s.invalid_records));
  for (const auto& [k, v] : run.extra) kv(absl::StrCat("extra.", k), v);

  out << "\n# devices\n";
  CsvRow(out, {"device_id", "name", "compute_capability", "sm_count", "global_memory_bytes",
               "busy_ns", "kernel_ns", "busy_percent"});
  for (const analysis::DeviceBusy& d : s.devices) {
    const model::DeviceInfo* info = FindDevice(data.profile, d.device_id);
    CsvRow(out, {absl::StrCat(d.device_id), CsvField(d.device_name),
                 info ? absl::StrFormat("%d.%d", info->compute_major, info->compute_minor) : "",
                 info ? absl::StrCat(info->sm_count) : "",
                 info ? absl::StrCat(info->global_memory_bytes) : "", absl::StrCat(d.busy_ns),
                 absl::StrCat(d.kernel_ns), CsvNum(d.busy_percent)});
  }

  const std::vector<std::string> stat_headers = {"total_ns", "instances", "avg_ns", "median_ns",
                                                 "min_ns",   "max_ns",    "stddev_ns"};

  out << "\n# kernels\n";
  CsvRow(out, Concat({"time_percent"}, stat_headers,
                     std::vector<std::string>{"measured_launches", "all_measured", "name"}));
  for (size_t i = 0, n = ShownRows(s.kernels.size(), options.top); i < n; ++i) {
    const analysis::KernelSummaryRow& r = s.kernels[i];
    CsvRow(out, Concat({CsvNum(r.time_percent)}, CsvStats(r.stats),
                       std::vector<std::string>{absl::StrCat(r.measured_launches),
                                                r.all_measured ? "1" : "0",
                                                CsvField(Demangle(r.name))}));
  }

  out << "\n# api\n";
  CsvRow(out, Concat({"time_percent"}, stat_headers, std::vector<std::string>{"name"}));
  for (size_t i = 0, n = ShownRows(s.api.size(), options.top); i < n; ++i) {
    const analysis::ApiSummaryRow& r = s.api[i];
    CsvRow(out, Concat({CsvNum(r.time_percent)}, CsvStats(r.stats),
                       std::vector<std::string>{CsvField(r.name)}));
  }

  out << "\n# memory\n";
  CsvRow(out, Concat({"time_percent"}, stat_headers,
                     std::vector<std::string>{"total_bytes", "bandwidth_gbps", "operation"}));
  for (size_t i = 0, n = ShownRows(s.memory.size(), options.top); i < n; ++i) {
    const analysis::MemorySummaryRow& r = s.memory[i];
    CsvRow(out, Concat({CsvNum(r.time_percent)}, CsvStats(r.stats),
                       std::vector<std::string>{absl::StrCat(r.total_bytes),
                                                CsvNum(r.bandwidth_gbps),
                                                CsvField(r.operation)}));
  }

  const size_t regions_shown = ShownRows(data.regions.size(), options.top);
  out << "\n# regions\n";
  CsvRow(out, Concat(std::vector<std::string>(stat_headers),
                     std::vector<std::string>{"kernel_count", "gpu_time_ns", "domain", "path"}));
  for (size_t i = 0; i < regions_shown; ++i) {
    const analysis::RegionSummaryRow& r = data.regions[i];
    CsvRow(out, Concat(CsvStats(r.stats),
                       std::vector<std::string>{absl::StrCat(r.kernel_count),
                                                absl::StrCat(r.gpu_time_ns), CsvField(r.domain),
                                                CsvField(r.path)}));
  }

  out << "\n# region_kernels\n";
  CsvRow(out, {"domain", "path", "rank", "count", "total_ns", "name"});
  for (size_t i = 0; i < regions_shown; ++i) {
    const analysis::RegionSummaryRow& r = data.regions[i];
    for (size_t k = 0; k < r.top_kernels.size(); ++k) {
      const analysis::RegionTopKernel& t = r.top_kernels[k];
      CsvRow(out, {CsvField(r.domain), CsvField(r.path), absl::StrCat(k + 1),
                   absl::StrCat(t.count), absl::StrCat(t.total_ns),
                   CsvField(Demangle(t.name))});
    }
  }

  if (!data.ceilings.empty()) {
    out << "\n# ceilings\n";
    CsvRow(out, {"device_id", "sm_clock_hz", "peak_fp32_flops", "peak_fp64_flops",
                 "peak_fp16_flops", "peak_tensor_bf16_flops", "peak_dram_bytes_per_s",
                 "peak_l2_bytes_per_s", "peak_l1_bytes_per_s"});
    for (const analysis::Ceilings& c : data.ceilings) {
      CsvRow(out, {absl::StrCat(c.device_id), CsvRatio(c.sm_clock_hz), CsvRatio(c.peak_fp32_flops),
                   CsvRatio(c.peak_fp64_flops), CsvRatio(c.peak_fp16_flops),
                   CsvRatio(c.peak_tensor_bf16_flops), CsvRatio(c.peak_dram_bytes_per_s),
                   CsvRatio(c.peak_l2_bytes_per_s), CsvRatio(c.peak_l1_bytes_per_s)});
    }
  }
  if (!data.counters.empty()) {
    out << "\n# kernel_counters\n";
    CsvRow(out, {"device_id", "grid", "block", "time_percent", "total_time_ns", "launches",
                 "measured_launches", "sets", "strategy", "duration_ns", "fp32_flops",
                 "fp64_flops", "fp16_flops", "tensor_flops", "flops_per_s", "dram_bytes",
                 "l2_bytes", "l1_bytes", "dram_bytes_per_s", "l2_bytes_per_s", "l1_bytes_per_s",
                 "ai_dram", "ai_l2", "ai_l1", "pct_fp32", "pct_fp64", "pct_fp16", "pct_tensor",
                 "pct_compute", "pct_dram", "pct_l2", "pct_l1", "verdict", "small_grid",
                 "reason", "name"});
    auto pct = [](const std::optional<double>& v) { return v ? CsvRatio(*v) : std::string(); };
    for (size_t i = 0, n = ShownRows(data.counters.size(), options.top); i < n; ++i) {
      const analysis::KernelCounters& k = data.counters[i];
      CsvRow(out, {absl::StrCat(k.device_id), CsvDim(k.grid), CsvDim(k.block),
                   CsvNum(k.time_percent), absl::StrCat(k.total_time_ns), absl::StrCat(k.launches),
                   absl::StrCat(k.measured_launches), absl::StrCat(k.sets),
                   CsvField(k.StrategyNames()), CsvRatio(k.duration_ns), CsvRatio(k.fp32_flops),
                   CsvRatio(k.fp64_flops), CsvRatio(k.fp16_flops), CsvRatio(k.tensor_flops),
                   CsvRatio(k.total_flops_per_s), CsvRatio(k.dram_bytes), CsvRatio(k.l2_bytes),
                   CsvRatio(k.l1_bytes), CsvRatio(k.dram_bytes_per_s), CsvRatio(k.l2_bytes_per_s),
                   CsvRatio(k.l1_bytes_per_s), CsvRatio(k.ai_dram), CsvRatio(k.ai_l2),
                   CsvRatio(k.ai_l1), CsvRatio(k.pct_fp32), CsvRatio(k.pct_fp64),
                   CsvRatio(k.pct_fp16), CsvRatio(k.pct_tensor), pct(k.pct_compute),
                   pct(k.pct_dram), pct(k.pct_l2),
                   pct(k.pct_l1), analysis::VerdictName(k.verdict.bound),
                   k.verdict.small_grid ? "1" : "0", CsvField(CountersReason(k)), CsvField(Demangle(k.name))});
    }
  }
  if (!data.counter_notes.empty()) {
    out << "\n# counter_notes\n";
    CsvRow(out, {"note"});
    for (const std::string& n : data.counter_notes) CsvRow(out, {CsvField(n)});
  }
}

// --- JSON ---------------------------------------------------------------------------

void WriteJson(const ReportData& data, const ReportOptions& options, std::ostream& out) {
  static const model::Profile kEmpty;
  const model::Profile& p = data.profile ? *data.profile : kEmpty;
  const model::RunInfo& run = p.run;
  const analysis::Summary& s = data.summary;

  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.SetIndent(' ', 2);
  w.StartObject();

  Key(w, "run");
  w.StartObject();
  Key(w, "command_line"), Str(w, run.command_line);
  Key(w, "pid"), w.Int64(run.pid);
  Key(w, "hostname"), Str(w, run.hostname);
  Key(w, "cuscope_version"), Str(w, run.cuscope_version);
  Key(w, "rank"), w.Int(run.rank);
  Key(w, "exit_reason"), Str(w, run.exit_reason);
  Key(w, "start_unix_ns"), w.Int64(run.start_unix_ns);
  Key(w, "end_unix_ns"), w.Int64(run.end_unix_ns);
  Key(w, "start_ns"), w.Uint64(run.start_ns);
  Key(w, "end_ns"), w.Uint64(run.end_ns);
  Key(w, "wall_ns"), w.Uint64(s.wall_ns);
  Key(w, "dropped_records"), w.Uint64(s.dropped_records);
  Key(w, "buffers_refused"), w.Uint64(run.buffers_refused);
  Key(w, "internal_kernels"), w.Uint64(run.internal_kernels);
  Key(w, "invalid_records"), w.Uint64(s.invalid_records);
  Key(w, "extra");
  w.StartObject();
  for (const auto& [k, v] : run.extra) Key(w, k), Str(w, v);
  w.EndObject();
  w.EndObject();

  Key(w, "counts");
  w.StartObject();
  Key(w, "kernels"), w.Uint64(s.kernel_count);
  Key(w, "memcpys"), w.Uint64(s.memcpy_count);
  Key(w, "memsets"), w.Uint64(s.memset_count);
  Key(w, "api_calls"), w.Uint64(s.api_count);
  Key(w, "syncs"), w.Uint64(s.sync_count);
  Key(w, "ranges"), w.Uint64(s.range_count);
  w.EndObject();

  Key(w, "devices");
  w.StartArray();
  for (const analysis::DeviceBusy& d : s.devices) {
    w.StartObject();
    Key(w, "id"), w.Uint(d.device_id);
    Key(w, "name"), Str(w, d.device_name);
    if (const model::DeviceInfo* info = FindDevice(data.profile, d.device_id)) {
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

  JsonTable(w, "kernels", s.kernels, options.top, [&](const analysis::KernelSummaryRow& r) {
    Key(w, "name"), Str(w, Demangle(r.name));
    Key(w, "time_percent"), Num(w, r.time_percent);
    JsonStats(w, r.stats);
    Key(w, "measured_launches"), w.Uint64(r.measured_launches);
    Key(w, "all_measured"), w.Bool(r.all_measured);
  });
  JsonTable(w, "api", s.api, options.top, [&](const analysis::ApiSummaryRow& r) {
    Key(w, "name"), Str(w, r.name);
    Key(w, "time_percent"), Num(w, r.time_percent);
    JsonStats(w, r.stats);
  });
  JsonTable(w, "memory", s.memory, options.top, [&](const analysis::MemorySummaryRow& r) {
    Key(w, "operation"), Str(w, r.operation);
    Key(w, "time_percent"), Num(w, r.time_percent);
    JsonStats(w, r.stats);
    Key(w, "total_bytes"), w.Uint64(r.total_bytes);
    Key(w, "bandwidth_gbps"), Num(w, r.bandwidth_gbps);
  });
  JsonTable(w, "regions", data.regions, options.top, [&](const analysis::RegionSummaryRow& r) {
    Key(w, "path"), Str(w, r.path);
    Key(w, "domain"), Str(w, r.domain);
    JsonStats(w, r.stats);
    Key(w, "kernel_count"), w.Uint64(r.kernel_count);
    Key(w, "gpu_time_ns"), w.Uint64(r.gpu_time_ns);
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

  if (!data.ceilings.empty()) {
    Key(w, "ceilings");
    w.StartArray();
    for (const analysis::Ceilings& c : data.ceilings) {
      w.StartObject();
      Key(w, "device_id"), w.Uint(c.device_id);
      Key(w, "valid"), w.Bool(c.valid);
      Key(w, "sm_clock_hz"), Num(w, c.sm_clock_hz);
      Key(w, "peak_fp32_flops"), Num(w, c.peak_fp32_flops);
      Key(w, "peak_fp64_flops"), Num(w, c.peak_fp64_flops);
      Key(w, "peak_fp16_flops"), Num(w, c.peak_fp16_flops);
      Key(w, "peak_tensor_bf16_flops"), Num(w, c.peak_tensor_bf16_flops);
      Key(w, "peak_dram_bytes_per_s"), Num(w, c.peak_dram_bytes_per_s);
      Key(w, "peak_l2_bytes_per_s"), Num(w, c.peak_l2_bytes_per_s);
      Key(w, "peak_l1_bytes_per_s"), Num(w, c.peak_l1_bytes_per_s);
      w.EndObject();
    }
    w.EndArray();
  }
  if (!data.counters.empty()) {
    // A number, or null when infinite (no bytes) or not measured.
    auto num_or_null = [&](bool known, double v) {
      if (known && std::isfinite(v)) {
        w.Double(v);
      } else {
        w.Null();
      }
    };
    JsonTable(w, "kernel_counters", data.counters, options.top,
              [&](const analysis::KernelCounters& k) {
      Key(w, "name"), Str(w, Demangle(k.name));
      Key(w, "device_id"), w.Uint(k.device_id);
      Key(w, "grid"), w.StartArray(), w.Uint(k.grid.x), w.Uint(k.grid.y), w.Uint(k.grid.z), w.EndArray();
      Key(w, "block"), w.StartArray(), w.Uint(k.block.x), w.Uint(k.block.y), w.Uint(k.block.z), w.EndArray();
      Key(w, "region"), w.Bool(k.region);
      if (k.region) {
        // The region's kernels per traced instance (0/null when unknown).
        const analysis::RegionKernels rk = k.region_kernels.value_or(analysis::RegionKernels());
        Key(w, "region_kernel_ns"), num_or_null(k.region_kernels.has_value(), rk.ns_per_instance);
        Key(w, "region_kernel_flops_per_s"),
            num_or_null(k.region_kernels.has_value() && k.total_flops > 0, rk.flops_per_s);
      }
      Key(w, "time_percent"), Num(w, k.time_percent);
      Key(w, "total_time_ns"), w.Uint64(k.total_time_ns);
      Key(w, "launches"), w.Uint64(k.launches);
      Key(w, "measured_launches"), w.Uint64(k.measured_launches);
      Key(w, "sets"), w.Uint64(k.sets);
      Key(w, "passes"), w.Uint(k.max_passes);
      Key(w, "strategies");
      w.StartArray();
      for (model::CounterStrategy st : k.strategies) Str(w, model::CounterStrategyName(st));
      w.EndArray();
      Key(w, "duration_ns"), Num(w, k.duration_ns);
      Key(w, "flops");
      w.StartObject();
      Key(w, "fp32"), Num(w, k.fp32_flops);
      Key(w, "fp64"), Num(w, k.fp64_flops);
      Key(w, "fp16"), Num(w, k.fp16_flops);
      Key(w, "tensor_bf16"), Num(w, k.tensor_flops);
      Key(w, "total"), Num(w, k.total_flops);
      w.EndObject();
      Key(w, "flops_per_s");
      w.StartObject();
      Key(w, "fp32"), Num(w, k.fp32_flops_per_s);
      Key(w, "fp64"), Num(w, k.fp64_flops_per_s);
      Key(w, "fp16"), Num(w, k.fp16_flops_per_s);
      Key(w, "tensor_bf16"), Num(w, k.tensor_flops_per_s);
      Key(w, "total"), Num(w, k.total_flops_per_s);
      w.EndObject();
      Key(w, "bytes");
      w.StartObject();
      Key(w, "dram"), Num(w, k.dram_bytes);
      Key(w, "l2"), Num(w, k.l2_bytes);
      Key(w, "l1"), Num(w, k.l1_bytes);
      w.EndObject();
      Key(w, "bytes_per_s");
      w.StartObject();
      Key(w, "dram"), Num(w, k.dram_bytes_per_s);
      Key(w, "l2"), Num(w, k.l2_bytes_per_s);
      Key(w, "l1"), Num(w, k.l1_bytes_per_s);
      w.EndObject();
      Key(w, "arithmetic_intensity");
      w.StartObject();
      Key(w, "dram"), num_or_null(true, k.ai_dram);
      Key(w, "l2"), num_or_null(true, k.ai_l2);
      Key(w, "l1"), num_or_null(true, k.ai_l1);
      w.EndObject();
      Key(w, "pct_of_peak");
      w.StartObject();
      Key(w, "fp32"), Num(w, k.pct_fp32);
      Key(w, "fp64"), Num(w, k.pct_fp64);
      Key(w, "fp16"), Num(w, k.pct_fp16);
      Key(w, "tensor_bf16"), Num(w, k.pct_tensor);
      Key(w, "compute"), num_or_null(k.pct_compute.has_value(), k.pct_compute.value_or(0));
      Key(w, "dram"), num_or_null(k.pct_dram.has_value(), k.pct_dram.value_or(0));
      Key(w, "l2"), num_or_null(k.pct_l2.has_value(), k.pct_l2.value_or(0));
      Key(w, "l1"), num_or_null(k.pct_l1.has_value(), k.pct_l1.value_or(0));
      w.EndObject();
      Key(w, "dominant_precision"), Str(w, analysis::PrecisionName(k.dominant));
      Key(w, "ridge");
      w.StartObject();
      Key(w, "dram"), Num(w, k.ridge_dram);
      Key(w, "l2"), Num(w, k.ridge_l2);
      Key(w, "l1"), Num(w, k.ridge_l1);
      w.EndObject();
      Key(w, "verdict"), Str(w, analysis::VerdictName(k.verdict.bound));
      Key(w, "small_grid"), w.Bool(k.verdict.small_grid);
      Key(w, "wave_blocks"), w.Uint64(k.wave_blocks);
      Key(w, "reason"), Str(w, CountersReason(k));
      if (k.achieved_occupancy || k.theoretical.valid) {
        Key(w, "occupancy");
        w.StartObject();
        const analysis::AchievedOccupancy achieved = k.achieved_occupancy.value_or(analysis::AchievedOccupancy());
        Key(w, "achieved_pct"), num_or_null(k.achieved_occupancy.has_value(), achieved.percent);
        Key(w, "achieved_warps_per_sm"), num_or_null(k.achieved_occupancy.has_value(), achieved.warps_per_sm);
        if (k.theoretical.valid) {
          Key(w, "theoretical_pct"), Num(w, k.theoretical.percent);
          Key(w, "blocks_per_sm"), w.Int(k.theoretical.blocks_per_sm);
          Key(w, "warps_per_sm"), w.Int(k.theoretical.warps_per_sm);
          Key(w, "limiter"), Str(w, k.theoretical.limiter);
        }
        w.EndObject();
      }
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
        Key(w, "sm_pct"), Num(w, k.sol->sm_pct);
        Key(w, "memory_pct"), Num(w, k.sol->memory_pct);
        Key(w, "dram_pct"), Num(w, k.sol->dram_pct);
        Key(w, "l2_pct"), Num(w, k.sol->l2_pct);
        Key(w, "l1_pct"), Num(w, k.sol->l1_pct);
        Key(w, "tensor_pipe_pct"), Num(w, k.sol->tensor_pipe_pct);
        Key(w, "fma_pipe_pct"), Num(w, k.sol->fma_pipe_pct);
        Key(w, "highest_unit"), Str(w, k.sol->highest_unit);
        w.EndObject();
      }
      Key(w, "metrics");
      w.StartObject();
      for (const auto& [metric, v] : k.values) Key(w, metric), Num(w, v);
      w.EndObject();
    });
  }
  if (!data.counter_notes.empty()) {
    Key(w, "counter_notes");
    w.StartArray();
    for (const std::string& n : data.counter_notes) Str(w, n);
    w.EndArray();
  }

  w.EndObject();
  out.write(buffer.GetString(), static_cast<std::streamsize>(buffer.GetSize()));
  out << "\n";
}

// --- Comparison of two profiles -----------------------------------------------------

namespace {

std::string SignedDuration(int64_t ns) {
  std::string d = FormatDuration(static_cast<double>(ns < 0 ? -ns : ns));
  return (ns < 0 ? "-" : "+") + d;
}

std::string ChangePercent(const analysis::Delta& d) {
  double p = d.total_change_percent();
  if (std::isinf(p)) return "new";
  if (d.next.count == 0 && d.base.count > 0) return "gone";
  return absl::StrFormat("%+.1f%%", p);
}

void DeltaTable(const char* title, const std::vector<analysis::Delta>& rows, bool regions,
                const ReportOptions& options, size_t name_width, std::ostream& out) {
  out << "\n" << title << "\n";
  if (rows.empty()) {
    out << "  (none)\n";
    return;
  }
  std::vector<std::string> headers = {"Base Total", "New Total", "Change", "Change %",
                                      "Base N", "New N"};
  if (regions) {
    headers.push_back("Base Kernels");
    headers.push_back("New Kernels");
  }
  headers.push_back(regions ? "Region" : "Name");
  TextTable t(headers);
  size_t shown = ShownRows(rows.size(), options.top);
  for (size_t i = 0; i < shown; ++i) {
    const analysis::Delta& d = rows[i];
    std::vector<std::string> cells = {FormatDuration(double(d.base.total_ns)),
                                      FormatDuration(double(d.next.total_ns)),
                                      SignedDuration(d.total_change_ns()), ChangePercent(d),
                                      absl::StrCat(d.base.count), absl::StrCat(d.next.count)};
    if (regions) {
      cells.push_back(absl::StrCat(d.base.kernels));
      cells.push_back(absl::StrCat(d.next.kernels));
    }
    cells.push_back(Truncate(Demangle(d.name), name_width));
    t.AddRow(std::move(cells));
  }
  t.Write(out);
  if (shown < rows.size()) out << "  ... " << rows.size() - shown << " more\n";
}

}  // namespace

void WriteComparisonText(const analysis::Comparison& c, const std::string& base_label,
                         const std::string& next_label, const ReportOptions& options,
                         std::ostream& out) {
  out << "cuscope diff\n";
  out << "  Base        " << base_label << "\n";
  out << "  New         " << next_label << "\n";
  out << "  Wall time   " << FormatDuration(double(c.base_wall_ns)) << " -> "
      << FormatDuration(double(c.next_wall_ns)) << "\n";
  out << "  Kernel time " << FormatDuration(double(c.base_kernel_ns)) << " -> "
      << FormatDuration(double(c.next_kernel_ns)) << " ("
      << SignedDuration(int64_t(c.next_kernel_ns) - int64_t(c.base_kernel_ns)) << ")\n";
  out << "  Kernels     " << c.base_kernel_count << " -> " << c.next_kernel_count << "\n";
  size_t width = options.max_name_width > 0 ? static_cast<size_t>(options.max_name_width) : 80;
  DeltaTable("GPU kernels (by change of total time)", c.kernels, false, options, width, out);
  DeltaTable("Regions (by change of total time)", c.regions, true, options, width, out);
}

void WriteComparisonJson(const analysis::Comparison& c, const std::string& base_label,
                         const std::string& next_label, const ReportOptions& options,
                         std::ostream& out) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.SetIndent(' ', 2);
  w.StartObject();
  Key(w, "base"), Str(w, base_label);
  Key(w, "new"), Str(w, next_label);
  Key(w, "wall_ns"), w.StartArray(), w.Uint64(c.base_wall_ns), w.Uint64(c.next_wall_ns),
      w.EndArray();
  Key(w, "kernel_ns"), w.StartArray(), w.Uint64(c.base_kernel_ns), w.Uint64(c.next_kernel_ns),
      w.EndArray();
  Key(w, "kernel_count"), w.StartArray(), w.Uint64(c.base_kernel_count),
      w.Uint64(c.next_kernel_count), w.EndArray();
  auto table = [&](const char* key, const std::vector<analysis::Delta>& rows) {
    Key(w, key);
    w.StartArray();
    size_t shown = ShownRows(rows.size(), options.top);
    for (size_t i = 0; i < shown; ++i) {
      const analysis::Delta& d = rows[i];
      w.StartObject();
      Key(w, "name"), Str(w, Demangle(d.name));
      for (auto [side_key, side] : {std::pair<const char*, const analysis::Side*>{"base", &d.base},
                                    {"new", &d.next}}) {
        Key(w, side_key);
        w.StartObject();
        Key(w, "count"), w.Uint64(side->count);
        Key(w, "total_ns"), w.Uint64(side->total_ns);
        Key(w, "avg_ns"), w.Double(side->avg_ns);
        Key(w, "kernels"), w.Uint64(side->kernels);
        Key(w, "gpu_time_ns"), w.Uint64(side->gpu_time_ns);
        w.EndObject();
      }
      Key(w, "change_ns"), w.Int64(d.total_change_ns());
      w.EndObject();
    }
    w.EndArray();
  };
  table("kernels", c.kernels);
  table("regions", c.regions);
  w.EndObject();
  out.write(buffer.GetString(), static_cast<std::streamsize>(buffer.GetSize()));
  out << "\n";
}

}  // namespace cuscope::report
