#include "lib/report/csv.h"

#include <cmath>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "lib/model/demangle.h"
#include "lib/report/format.h"
#include "lib/report/number_format.h"
#include "lib/report/run_fields.h"
#include "lib/report/verdict_text.h"

namespace cuscope::report {

using model::Demangle;
namespace {

using analysis::DurationStats;
using Fields = std::vector<std::string>;

// A field quoted when it holds a comma, a quote or a line break (quotes doubled).
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
// Six significant digits; "" for infinity or NaN.
std::string CsvRatio(double v) { return std::isfinite(v) ? absl::StrFormat("%.6g", v) : ""; }
std::string CsvDim(const model::Dim3& d) { return absl::StrFormat("%dx%dx%d", d.x, d.y, d.z); }

void CsvRow(std::ostream& out, const Fields& fields) { out << absl::StrJoin(fields, ",") << "\n"; }

// `a` followed by each of `parts`.
template <typename... Parts>
Fields Concat(Fields a, const Parts&... parts) {
  (a.insert(a.end(), parts.begin(), parts.end()), ...);
  return a;
}

const Fields& StatHeaders() {
  static const Fields kHeaders = {"total_ns", "instances", "avg_ns",   "median_ns",
                                  "min_ns",   "max_ns",    "stddev_ns"};
  return kHeaders;
}

Fields CsvStats(const DurationStats& s) {
  return {absl::StrCat(s.total_ns), absl::StrCat(s.count),  CsvNum(s.avg_ns),   CsvNum(s.median_ns),
          absl::StrCat(s.min_ns),   absl::StrCat(s.max_ns), CsvNum(s.stddev_ns)};
}

void WriteRun(const model::RunInfo& run, const analysis::Summary& s, std::ostream& out) {
  out << "# run\n";
  CsvRow(out, {"key", "value"});
  auto kv = [&](absl::string_view k, const std::string& v) {
    CsvRow(out, {std::string(k), CsvField(v)});
  };
  // Every run field (run_fields.h), the JSON report's "run" and "counts" in one.
  for (const RunField& f : RunFields()) {
    const RunFieldValue v = f.value(run, s);
    if (const std::string* text = std::get_if<std::string>(&v)) {
      kv(f.key, *text);
    } else {
      kv(f.key, std::visit([](auto n) { return absl::StrCat(n); }, v));
    }
  }
  for (const auto& [k, v] : model::NotesToKeyValues(run.notes)) kv(absl::StrCat("extra.", k), v);
}

void WriteDevices(const model::Profile& p, const analysis::Summary& s, std::ostream& out) {
  out << "\n# devices\n";
  CsvRow(out, {"device_id", "name", "compute_capability", "sm_count", "global_memory_bytes",
               "busy_ns", "kernel_ns", "busy_percent"});
  for (const analysis::DeviceBusy& d : s.devices) {
    const model::DeviceInfo* info = p.FindDevice(d.device_id);
    CsvRow(out, {absl::StrCat(d.device_id), CsvField(d.device_name),
                 info ? absl::StrFormat("%d.%d", info->compute_major, info->compute_minor) : "",
                 info ? absl::StrCat(info->sm_count) : "",
                 info ? absl::StrCat(info->global_memory_bytes) : "", absl::StrCat(d.busy_ns),
                 absl::StrCat(d.kernel_ns), CsvNum(d.busy_percent)});
  }
}

void WriteSummaryTables(const analysis::Summary& s, int top, std::ostream& out) {
  out << "\n# kernels\n";
  CsvRow(out, Concat({"time_percent"}, StatHeaders(),
                     Fields{"measured_launches", "all_measured", "name"}));
  for (size_t i = 0, n = ShownRows(s.kernels.size(), top); i < n; ++i) {
    const analysis::KernelSummaryRow& r = s.kernels[i];
    CsvRow(out, Concat({CsvNum(r.time_percent)}, CsvStats(r.stats),
                       Fields{absl::StrCat(r.measured_launches), r.all_measured ? "1" : "0",
                              CsvField(Demangle(r.name))}));
  }

  out << "\n# api\n";
  CsvRow(out, Concat({"time_percent"}, StatHeaders(), Fields{"name"}));
  for (size_t i = 0, n = ShownRows(s.api.size(), top); i < n; ++i) {
    const analysis::ApiSummaryRow& r = s.api[i];
    CsvRow(out, Concat({CsvNum(r.time_percent)}, CsvStats(r.stats), Fields{CsvField(r.name)}));
  }

  out << "\n# memory\n";
  CsvRow(out, Concat({"time_percent"}, StatHeaders(),
                     Fields{"total_bytes", "bandwidth_gbps", "operation"}));
  for (size_t i = 0, n = ShownRows(s.memory.size(), top); i < n; ++i) {
    const analysis::MemorySummaryRow& r = s.memory[i];
    CsvRow(out, Concat({CsvNum(r.time_percent)}, CsvStats(r.stats),
                       Fields{absl::StrCat(r.total_bytes), CsvNum(r.bandwidth_gbps),
                              CsvField(r.operation)}));
  }
}

void WriteRegions(const std::vector<analysis::RegionSummaryRow>& regions, int top,
                  std::ostream& out) {
  const size_t shown = ShownRows(regions.size(), top);
  out << "\n# regions\n";
  CsvRow(out, Concat(StatHeaders(), Fields{"kernel_count", "gpu_time_ns", "domain", "path"}));
  for (size_t i = 0; i < shown; ++i) {
    const analysis::RegionSummaryRow& r = regions[i];
    CsvRow(out, Concat(CsvStats(r.stats),
                       Fields{absl::StrCat(r.kernel_count), absl::StrCat(r.gpu_time_ns),
                              CsvField(r.domain), CsvField(r.path)}));
  }

  out << "\n# region_kernels\n";
  CsvRow(out, {"domain", "path", "rank", "count", "total_ns", "name"});
  for (size_t i = 0; i < shown; ++i) {
    const analysis::RegionSummaryRow& r = regions[i];
    for (size_t k = 0; k < r.top_kernels.size(); ++k) {
      const analysis::RegionTopKernel& t = r.top_kernels[k];
      CsvRow(out, {CsvField(r.domain), CsvField(r.path), absl::StrCat(k + 1), absl::StrCat(t.count),
                   absl::StrCat(t.total_ns), CsvField(Demangle(t.name))});
    }
  }
}

void WriteCeilings(const std::vector<analysis::Ceilings>& ceilings, std::ostream& out) {
  if (ceilings.empty()) return;
  out << "\n# ceilings\n";
  Fields header = {"device_id", "sm_clock_hz"};
  for (analysis::Precision p : analysis::kAllPrecisions) {
    header.push_back(absl::StrCat("peak_", analysis::PrecisionKey(p), "_flops"));
  }
  header.insert(header.end(),
                {"peak_dram_bytes_per_s", "peak_l2_bytes_per_s", "peak_l1_bytes_per_s"});
  CsvRow(out, header);
  for (const analysis::Ceilings& c : ceilings) {
    Fields row = {absl::StrCat(c.device_id), CsvRatio(c.sm_clock_hz)};
    for (analysis::Precision p : analysis::kAllPrecisions)
      row.push_back(CsvRatio(analysis::PeakFlops(c, p)));
    row.insert(row.end(), {CsvRatio(c.peak_dram_bytes_per_s), CsvRatio(c.peak_l2_bytes_per_s),
                           CsvRatio(c.peak_l1_bytes_per_s)});
    CsvRow(out, row);
  }
}

// One row of # kernel_counters (a field mapping, in the order of the header).
Fields CounterFields(const analysis::KernelCounters& k) {
  auto pct = [](const std::optional<double>& v) { return v ? CsvRatio(*v) : std::string(); };
  return {absl::StrCat(k.device_id),
          CsvDim(k.grid),
          CsvDim(k.block),
          CsvNum(k.time_percent),
          absl::StrCat(k.total_time_ns),
          k.time_estimated ? "1" : "0",
          absl::StrCat(k.launches),
          absl::StrCat(k.measured_launches),
          absl::StrCat(k.sets),
          CsvField(k.StrategyNames()),
          CsvRatio(k.duration_ns),
          CsvRatio(k.fp32_flops),
          CsvRatio(k.fp64_flops),
          CsvRatio(k.fp16_flops),
          CsvRatio(k.tensor_flops),
          CsvRatio(k.total_flops_per_s),
          CsvRatio(k.dram_bytes),
          CsvRatio(k.l2_bytes),
          CsvRatio(k.l1_bytes),
          CsvRatio(k.dram_bytes_per_s),
          CsvRatio(k.l2_bytes_per_s),
          CsvRatio(k.l1_bytes_per_s),
          CsvRatio(k.ai_dram),
          CsvRatio(k.ai_l2),
          CsvRatio(k.ai_l1),
          CsvRatio(k.pct_fp32),
          CsvRatio(k.pct_fp64),
          CsvRatio(k.pct_fp16),
          CsvRatio(k.pct_tensor),
          pct(k.pct_compute),
          pct(k.pct_dram),
          pct(k.pct_l2),
          pct(k.pct_l1),
          analysis::VerdictName(k.verdict.bound),
          k.verdict.small_grid ? "1" : "0",
          CsvField(CountersReason(k)),
          CsvField(Demangle(k.name))};
}

// The columns after "name": FLOPs and % of roof of each tensor precision, SM %,
// memory % and the speed-of-light class.
Fields PrecisionFields(const analysis::KernelCounters& k) {
  Fields f;
  for (analysis::Precision p : analysis::kAllPrecisions) {
    if (analysis::IsTensor(p)) f.push_back(CsvRatio(k.flops_of(p).flops));
  }
  for (analysis::Precision p : analysis::kAllPrecisions) {
    if (analysis::IsTensor(p)) f.push_back(CsvRatio(k.flops_of(p).pct_of_peak));
  }
  const bool sm = k.sol && k.sol->has_sm, mem = k.sol && k.sol->has_memory;
  f.push_back(sm ? CsvRatio(k.sol->sm_pct) : std::string());
  f.push_back(mem ? CsvRatio(k.sol->memory_pct) : std::string());
  f.push_back(analysis::SolClassName(k.verdict.sol_class));
  return f;
}

// The columns after "sol_class": how far the best set got and the measurement in words.
Fields MeasurementFields(const analysis::KernelCounters& k) {
  return {absl::StrCat(k.progress.passes),  absl::StrCat(k.progress.passes_run),
          absl::StrCat(k.progress.metrics), absl::StrCat(k.progress.metrics_measured),
          k.complete() ? "1" : "0",         CsvField(MeasurementText(k))};
}

Fields CounterHeader() {
  Fields h = {"device_id",
              "grid",
              "block",
              "time_percent",
              "total_time_ns",
              "time_estimated",
              "launches",
              "measured_launches",
              "sets",
              "strategy",
              "duration_ns",
              "fp32_flops",
              "fp64_flops",
              "fp16_flops",
              "tensor_flops",
              "flops_per_s",
              "dram_bytes",
              "l2_bytes",
              "l1_bytes",
              "dram_bytes_per_s",
              "l2_bytes_per_s",
              "l1_bytes_per_s",
              "ai_dram",
              "ai_l2",
              "ai_l1",
              "pct_fp32",
              "pct_fp64",
              "pct_fp16",
              "pct_tensor",
              "pct_compute",
              "pct_dram",
              "pct_l2",
              "pct_l1",
              "verdict",
              "small_grid",
              "reason",
              "name"};
  for (analysis::Precision p : analysis::kAllPrecisions) {
    if (analysis::IsTensor(p)) h.push_back(absl::StrCat(analysis::PrecisionKey(p), "_flops"));
  }
  for (analysis::Precision p : analysis::kAllPrecisions) {
    if (analysis::IsTensor(p)) h.push_back(absl::StrCat("pct_", analysis::PrecisionKey(p)));
  }
  h.insert(h.end(), {"sm_pct", "memory_pct", "sol_class", "passes", "passes_run", "metrics",
                     "metrics_measured", "complete", "measured"});
  return h;
}

void WriteCounters(const std::vector<analysis::KernelCounters>& counters, int top,
                   std::ostream& out) {
  if (counters.empty()) return;
  out << "\n# kernel_counters\n";
  CsvRow(out, CounterHeader());
  for (size_t i = 0, n = ShownRows(counters.size(), top); i < n; ++i) {
    Fields row = CounterFields(counters[i]);
    Fields more = PrecisionFields(counters[i]);
    row.insert(row.end(), more.begin(), more.end());
    more = MeasurementFields(counters[i]);
    row.insert(row.end(), more.begin(), more.end());
    CsvRow(out, row);
  }
}

}  // namespace

void WriteCsv(const ReportData& data, const ReportOptions& options, std::ostream& out) {
  const model::Profile& p = ProfileOf(data);
  WriteRun(p.run, data.summary, out);
  WriteDevices(p, data.summary, out);
  WriteSummaryTables(data.summary, options.top, out);
  WriteRegions(data.regions, options.top, out);
  WriteCeilings(data.ceilings, out);
  const analysis::VerdictCoverage& c = data.coverage;
  if ((!data.ceilings.empty() || !data.counters.empty() || !data.counter_notes.empty()) &&
      c.signatures > 0) {
    out << "\n# counter_coverage\n";
    CsvRow(out, {"percent", "kernel_ns", "covered_ns", "signatures", "covered", "measured",
                 "partial", "unknown", "not_measured"});
    CsvRow(out, {CsvNum(c.percent()), absl::StrCat(c.kernel_ns), absl::StrCat(c.covered_ns),
                 absl::StrCat(c.signatures), absl::StrCat(c.covered), absl::StrCat(c.measured),
                 absl::StrCat(c.partial), absl::StrCat(c.unknown), absl::StrCat(c.not_measured())});
  }
  WriteCounters(data.counters, options.top, out);
  if (!data.counter_notes.empty()) {
    out << "\n# counter_notes\n";
    CsvRow(out, {"note"});
    for (const std::string& n : data.counter_notes) CsvRow(out, {CsvField(n)});
  }
}

}  // namespace cuscope::report
