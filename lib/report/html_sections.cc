#include "lib/report/html_sections.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "lib/report/counter_outcome_text.h"
#include "lib/report/format.h"
#include "lib/report/html_cells.h"
#include "lib/report/html_escape.h"
#include "lib/report/number_format.h"
#include "lib/report/roofline_svg.h"
#include "lib/report/sizes_text.h"
#include "lib/report/text.h"
#include "lib/report/verdict_text.h"

namespace cuscope::report {
namespace {

std::string Esc(absl::string_view s) { return HtmlEscape(s); }

// A table cell sorted by `value` (0 when not finite) and showing `text`.
std::string NumCell(double value, absl::string_view text) {
  return HtmlNumCell(std::isfinite(value) ? value : 0.0, text);
}

std::string Dim(const model::Dim3& d) { return absl::StrCat(d.x, "x", d.y, "x", d.z); }

void AppendRow(absl::string_view key, absl::string_view value, std::string& out) {
  out += HtmlKeyValueRow(key, value);
}

void AppendMore(size_t total, size_t shown, absl::string_view what, std::string& out) {
  if (total <= shown) return;
  absl::StrAppend(&out, "<p class=\"more\">", total - shown, " more ", what, " not shown (the ",
                  shown,
                  " with the most time are); cuscope report --top 0 "
                  "lists them all.</p>\n");
}

std::string Where(const model::Finding& f) {
  std::string where;
  auto add = [&](absl::string_view part) {
    absl::StrAppend(&where, where.empty() ? "" : "; ", part);
  };
  if (!f.kernel.empty()) add(absl::StrCat("kernel ", f.kernel));
  if (!f.region.empty()) add(absl::StrCat("region ", f.region));
  if (f.stream_id != model::kNoId) add(absl::StrCat("GPU ", f.device_id, " stream ", f.stream_id));
  if (f.thread_id != model::kNoId) add(absl::StrCat("thread ", f.thread_id));
  if (f.end_ns > f.start_ns) add(absl::StrCat("for ", FormatDuration(f.end_ns - f.start_ns)));
  return where;
}

}  // namespace

void AppendRunHeader(const ReportData& data, std::string& out) {
  const model::Profile& p = ProfileOf(data);
  const analysis::Summary& s = data.summary;
  out += "<section id=\"run\"><h2>Run</h2>\n";
  if (std::string line = CounterOutcomeLine(data.counter_outcome); !line.empty()) {
    absl::StrAppend(&out, "<p class=\"outcome\">", Esc(line), "</p>\n");
  }
  out += "<table class=\"kv\">\n";
  AppendRow("command", p.run.command_line, out);
  AppendRow("host",
            absl::StrCat(p.run.hostname, ", pid ", p.run.pid,
                         p.run.rank >= 0 ? absl::StrCat(", rank ", p.run.rank) : ""),
            out);
  if (p.run.start_unix_ns > 0) {
    AppendRow("started",
              absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::FromUnixNanos(p.run.start_unix_ns),
                               absl::UTCTimeZone()),
              out);
  }
  AppendRow("wall time", FormatDuration(static_cast<double>(s.wall_ns)), out);
  if (s.own_ns > 0) {  // as the text report's line (own_time.h)
    const double pct = s.wall_ns > 0 ? 100.0 * static_cast<double>(s.own_ns) / s.wall_ns : 0.0;
    AppendRow("cuscope's own time",
              absl::StrCat(FormatDuration(static_cast<double>(s.own_ns)), " (", FormatPercent(pct),
                           "% of the run)"),
              out);
  }
  AppendRow("kernel time", KernelTimeText(s), out);
  AppendRow("exit", p.run.exit_reason.empty() ? "(not finished)" : p.run.exit_reason, out);
  AppendRow("cuscope", p.run.cuscope_version, out);
  AppendRow("records",
            absl::StrCat(s.kernel_count, " kernels, ", s.memcpy_count, " memcpys, ", s.memset_count,
                         " memsets, ", s.api_count, " API calls, ", s.sync_count, " syncs, ",
                         s.range_count, " ranges"),
            out);
  if (s.dropped_records > 0) AppendRow("dropped", absl::StrCat(s.dropped_records, " records"), out);
  for (const analysis::DeviceBusy& d : s.devices) {
    AppendRow(absl::StrCat("GPU ", d.device_id),
              absl::StrCat(d.device_name, ": busy ", FormatPercent(d.busy_percent), "% of wall (",
                           FormatDuration(static_cast<double>(d.busy_ns)), ", kernels ",
                           FormatDuration(static_cast<double>(d.kernel_ns)), ")"),
              out);
  }
  out += "</table></section>\n";
}

void AppendFindings(const ReportData& data, std::string& out) {
  absl::StrAppend(&out, "<section id=\"findings\"><h2>Findings (", data.findings.size(),
                  ")</h2>\n");
  if (data.findings.empty()) out += "<p>No finding: no rule fired on this profile.</p>\n";
  for (const model::Finding& f : data.findings) {
    const char* severity = model::SeverityName(f.severity);
    absl::StrAppend(&out, "<div class=\"finding ", severity,
                    "\"><div class=\"fhead\"><span "
                    "class=\"sev\">",
                    severity, "</span> <b>", Esc(f.rule),
                    "</b> <span class=\"gain\">"
                    "could save ",
                    Esc(FormatDuration(f.gain_ns)), " (", Esc(FormatPercent(f.gain_pct)), "% of ",
                    model::GainBasisName(f.basis), " time)</span></div>\n<p>", Esc(f.summary),
                    "</p>\n<p class=\"advice\">", Esc(f.advice), "</p>\n");
    const std::string where = Where(f);
    if (!where.empty()) absl::StrAppend(&out, "<p class=\"where\">", Esc(where), "</p>\n");
    if (!f.evidence.empty()) {
      out += "<p class=\"evidence\">";
      for (const auto& [name, value] : f.evidence) {
        absl::StrAppend(&out, "<span>", Esc(name), " = ", Esc(FormatRatio(value)), "</span> ");
      }
      out += "</p>\n";
    }
    out += "</div>\n";
  }
  out += "</section>\n";
}

void AppendKernelTable(const ReportData& data, std::string& out) {
  const auto& rows = data.summary.kernels;
  const size_t shown = std::min(rows.size(), kHtmlMaxRows);
  absl::StrAppend(&out, "<section id=\"kernels\"><h2>Kernels (", rows.size(), " names, ",
                  FormatDuration(static_cast<double>(data.summary.kernel_ns)), " in ",
                  data.summary.timed_launches, " timed launches)</h2>\n");
  out +=
      "<table class=\"sortable\" id=\"kernel-table\"><thead><tr><th>Kernel</th><th>Time %</th>"
      "<th>Total</th><th>Instances</th><th>Avg</th><th>Median</th><th>Min</th><th>Max</th>"
      "</tr></thead><tbody>\n";
  for (size_t i = 0; i < shown; ++i) {
    const analysis::KernelSummaryRow& r = rows[i];
    const analysis::DurationStats& st = r.stats;
    absl::StrAppend(&out, "<tr>", HtmlKernelCell(data.kernel_names, r.name),
                    NumCell(r.time_percent, FormatPercent(r.time_percent)),
                    NumCell(static_cast<double>(st.total_ns), FormatDuration(st.total_ns)),
                    NumCell(static_cast<double>(st.count), absl::StrCat(st.count)),
                    NumCell(st.avg_ns, FormatDuration(st.avg_ns)),
                    NumCell(st.median_ns, FormatDuration(st.median_ns)));
    absl::StrAppend(&out, NumCell(static_cast<double>(st.min_ns), FormatDuration(st.min_ns)),
                    NumCell(static_cast<double>(st.max_ns), FormatDuration(st.max_ns)), "</tr>\n");
  }
  out += "</tbody></table>\n";
  AppendMore(rows.size(), shown, "kernels", out);
  out += "</section>\n";
}

void AppendRegionTree(const ReportData& data, std::string& out) {
  std::vector<const analysis::RegionSummaryRow*> rows;
  for (const analysis::RegionSummaryRow& r : data.regions) rows.push_back(&r);
  // Ranked by time when cut, then in tree order: each path after its parent.
  const size_t shown = std::min(rows.size(), kHtmlMaxRows);
  rows.resize(shown);
  std::sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
    return std::tie(a->domain, a->path) < std::tie(b->domain, b->path);
  });
  absl::StrAppend(&out, "<section id=\"regions\"><h2>Regions (", data.regions.size(), ")</h2>\n");
  if (rows.empty()) out += "<p>No NVTX range or cuscope scope in this profile.</p>\n";
  if (!rows.empty()) {
    out +=
        "<table id=\"region-tree\"><thead><tr><th>Region</th><th>Instances</th><th>Wall total"
        "</th><th>Wall avg</th><th>Kernels</th><th>GPU time</th><th>Top kernel</th></tr>"
        "</thead><tbody>\n";
  }
  for (const analysis::RegionSummaryRow* r : rows) {
    const size_t depth = static_cast<size_t>(std::count(r->path.begin(), r->path.end(), '/'));
    const size_t slash = r->path.rfind('/');
    const std::string leaf = slash == std::string::npos ? r->path : r->path.substr(slash + 1);
    const std::string label = r->domain.empty() ? leaf : absl::StrCat("[", r->domain, "] ", leaf);
    absl::StrAppend(&out, "<tr data-depth=\"", depth, "\"><td class=\"name\" style=\"padding-left:",
                    0.3 + 1.2 * static_cast<double>(depth), "em\" title=\"", Esc(RegionLabel(*r)),
                    "\"><span class=\"tw\"></span>", Esc(label), "</td><td class=\"num\">",
                    r->stats.count, "</td><td class=\"num\">",
                    Esc(FormatDuration(r->stats.total_ns)), "</td><td class=\"num\">",
                    Esc(FormatDuration(r->stats.avg_ns)), "</td><td class=\"num\">",
                    r->kernel_count, "</td><td class=\"num\">");
    absl::StrAppend(&out, Esc(FormatDuration(r->gpu_time_ns)), "</td>",
                    r->top_kernels.empty()
                        ? "<td class=\"name\"></td>"
                        : HtmlKernelCell(data.kernel_names, r->top_kernels[0].name),
                    "</tr>\n");
  }
  if (!rows.empty()) out += "</tbody></table>\n";
  AppendMore(data.regions.size(), shown, "regions", out);
  out += "</section>\n";
}

namespace {

void AppendPanel(const analysis::KernelCounters& k, std::string& out) {
  absl::StrAppend(
      &out, "<details class=\"panel\"><summary><b>", Esc(k.name), "</b> ",
      k.region ? "(region)" : Esc(absl::StrCat("grid ", Dim(k.grid), " block ", Dim(k.block))),
      " &mdash; ", Esc(VerdictLabel(k.verdict)), ", ", Esc(FormatPercent(k.time_percent)),
      "% of kernel time</summary>\n");
  absl::StrAppend(&out, "<p>", Esc(CountersReason(k)), "</p>\n<table class=\"kv\">\n");
  AppendRow(
      "launches",
      absl::StrCat(k.launches, " (", k.measured_launches, " measured, ", k.StrategyNames(), ")"),
      out);
  AppendRow("measured", MeasurementText(k), out);
  if (!k.sizes.empty()) AppendRow("sizes", SizesLine(k).substr(sizeof("sizes: ") - 1), out);
  AppendRow("duration", FormatDuration(k.duration_ns), out);
  AppendRow("FLOP/s", FormatRate(k.total_flops_per_s, "FLOP/s"), out);
  AppendRow("DRAM", FormatRate(k.dram_bytes_per_s, "B/s"), out);
  AppendRow("AI (DRAM)", absl::StrCat(FormatRatio(k.ai_dram), " FLOP/B"), out);
  auto pct = [&](const char* what, const std::optional<double>& v) {
    if (v) AppendRow(what, FormatPercentOfPeak(*v), out);
  };
  pct("compute % of peak", k.pct_compute);
  pct("DRAM % of peak", k.pct_dram);
  pct("L2 % of peak", k.pct_l2);
  pct("L1 % of peak", k.pct_l1);
  if (k.theoretical.valid) {
    AppendRow("theoretical occupancy",
              absl::StrCat(FormatPercent(k.theoretical.percent),
                           "% (limit: ", k.theoretical.limiter, ")"),
              out);
  }
  if (k.achieved_occupancy) {
    AppendRow("achieved occupancy", FormatPercent(k.achieved_occupancy->percent) + "%", out);
  }
  for (size_t i = 0; i < k.stalls.size() && i < 3; ++i) {
    AppendRow(absl::StrCat("stall #", i + 1),
              absl::StrCat(k.stalls[i].reason, " ", FormatPercent(k.stalls[i].percent), "%"), out);
  }
  out += "</table>\n<details><summary>all ";
  absl::StrAppend(&out, k.values.size(), " metrics</summary><table class=\"kv metrics\">\n");
  for (const auto& [metric, value] : k.values) AppendRow(metric, FormatRatio(value), out);
  out += "</table></details></details>\n";
}

}  // namespace

void AppendCounters(const ReportData& data, std::string& out) {
  out += "<section id=\"roofline\"><h2>Roofline</h2>\n";
  absl::StatusOr<std::string> svg =
      data.counters.empty() ? absl::StatusOr<std::string>(absl::FailedPreconditionError(
                                  "the profile has no hardware counters"))
                            : RenderRooflineSvg(ProfileOf(data), data.ceilings, data.counters);
  if (svg.ok()) {
    // The SVG file's XML declaration is not allowed inside HTML.
    size_t at = svg->find("<svg");
    absl::StrAppend(&out, "<div class=\"svg\">", at == std::string::npos ? *svg : svg->substr(at),
                    "</div>\n");
  } else if (data.counter_outcome.asked) {
    // Counters were asked for: what came of them, not how to ask.
    absl::StrAppend(&out, "<p>No roofline: ", Esc(svg.status().message()), ". ",
                    Esc(CounterOutcomeLine(data.counter_outcome)), "</p>\n");
  } else {
    absl::StrAppend(&out, "<p>No roofline: ", Esc(svg.status().message()),
                    " (cuscope run --metrics=roofline measures them).</p>\n");
  }
  for (const std::string& note : data.counter_notes) {
    absl::StrAppend(&out, "<p class=\"note\">", Esc(note), "</p>\n");
  }
  out += "</section>\n<section id=\"counters\"><h2>Counters per kernel</h2>\n";
  if (data.coverage.signatures > 0) {
    absl::StrAppend(&out, "<p class=\"note\">", Esc(CoverageLine(data.coverage)), "</p>\n");
  }
  if (data.counters.empty()) out += "<p>No hardware counters in this profile.</p>\n";
  const size_t shown = std::min(data.counters.size(), kHtmlMaxRows);
  for (size_t i = 0; i < shown; ++i) AppendPanel(data.counters[i], out);
  AppendMore(data.counters.size(), shown, "signatures", out);
  out += "</section>\n";
}

}  // namespace cuscope::report
