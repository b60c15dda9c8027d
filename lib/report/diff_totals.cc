#include "lib/report/diff_totals.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "lib/model/checked.h"
#include "lib/report/format.h"

namespace cuscope::report {

using analysis::TotalsDelta;

namespace {

std::string SizeChangeText(const TotalsDelta& d) {
  return absl::StrCat(FormatBytes(d.base.bytes), " -> ", FormatBytes(d.next.bytes), " (",
                      ChangePercentText(d.bytes_change_percent(), d.base.count, d.next.count), ")");
}

// The four time columns of a row.
std::vector<std::string> TimeCells(const TotalsDelta& d) {
  return {FormatDuration(double(d.base.total_ns)), FormatDuration(double(d.next.total_ns)),
          FormatSignedDuration(d.time_change_ns()),
          ChangePercentText(d.time_change_percent(), d.base.count, d.next.count)};
}

void JsonTotals(json::Writer& w, const char* key, const analysis::Totals& t, bool bytes) {
  json::Key(w, key);
  w.StartObject();
  json::Key(w, "count"), w.Uint64(t.count);
  if (bytes) json::Key(w, "bytes"), w.Uint64(t.bytes);
  json::Key(w, "total_ns"), w.Uint64(t.total_ns);
  if (bytes) json::Key(w, "gbps"), json::Num(w, t.gbps());
  w.EndObject();
}

// A percentage, or null when it is infinite (the base had none).
void JsonPercent(json::Writer& w, const char* key, double percent) {
  json::Key(w, key);
  if (std::isfinite(percent)) {
    w.Double(percent);
  } else {
    w.Null();
  }
}

void JsonDelta(json::Writer& w, const TotalsDelta& d, bool bytes) {
  w.StartObject();
  json::Key(w, "name"), json::Str(w, d.name);
  if (!bytes) json::Key(w, "synchronizing"), w.Bool(d.synchronizing);
  JsonTotals(w, "base", d.base, bytes);
  JsonTotals(w, "new", d.next, bytes);
  json::Key(w, "change_ns"), w.Int64(d.time_change_ns());
  JsonPercent(w, "change_percent", d.time_change_percent());
  JsonPercent(w, "count_change_percent", d.count_change_percent());
  if (bytes) JsonPercent(w, "bytes_change_percent", d.bytes_change_percent());
  if (bytes) json::Key(w, "not_compared"), w.Bool(d.not_compared);
  w.EndObject();
}

void JsonBusy(json::Writer& w, const char* key, const analysis::DeviceBusy& b) {
  json::Key(w, key);
  w.StartObject();
  json::Key(w, "busy_ns"), w.Uint64(b.busy_ns);
  json::Key(w, "kernel_ns"), w.Uint64(b.kernel_ns);
  json::Key(w, "busy_percent"), json::Num(w, b.busy_percent);
  json::Key(w, "program_busy_percent"), json::Num(w, b.program_busy_percent);
  w.EndObject();
}

}  // namespace

// The causes that left copies and memsets out of one profile, joined by "; ".
std::string MemoryCausesText(const analysis::ProfilerEffects& fx) {
  std::vector<std::string> causes;
  if (fx.copies_held) causes.push_back("copy and memset records held off while counter sets ran");
  if (fx.memory_untraced) causes.push_back("copies and memsets not traced");
  if (fx.dropped_records > 0)
    causes.push_back(absl::StrCat(fx.dropped_records, " records dropped"));
  return absl::StrJoin(causes, ", ");
}

std::string MemoryNotComparedText(const analysis::Comparison& c) {
  std::vector<std::string> parts;
  if (std::string b = MemoryCausesText(c.base_profiler); !b.empty()) {
    parts.push_back(absl::StrCat("BASE: ", b));
  }
  if (std::string n = MemoryCausesText(c.next_profiler); !n.empty()) {
    parts.push_back(absl::StrCat("NEW: ", n));
  }
  return absl::StrCat("not compared (", absl::StrJoin(parts, "; "), ")");
}

std::string CountChangeText(uint64_t base, uint64_t next, absl::string_view noun) {
  return absl::StrCat(
      base, " -> ", next, noun.empty() ? "" : " ", noun, " (",
      absl::StrFormat("%+d", model::SaturatingDifference(next, base)), ", ",
      ChangePercentText(analysis::ChangePercent(double(base), double(next)), base, next), ")");
}

std::string GbpsText(const analysis::Totals& t) {
  if (t.count == 0) return "-";
  const double v = t.gbps();
  return absl::StrFormat("%.*f", v >= 100 ? 0 : v >= 10 ? 1 : v >= 1 ? 2 : 3, v);
}

std::string ChangePercentText(double percent, uint64_t base_count, uint64_t next_count) {
  if (base_count == 0 && next_count > 0) return "new";
  if (next_count == 0 && base_count > 0) return "gone";
  if (!std::isfinite(percent)) return "n/a";
  return absl::StrFormat("%+.1f%%", percent);
}

std::string TotalsChangeText(const TotalsDelta& d, absl::string_view what, bool bytes) {
  if (d.base.count == 0 && d.next.count == 0) return "none in either profile";
  std::string s = CountChangeText(d.base.count, d.next.count, what);
  if (bytes) absl::StrAppend(&s, ", ", SizeChangeText(d));
  absl::StrAppend(&s, ", ", DurationChangeText(d.base.total_ns, d.next.total_ns));
  return s;
}

std::string DurationChangeText(uint64_t base_ns, uint64_t next_ns) {
  const double pct = analysis::ChangePercent(double(base_ns), double(next_ns));
  return absl::StrCat(FormatDuration(double(base_ns)), " -> ", FormatDuration(double(next_ns)),
                      " (", FormatSignedDuration(model::SaturatingDifference(next_ns, base_ns)),
                      std::isfinite(pct) ? absl::StrFormat(", %+.1f%%", pct) : "", ")");
}

std::string BusyShareText(const analysis::BusyDelta& b) {
  return absl::StrFormat(
      "%.1f%% -> %.1f%% of %s (%+.1f points)", b.base_percent(), b.next_percent(),
      b.of_program ? "the program's wall (wall less cuscope's own time)" : "wall",
      b.change_points());
}

void WriteTotalsHeaderText(const analysis::Comparison& c, const ReportOptions& options,
                           std::ostream& out) {
  for (size_t i = 0; i < c.busy.size(); ++i) {
    const analysis::BusyDelta& b = c.busy[i];
    out << Wrapped(
        absl::StrFormat("%-11s GPU %d: %s, %s", i == 0 ? "GPU busy" : "", b.device_id,
                        DurationChangeText(b.base.busy_ns, b.next.busy_ns), BusyShareText(b)),
        options.width, 2, 14);
  }
  out << Wrapped(
      absl::StrCat("Copies      ", TotalsChangeText(c.copies, "copies", true),
                   c.copies.not_compared ? absl::StrCat("; ", MemoryNotComparedText(c)) : ""),
      options.width, 2, 14);
  out << Wrapped(absl::StrCat("Sync calls  ", TotalsChangeText(c.sync_calls, "calls", false)),
                 options.width, 2, 14);
}

void WriteMemoryText(const analysis::Comparison& c, const ReportOptions& options,
                     std::ostream& out) {
  out << "\nMemory operations (by change of total time)\n";
  if (c.memory.empty()) {
    out << "  (none)\n";
    return;
  }
  TextTable t({"Base Total", "New Total", "Change", "Change %", "Operation"}, 4);
  t.Fit(options.width, options.max_name_width);
  const size_t shown = ShownRows(c.memory.size(), options.top);
  for (size_t i = 0; i < shown; ++i) {
    const TotalsDelta& d = c.memory[i];
    std::vector<std::string> cells = TimeCells(d);
    cells.push_back(d.name);
    t.AddRow(std::move(cells));
    t.AddDetail(absl::StrCat("count ", CountChangeText(d.base.count, d.next.count, ""), ", size ",
                             SizeChangeText(d), ", GB/s ", GbpsText(d.base), " -> ",
                             GbpsText(d.next)));
    if (d.not_compared) t.AddDetail(MemoryNotComparedText(c));
  }
  t.Write(out);
  WriteMoreLine(c.memory.size(), shown, "", out);
}

std::vector<const TotalsDelta*> ShownApiRows(const analysis::Comparison& c, int top,
                                             TotalsDelta* rest) {
  const size_t first = ShownRows(c.api.size(), top);
  std::vector<const TotalsDelta*> shown;
  std::vector<TotalsDelta> others;
  for (size_t i = 0; i < c.api.size(); ++i) {
    if (i < first || c.api[i].synchronizing) {
      shown.push_back(&c.api[i]);
    } else {
      others.push_back(c.api[i]);
    }
  }
  *rest = analysis::SumOf(others, "other API calls");
  return shown;
}

void WriteApiText(const analysis::Comparison& c, const ReportOptions& options, std::ostream& out) {
  out << "\nCUDA API calls (by change of total time)\n";
  if (c.api.empty()) {
    out << "  (none)\n";
    return;
  }
  TextTable t({"Base Total", "New Total", "Change", "Change %", "Base Calls", "New Calls",
               "Calls %", "Name"});
  t.Fit(options.width, options.max_name_width);
  t.SetDroppable({"Calls %", "Base Calls", "New Calls"});
  TotalsDelta rest;
  const std::vector<const TotalsDelta*> shown = ShownApiRows(c, options.top, &rest);
  for (const TotalsDelta* d : shown) {
    std::vector<std::string> cells = TimeCells(*d);
    cells.push_back(absl::StrCat(d->base.count));
    cells.push_back(absl::StrCat(d->next.count));
    cells.push_back(ChangePercentText(d->count_change_percent(), d->base.count, d->next.count));
    cells.push_back(d->synchronizing ? absl::StrCat(d->name, " (sync)") : d->name);
    t.AddRow(std::move(cells));
  }
  t.Write(out);
  for (const TotalsDelta* d : shown) {
    if (!d->synchronizing) continue;
    out << Wrapped("(sync): a synchronizing call, which blocks the CPU until the GPU is done",
                   options.width, 2, 4);
    break;
  }
  if (shown.size() < c.api.size()) {
    out << Wrapped(absl::StrCat("... ", c.api.size() - shown.size(),
                                " more names: ", TotalsChangeText(rest, "calls", false)),
                   options.width, 2, 4);
  }
}

void WriteTotalsJson(json::Writer& w, const analysis::Comparison& c, int top) {
  json::Key(w, "gpu_busy");
  w.StartArray();
  for (const analysis::BusyDelta& b : c.busy) {
    w.StartObject();
    json::Key(w, "device_id"), w.Uint(b.device_id);
    json::Key(w, "device_name"), json::Str(w, b.device_name);
    JsonBusy(w, "base", b.base);
    JsonBusy(w, "new", b.next);
    json::Key(w, "change_ns"), w.Int64(b.change_ns());
    JsonPercent(w, "change_percent", b.change_percent());
    json::Key(w, "of_program"), w.Bool(b.of_program);
    json::Key(w, "change_points"), json::Num(w, b.change_points());
    w.EndObject();
  }
  w.EndArray();
  json::Key(w, "memory");
  w.StartArray();
  const size_t memory_shown = ShownRows(c.memory.size(), top);
  for (size_t i = 0; i < memory_shown; ++i) JsonDelta(w, c.memory[i], true);
  w.EndArray();
  json::Key(w, "copies");
  JsonDelta(w, c.copies, true);
  TotalsDelta rest;
  const std::vector<const TotalsDelta*> shown = ShownApiRows(c, top, &rest);
  json::Key(w, "api");
  w.StartArray();
  for (const TotalsDelta* d : shown) JsonDelta(w, *d, false);
  w.EndArray();
  json::Key(w, "api_rest");
  JsonDelta(w, rest, false);
  json::Key(w, "api_rest_names"), w.Uint64(c.api.size() - shown.size());
  json::Key(w, "sync_calls");
  JsonDelta(w, c.sync_calls, false);
}

}  // namespace cuscope::report
