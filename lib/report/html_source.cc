// The HTML report's source hotspots section (html_sections.h): per kernel function its
// hot lines (PC sampling, analysis/source_hotspots.h), each with its share of the
// function's samples, its top stall reasons in words and its source text, the hottest
// lines marked; as `cuscope report --source` prints them.
#include <string>

#include "absl/strings/str_cat.h"
#include "lib/analysis/source_hotspots.h"
#include "lib/model/demangle.h"
#include "lib/report/format.h"
#include "lib/report/html_cells.h"
#include "lib/report/html_escape.h"
#include "lib/report/html_sections.h"
#include "lib/report/source_text.h"

namespace cuscope::report {
namespace {

// A line at or above this share of its function's samples is marked hot.
constexpr double kHotLinePct = 10.0;

std::string StallsText(const std::vector<analysis::PcStallShare>& stalls) {
  std::string text;
  for (const analysis::PcStallShare& s : stalls) {
    absl::StrAppend(&text, text.empty() ? "" : ", ", FormatPercent(s.pct), "% ",
                    StallWords(s.kind));
  }
  return text;
}

void AppendFunction(const analysis::FunctionHotspots& f, bool open, std::string& out) {
  absl::StrAppend(&out, "<details", open ? " open" : "", "><summary><code>",
                  HtmlEscape(f.name.empty() ? model::Demangle(f.mangled) : f.name),
                  "</code>: ", f.samples, " samples (", FormatPercent(f.pct), "% of all); ",
                  f.has_lines ? "by source line" : "no line info (build with -lineinfo): by PC",
                  "</summary>\n<p class=\"note\">Stalls: ", HtmlEscape(StallsText(f.stalls)),
                  "</p>\n<table class=\"sortable source\"><thead><tr><th>Samples %</th>"
                  "<th>Line</th><th>Source</th><th>Why warps waited</th></tr></thead><tbody>\n");
  for (const analysis::HotLine& l : f.lines) {
    absl::StrAppend(&out, "<tr", l.pct >= kHotLinePct ? " class=\"hot\"" : "", ">",
                    HtmlNumCell(l.pct, FormatPercent(l.pct)), "<td><code>",
                    HtmlEscape(HotLineLabel(l)), "</code></td><td><code>", HtmlEscape(l.text),
                    "</code></td><td>", HtmlEscape(StallsText(l.stalls)), "</td></tr>\n");
  }
  if (f.line_count > f.lines.size()) {
    absl::StrAppend(&out, "<tr><td colspan=\"4\" class=\"note\">", f.line_count - f.lines.size(),
                    " more lines (cuscope report --source --top 0)</td></tr>\n");
  }
  out += "</tbody></table></details>\n";
}

}  // namespace

void AppendSourceHotspots(const ReportData& data, std::string& out) {
  const analysis::SourceHotspots& s = data.source;
  if (s.functions.empty()) return;
  absl::StrAppend(&out, "<section id=\"source\"><h2>Source hotspots (PC sampling)</h2>\n<p>",
                  s.samples, " samples in ", s.function_count,
                  " kernel functions; lines at or above ", FormatPercent(kHotLinePct),
                  "% of their function's samples are marked.</p>\n");
  for (size_t i = 0; i < s.functions.size(); ++i) AppendFunction(s.functions[i], i == 0, out);
  if (s.function_count > s.functions.size()) {
    absl::StrAppend(&out, "<p class=\"note\">", s.function_count - s.functions.size(),
                    " more functions (cuscope report --source --top 0).</p>\n");
  }
  out += "<p class=\"note\">docs/source.md says what each stall reason means.</p>\n</section>\n";
}

}  // namespace cuscope::report
