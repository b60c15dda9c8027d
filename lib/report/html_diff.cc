#include "lib/report/html_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/model/demangle.h"
#include "lib/report/diff.h"
#include "lib/report/diff_basis.h"
#include "lib/report/diff_totals.h"
#include "lib/report/format.h"
#include "lib/report/html_cells.h"
#include "lib/report/html_escape.h"
#include "lib/report/html_sections.h"
#include "lib/report/output_file.h"

namespace cuscope::report {
namespace {

using analysis::TotalsDelta;

std::string Esc(absl::string_view s) { return HtmlEscape(s); }

// A cell sorted by `value` (an infinite change sorts beyond every finite one).
std::string NumCell(double value, absl::string_view text, const char* cls = "num") {
  const double v = std::isnan(value)   ? 0.0
                   : std::isinf(value) ? std::copysign(1e300, value)
                                       : value;
  return HtmlNumCell(v, text, cls);
}

std::string Duration(uint64_t ns) { return NumCell(double(ns), FormatDuration(double(ns))); }

std::string Count(uint64_t n) { return NumCell(double(n), absl::StrCat(n)); }

// The change of a time: red when it grew, green when it shrank.
std::string ChangeCell(int64_t change_ns) {
  return NumCell(double(change_ns), FormatSignedDuration(change_ns),
                 change_ns > 0   ? "num up"
                 : change_ns < 0 ? "num down"
                                 : "num");
}

// GbpsText's, sorted by the value.
std::string Gbps(const analysis::Totals& t) { return NumCell(t.gbps(), GbpsText(t)); }

std::string PercentCell(double percent, uint64_t base_count, uint64_t next_count) {
  return NumCell(percent, ChangePercentText(percent, base_count, next_count));
}

void AppendHead(const char* id, const std::vector<const char*>& headers, std::string& out) {
  absl::StrAppend(&out, "<table class=\"sortable\" id=\"", id, "\"><thead><tr>");
  for (const char* h : headers) absl::StrAppend(&out, "<th>", h, "</th>");
  out += "</tr></thead><tbody>\n";
}

void AppendMore(size_t total, size_t shown, absl::string_view what, std::string& out) {
  if (total <= shown) return;
  absl::StrAppend(&out, "<p class=\"more\">", total - shown, " more ", what, " not shown (the ",
                  shown,
                  " with the largest changes are); cuscope diff --top 0 lists them all.</p>\n");
}

void AppendKv(absl::string_view key, absl::string_view value, std::string& out) {
  out += HtmlKeyValueRow(key, value);
}

void AppendTotals(const analysis::Comparison& c, const std::string& base_label,
                  const std::string& next_label, std::string& out) {
  out += "<section id=\"totals\"><h2>Totals</h2>\n<table class=\"kv\">\n";
  AppendKv("base", base_label, out);
  AppendKv("new", next_label, out);
  AppendKv("taken",
           absl::StrCat("BASE ", TakenText(c.base_profiler), "; NEW ", TakenText(c.next_profiler)),
           out);
  if (std::string fx = EffectsText(c.base_profiler); !fx.empty())
    AppendKv("BASE profiler", fx, out);
  if (std::string fx = EffectsText(c.next_profiler); !fx.empty()) AppendKv("NEW profiler", fx, out);
  AppendKv("wall time", DurationChangeText(c.base_wall_ns, c.next_wall_ns), out);
  AppendKv("kernel time", KernelTimeChangeText(c), out);
  if (std::string comparable = ComparableKernelTimeText(c); !comparable.empty()) {
    AppendKv("comparable kernel time", comparable, out);
  }
  AppendKv("kernels",
           c.kernel_count_compared
               ? CountChangeText(c.base_kernel_count, c.next_kernel_count, "records")
               : absl::StrCat(c.base_kernel_count, " records in BASE, ", c.next_kernel_count,
                              " in NEW: ", KernelCountNotComparedText(c)),
           out);
  for (const analysis::BusyDelta& b : c.busy) {
    AppendKv(absl::StrCat("GPU ", b.device_id, " busy"),
             absl::StrFormat("%s%s: %s", b.device_name.empty() ? "" : b.device_name + ", ",
                             DurationChangeText(b.base.busy_ns, b.next.busy_ns), BusyShareText(b)),
             out);
  }
  AppendKv("copies",
           absl::StrCat(TotalsChangeText(c.copies, "copies", true),
                        c.copies.not_compared ? absl::StrCat("; ", MemoryNotComparedText(c)) : ""),
           out);
  AppendKv("synchronizing calls", TotalsChangeText(c.sync_calls, "calls", false), out);
  if (c.metrics.differ()) AppendKv("counters", MetricsDifferenceText(c.metrics), out);
  out += "</table></section>\n";
}

void AppendFindings(const std::vector<analysis::FindingChange>& rows, std::string& out) {
  absl::StrAppend(&out, "<section id=\"findings\"><h2>Findings (", rows.size(), ")</h2>\n");
  if (rows.empty()) out += "<p>No finding in either profile.</p>\n";
  for (const analysis::FindingChange& f : rows) {
    const char* kind = analysis::FindingChangeKindName(f.kind);
    const char* cls = f.kind == analysis::FindingChangeKind::kNotCompared ? "not-compared" : kind;
    const std::string gain =
        f.kind == analysis::FindingChangeKind::kStayed
            ? absl::StrCat("could save ", FormatDuration(f.base_gain_ns), " -> ",
                           FormatDuration(f.next_gain_ns))
            : absl::StrCat("could save ", FormatDuration(std::max(f.base_gain_ns, f.next_gain_ns)));
    std::string where;
    if (!f.kernel.empty()) where = absl::StrCat("kernel ", model::Demangle(f.kernel));
    if (f.grid_blocks > 0) absl::StrAppend(&where, ", ", FindingSignatureText(f));
    if (!f.region.empty()) absl::StrAppend(&where, where.empty() ? "" : "; ", "region ", f.region);
    absl::StrAppend(&out, "<div class=\"finding ", cls,
                    "\"><div class=\"fhead\"><span class=\"sev\">", kind, "</span> <b>",
                    Esc(f.rule), "</b> <span class=\"gain\">", Esc(gain + FindingSideText(f)),
                    "</span></div>\n<p>", Esc(f.summary), "</p>\n");
    if (!where.empty()) absl::StrAppend(&out, "<p class=\"where\">", Esc(where), "</p>\n");
    out += "</div>\n";
  }
  out += "</section>\n";
}

// Kernels or regions: both sides' totals and instances, the change. Kernel names are
// fitted by `names`, region names shown whole.
void AppendDeltas(const char* id, const char* title, const std::vector<analysis::Delta>& rows,
                  bool regions, const NameCut& names, std::string& out) {
  absl::StrAppend(&out, "<section id=\"", id, "\"><h2>", title, " (", rows.size(), ")</h2>\n");
  if (rows.empty()) {
    out += "<p>None in either profile.</p>\n</section>\n";
    return;
  }
  std::vector<const char*> headers = {regions ? "Region" : "Kernel",
                                      "Base total",
                                      "New total",
                                      "Change",
                                      "Change %",
                                      "Base N",
                                      "New N"};
  if (regions) headers.insert(headers.end(), {"Base GPU time", "New GPU time"});
  AppendHead(regions ? "diff-regions" : "diff-kernels", headers, out);
  const size_t shown = std::min(rows.size(), kHtmlMaxRows);
  for (size_t i = 0; i < shown; ++i) {
    const analysis::Delta& d = rows[i];
    const std::string name = regions ? absl::StrCat("<td class=\"name\" title=\"", Esc(d.name),
                                                    "\">", Esc(d.name), "</td>")
                                     : HtmlKernelCell(names, d.name);
    absl::StrAppend(&out, "<tr>", name, Duration(d.base.total_ns), Duration(d.next.total_ns),
                    ChangeCell(d.total_change_ns()),
                    PercentCell(d.total_change_percent(), d.base.count, d.next.count),
                    Count(d.base.count), Count(d.next.count));
    if (regions) {
      absl::StrAppend(&out, Duration(d.base.gpu_time_ns), Duration(d.next.gpu_time_ns));
    }
    out += "</tr>\n";
  }
  out += "</tbody></table>\n";
  AppendMore(rows.size(), shown, regions ? "regions" : "kernels", out);
  out += "</section>\n";
}

void AppendMemory(const analysis::Comparison& c, std::string& out) {
  const std::vector<TotalsDelta>& rows = c.memory;
  absl::StrAppend(&out, "<section id=\"memory\"><h2>Memory operations (", rows.size(), ")</h2>\n");
  if (rows.empty()) {
    out += "<p>No copy or memset in either profile.</p>\n</section>\n";
    return;
  }
  AppendHead("diff-memory",
             {"Operation", "Base total", "New total", "Change", "Change %", "Base N", "New N",
              "N %", "Base size", "New size", "Size %", "Base GB/s", "New GB/s"},
             out);
  for (const TotalsDelta& d : rows) {  // a few operation kinds: no cut
    absl::StrAppend(
        &out, "<tr><td class=\"name\">", Esc(d.name),
        d.not_compared ? absl::StrCat(" (", Esc(MemoryNotComparedText(c)), ")") : "", "</td>",
        Duration(d.base.total_ns), Duration(d.next.total_ns), ChangeCell(d.time_change_ns()),
        PercentCell(d.time_change_percent(), d.base.count, d.next.count), Count(d.base.count),
        Count(d.next.count), PercentCell(d.count_change_percent(), d.base.count, d.next.count));
    absl::StrAppend(&out, NumCell(double(d.base.bytes), FormatBytes(d.base.bytes)),
                    NumCell(double(d.next.bytes), FormatBytes(d.next.bytes)),
                    PercentCell(d.bytes_change_percent(), d.base.count, d.next.count), Gbps(d.base),
                    Gbps(d.next), "</tr>\n");
  }
  out += "</tbody></table>\n</section>\n";
}

void AppendApi(const analysis::Comparison& c, std::string& out) {
  const std::vector<TotalsDelta>& rows = c.api;
  absl::StrAppend(&out, "<section id=\"api\"><h2>CUDA API calls (", rows.size(), " names)</h2>\n");
  if (rows.empty()) {
    out += "<p>No CUDA API call in either profile.</p>\n</section>\n";
    return;
  }
  out +=
      "<p class=\"note\">Sync: a synchronizing call, which blocks the CPU until the GPU is "
      "done.</p>\n";
  AppendHead("diff-api",
             {"Call", "Sync", "Base total", "New total", "Change", "Change %", "Base calls",
              "New calls", "Calls %"},
             out);
  // The rows the text and JSON show: the first kHtmlMaxRows and every synchronizing
  // call after them.
  TotalsDelta rest;
  const std::vector<const TotalsDelta*> picked =
      ShownApiRows(c, static_cast<int>(kHtmlMaxRows), &rest);
  const size_t shown = picked.size();
  for (const TotalsDelta* row : picked) {
    const TotalsDelta& d = *row;
    absl::StrAppend(&out, "<tr><td class=\"name\">", Esc(d.name), "</td><td>",
                    d.synchronizing ? "sync" : "", "</td>", Duration(d.base.total_ns),
                    Duration(d.next.total_ns), ChangeCell(d.time_change_ns()),
                    PercentCell(d.time_change_percent(), d.base.count, d.next.count),
                    Count(d.base.count), Count(d.next.count));
    absl::StrAppend(&out, PercentCell(d.count_change_percent(), d.base.count, d.next.count),
                    "</tr>\n");
  }
  out += "</tbody></table>\n";
  AppendMore(rows.size(), shown, "API names", out);
  out += "</section>\n";
}

void AppendVerdicts(const std::vector<analysis::VerdictChange>& rows, const NameCut& names,
                    std::string& out) {
  absl::StrAppend(&out, "<section id=\"verdicts\"><h2>Verdicts that changed (", rows.size(),
                  ")</h2>\n");
  if (rows.empty()) {
    out += "<p>None (kernel signatures measured with counters in both profiles).</p>\n";
    out += "</section>\n";
    return;
  }
  AppendHead("diff-verdicts", {"Kernel", "Grid", "Block", "Base verdict", "New verdict"}, out);
  for (const analysis::VerdictChange& v : rows) {
    absl::StrAppend(&out, "<tr>", HtmlKernelCell(names, v.name), "<td>", v.grid.x, "x", v.grid.y,
                    "x", v.grid.z, "</td><td>", v.block.x, "x", v.block.y, "x", v.block.z,
                    "</td><td>", Esc(v.base_verdict), "</td><td>", Esc(v.next_verdict),
                    "</td></tr>\n");
  }
  out += "</tbody></table>\n</section>\n";
}

// Added to the report's style sheet: the colors of changes and finding changes.
constexpr char kDiffStyle[] =
    "td.up{color:#b71c1c}td.down{color:#1b5e20}"
    ".finding.appeared{border-color:#c62828}.finding.resolved{border-color:#2e7d32}"
    ".finding.stayed{border-color:#999}\n";

// After the report's script (which sorts the tables): marks the page as scripted, for
// the browser test.
constexpr char kDiffScript[] =
    "document.body.dataset.tables = String(document.querySelectorAll('table.sortable')."
    "length);\n";

}  // namespace

std::string RenderHtmlDiff(const analysis::Comparison& c, const std::string& base_label,
                           const std::string& next_label) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  absl::StrAppend(&out, "<title>cuscope diff: ", Esc(base_label), " -&gt; ", Esc(next_label),
                  "</title>\n<style>", HtmlStyle(), kDiffStyle, "</style>\n</head><body>\n");
  absl::StrAppend(&out, "<header><h1>cuscope diff</h1><p class=\"cmd\">", Esc(base_label),
                  " &rarr; ", Esc(next_label),
                  "</p><nav><a href=\"#totals\">Totals</a> <a href=\"#findings\">Findings</a> "
                  "<a href=\"#kernels\">Kernels</a> <a href=\"#regions\">Regions</a> <a "
                  "href=\"#memory\">Memory</a> <a href=\"#api\">API</a> <a "
                  "href=\"#verdicts\">Verdicts</a></nav></header>\n<main>\n");
  AppendTotals(c, base_label, next_label, out);
  AppendFindings(c.findings, out);
  const NameCut names = KernelNamesOf(c);
  AppendDeltas("kernels", "Kernels", c.kernels, false, names, out);
  AppendDeltas("regions", "Regions", c.regions, true, names, out);
  AppendMemory(c, out);
  AppendApi(c, out);
  AppendVerdicts(c.verdicts, names, out);
  absl::StrAppend(&out, "</main>\n<script>", HtmlScript(), kDiffScript,
                  "</script>\n</body></html>\n");
  return out;
}

absl::Status WriteHtmlDiff(const analysis::Comparison& c, const std::string& base_label,
                           const std::string& next_label, const std::string& path) {
  const std::string html = RenderHtmlDiff(c, base_label, next_label);
  return WriteOutputFile(path, "HTML diff", [&](std::FILE* f) {
    std::fwrite(html.data(), 1, html.size(), f);
    return absl::OkStatus();
  });
}

}  // namespace cuscope::report
