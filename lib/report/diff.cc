#include "lib/report/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/model/checked.h"
#include "lib/model/demangle.h"
#include "lib/report/diff_basis.h"
#include "lib/report/diff_samples.h"
#include "lib/report/diff_source.h"
#include "lib/report/diff_totals.h"
#include "lib/report/format.h"
#include "lib/report/json_writer.h"

namespace cuscope::report {

using model::Demangle;
namespace {

// "+12.5%", "new" (absent from the base) or "gone" (absent from the new profile).
std::string ChangePercent(const analysis::Delta& d) {
  return ChangePercentText(d.total_change_percent(), d.base.count, d.next.count);
}

// Kernel names are fitted by `names`; region names (`regions`) each on its own.
void DeltaTable(const char* title, const std::vector<analysis::Delta>& rows, bool regions,
                const NameCut& names, const ReportOptions& options, std::ostream& out) {
  out << "\n" << title << "\n";
  if (rows.empty()) {
    out << "  (none)\n";
    return;
  }
  std::vector<std::string> headers = {"Base Total", "New Total", "Change",
                                      "Change %",   "Base N",    "New N"};
  if (regions) {
    headers.push_back("Base Kernels");
    headers.push_back("New Kernels");
  }
  headers.push_back(regions ? "Region" : "Name");
  TextTable t(headers);
  t.Fit(options.width, options.max_name_width, regions ? nullptr : &names);
  t.SetDroppable({"Base Kernels", "New Kernels", "Base N", "New N"});
  const size_t shown = ShownRows(rows.size(), options.top);
  bool any_left_out = false;
  for (size_t i = 0; i < shown; ++i) {
    const analysis::Delta& d = rows[i];
    const bool none =
        d.left_out != analysis::LeftOut::kNone && d.base.count == 0 && d.next.count == 0;
    std::vector<std::string> cells = {FormatDuration(double(d.base.total_ns)),
                                      FormatDuration(double(d.next.total_ns)),
                                      none ? "-" : FormatSignedDuration(d.total_change_ns()),
                                      none ? "n/c" : ChangePercent(d),
                                      absl::StrCat(d.base.count),
                                      absl::StrCat(d.next.count)};
    any_left_out = any_left_out || d.left_out != analysis::LeftOut::kNone;
    if (regions) {
      cells.push_back(absl::StrCat(d.base.kernels));
      cells.push_back(absl::StrCat(d.next.kernels));
    }
    cells.push_back(Demangle(d.name));
    t.AddRow(std::move(cells));
  }
  t.Write(out);
  WriteMoreLine(rows.size(), shown, "", out);
  if (any_left_out) {
    out << Wrapped(
        "Totals and counts are of the launches both profiles timed alike: launches measured "
        "with counters, and launches without a partner where the other profile kept no "
        "record, are left out; n/c: none left to compare.",
        options.width, 2, 4);
  }
}

void JsonSide(json::Writer& w, const char* key, const analysis::Side& side) {
  json::Key(w, key);
  w.StartObject();
  json::Key(w, "count"), w.Uint64(side.count);
  json::Key(w, "total_ns"), w.Uint64(side.total_ns);
  json::Key(w, "avg_ns"), w.Double(side.avg_ns);
  json::Key(w, "kernels"), w.Uint64(side.kernels);
  json::Key(w, "gpu_time_ns"), w.Uint64(side.gpu_time_ns);
  w.EndObject();
}

void JsonDeltas(json::Writer& w, const char* key, const std::vector<analysis::Delta>& rows,
                int top) {
  json::Key(w, key);
  w.StartArray();
  const size_t shown = ShownRows(rows.size(), top);
  for (size_t i = 0; i < shown; ++i) {
    const analysis::Delta& d = rows[i];
    w.StartObject();
    json::Key(w, "name"), json::Str(w, Demangle(d.name));
    JsonSide(w, "base", d.base);
    JsonSide(w, "new", d.next);
    json::Key(w, "change_ns"), w.Int64(d.total_change_ns());
    json::Key(w, "change_percent");
    if (std::isfinite(d.total_change_percent())) {
      w.Double(d.total_change_percent());
    } else {
      w.Null();
    }
    w.EndObject();
  }
  w.EndArray();
}

// "64x32x1".
std::string DimText(const model::Dim3& d) { return absl::StrCat(d.x, "x", d.y, "x", d.z); }

void JsonDim(json::Writer& w, const char* key, const model::Dim3& d) {
  json::Key(w, key);
  w.StartArray();
  w.Uint(d.x);
  w.Uint(d.y);
  w.Uint(d.z);
  w.EndArray();
}

// Whether another row names the same kernel (two signatures of it).
bool NameShared(const std::vector<analysis::FindingChange>& rows, size_t i) {
  if (rows[i].kernel.empty()) return false;
  for (size_t j = 0; j < rows.size(); ++j) {
    if (j != i && rows[j].kernel == rows[i].kernel) return true;
  }
  return false;
}

void VerdictTable(const std::vector<analysis::VerdictChange>& rows, const NameCut& names,
                  const ReportOptions& options, std::ostream& out) {
  out << "\nVerdicts that changed (kernels measured in both)\n";
  if (rows.empty()) {
    out << "  (none)\n";
    return;
  }
  // A verdict belongs to a signature: the grid and block tell one kernel's apart.
  TextTable t({"Base Verdict", "New Verdict", "Grid", "Block", "Name"});
  t.Fit(options.width, options.max_name_width, &names);
  const size_t shown = ShownRows(rows.size(), options.top);
  for (size_t i = 0; i < shown; ++i) {
    t.AddRow({rows[i].base_verdict, rows[i].next_verdict, DimText(rows[i].grid),
              DimText(rows[i].block), Demangle(rows[i].name)});
  }
  t.Write(out);
  WriteMoreLine(rows.size(), shown, "", out);
}

// "appeared", "resolved" or "stayed", with the gains that say by how much.
void FindingLines(const std::vector<analysis::FindingChange>& rows, const ReportOptions& options,
                  std::ostream& out) {
  out << "\nFindings (what appeared, what was resolved, what stayed)\n";
  if (rows.empty()) {
    out << "  (none)\n";
    return;
  }
  const size_t shown = ShownRows(rows.size(), options.top);
  for (size_t i = 0; i < shown; ++i) {
    const analysis::FindingChange& f = rows[i];
    std::string where = f.kernel.empty() ? f.region : Demangle(f.kernel);
    if (f.grid_blocks > 0 && NameShared(rows, i)) {
      absl::StrAppend(&where, "; ", FindingSignatureText(f));
    }
    std::string gains =
        f.kind == analysis::FindingChangeKind::kStayed
            ? absl::StrCat("gain ", FormatDuration(f.base_gain_ns), " -> ",
                           FormatDuration(f.next_gain_ns))
            : absl::StrCat("gain ", FormatDuration(std::max(f.base_gain_ns, f.next_gain_ns)));
    out << Wrapped(
        absl::StrCat(analysis::FindingChangeKindName(f.kind), " ", f.rule, ": ", gains,
                     FindingSideText(f), where.empty() ? "" : absl::StrCat(" (", where, ")")),
        options.width, 2, 4);
  }
  WriteMoreLine(rows.size(), shown, "", out);
}

void JsonChanges(json::Writer& w, const analysis::Comparison& c) {
  json::Key(w, "verdict_changes");
  w.StartArray();
  for (const analysis::VerdictChange& v : c.verdicts) {
    w.StartObject();
    json::Key(w, "name"), json::Str(w, Demangle(v.name));
    json::Key(w, "base"), json::Str(w, v.base_verdict);
    json::Key(w, "new"), json::Str(w, v.next_verdict);
    JsonDim(w, "grid", v.grid);
    JsonDim(w, "block", v.block);
    w.EndObject();
  }
  w.EndArray();
  json::Key(w, "finding_changes");
  w.StartArray();
  for (const analysis::FindingChange& f : c.findings) {
    w.StartObject();
    json::Key(w, "change"), json::Str(w, analysis::FindingChangeKindName(f.kind));
    json::Key(w, "rule"), json::Str(w, f.rule);
    json::Key(w, "kernel"), json::Str(w, Demangle(f.kernel));
    json::Key(w, "region"), json::Str(w, f.region);
    json::Key(w, "grid_blocks"), w.Uint64(f.grid_blocks);
    json::Key(w, "block_threads"), w.Uint64(f.block_threads);
    json::Key(w, "base_gain_ns"), w.Double(f.base_gain_ns);
    json::Key(w, "new_gain_ns"), w.Double(f.next_gain_ns);
    json::Key(w, "summary"), json::Str(w, f.summary);
    json::Key(w, "side"), json::Str(w, f.side == analysis::FindingSide::kBase   ? "base"
                                       : f.side == analysis::FindingSide::kNext ? "new"
                                                                                : "");
    w.EndObject();
  }
  w.EndArray();
}

// "key": [base, next].
void JsonPair(json::Writer& w, const char* key, uint64_t base, uint64_t next) {
  json::Key(w, key);
  w.StartArray();
  w.Uint64(base);
  w.Uint64(next);
  w.EndArray();
}

// "30 only in base, e.g. dram__bytes.sum".
std::string SomeNames(const char* side, const std::vector<std::string>& names) {
  return absl::StrCat(names.size(), " only in ", side, ", e.g. ", names.front());
}

void JsonNames(json::Writer& w, const char* key, const std::vector<std::string>& names) {
  json::Key(w, key);
  w.StartArray();
  for (const std::string& n : names) json::Str(w, n);
  w.EndArray();
}

}  // namespace

NameCut KernelNamesOf(const analysis::Comparison& c) {
  std::vector<std::string> names;
  for (const analysis::Delta& d : c.kernels) names.push_back(Demangle(d.name));
  for (const analysis::VerdictChange& v : c.verdicts) names.push_back(Demangle(v.name));
  for (const analysis::SampledChange& s : c.sampled) names.push_back(Demangle(s.name));
  return NameCut(std::move(names));
}

std::string MetricsDifferenceText(const analysis::MetricsDifference& m) {
  if (!m.differ()) return "";
  std::string sides;
  if (!m.only_base.empty()) sides = SomeNames("base", m.only_base);
  if (!m.only_next.empty()) {
    absl::StrAppend(&sides, sides.empty() ? "" : "; ", SomeNames("new", m.only_next));
  }
  return absl::StrCat("different counter metrics measured (", sides,
                      "): verdict and finding changes may come from what was measured, not "
                      "from a change in the program");
}

std::string FindingSideText(const analysis::FindingChange& f) {
  const char* side = f.side == analysis::FindingSide::kBase ? "BASE" : "NEW";
  switch (f.why) {
    case analysis::FindingWhy::kNone:
      return "";
    case analysis::FindingWhy::kUnderMinimum:
      return absl::StrCat("; under the minimum gain of ", side,
                          "'s wall or GPU time, its quantity still there");
    case analysis::FindingWhy::kNoCounters:
      return absl::StrCat("; ", side, " measured no counters of its kernel");
    case analysis::FindingWhy::kRecordsLeftOut:
      return absl::StrCat("; ", side, "'s profiler left out records it rests on");
  }
  return "";
}

std::string FindingSignatureText(const analysis::FindingChange& f) {
  return absl::StrFormat("%d blocks of %d threads", f.grid_blocks, f.block_threads);
}

void WriteComparisonText(const analysis::Comparison& c, const std::string& base_label,
                         const std::string& next_label, const ReportOptions& options,
                         std::ostream& out) {
  out << "cuscope diff\n";
  out << Wrapped(absl::StrCat("Base        ", base_label), options.width, 2, 14);
  out << Wrapped(absl::StrCat("New         ", next_label), options.width, 2, 14);
  WriteBasisHeaderText(c, options, out);
  WriteTotalsHeaderText(c, options, out);
  if (c.metrics.differ()) {
    out << Wrapped(absl::StrCat("Counters    ", MetricsDifferenceText(c.metrics)), options.width, 2,
                   14);
  }
  const NameCut names = KernelNamesOf(c);
  DeltaTable("GPU kernels (by change of total time)", c.kernels, false, names, options, out);
  DeltaTable("Regions (by change of total time)", c.regions, true, names, options, out);
  WriteMemoryText(c, options, out);
  WriteApiText(c, options, out);
  VerdictTable(c.verdicts, names, options, out);
  WriteSampledChangesText(c.sampled, names, options, out);
  WriteSourceChangesText(c.source, options, out);
  FindingLines(c.findings, options, out);
}

void WriteComparisonJson(const analysis::Comparison& c, const std::string& base_label,
                         const std::string& next_label, const ReportOptions& options,
                         std::ostream& out) {
  json::Document doc;
  json::Writer& w = doc.writer();
  w.StartObject();
  json::Key(w, "base"), json::Str(w, base_label);
  json::Key(w, "new"), json::Str(w, next_label);
  JsonPair(w, "wall_ns", c.base_wall_ns, c.next_wall_ns);
  JsonPair(w, "kernel_ns", c.base_kernel_ns, c.next_kernel_ns);
  JsonPair(w, "kernel_count", c.base_kernel_count, c.next_kernel_count);
  WriteBasisJson(w, c);
  // Counter metrics measured on one side only: verdicts and findings may differ for it.
  json::Key(w, "counter_metrics");
  w.StartObject();
  json::Key(w, "differ"), w.Bool(c.metrics.differ());
  JsonNames(w, "only_base", c.metrics.only_base);
  JsonNames(w, "only_new", c.metrics.only_next);
  w.EndObject();
  JsonDeltas(w, "kernels", c.kernels, options.top);
  JsonDeltas(w, "regions", c.regions, options.top);
  WriteTotalsJson(w, c, options.top);
  JsonChanges(w, c);
  WriteSampledChangesJson(w, c.sampled, options.top);
  WriteSourceChangesJson(w, c.source, options.top);
  w.EndObject();
  doc.WriteTo(out);
}

}  // namespace cuscope::report
