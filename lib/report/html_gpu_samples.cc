// The HTML report's GPU metrics section (html_sections.h): the sampled rates of each
// device and of each kernel (analysis/gpu_samples.h), as the text report's section.
#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "lib/report/format.h"
#include "lib/report/html_cells.h"
#include "lib/report/html_escape.h"
#include "lib/report/html_sections.h"
#include "lib/report/number_format.h"
#include "lib/report/verdict_text.h"

namespace cuscope::report {
namespace {

// A sortable cell of an optional rate: "-" (sorted first) when unknown.
std::string OptCell(const std::optional<double>& v, const std::string& text) {
  return HtmlNumCell(v ? *v : -1, v ? text : "-");
}
std::string PctCell(const std::optional<double>& p) { return OptCell(p, FormatPercentOfPeak(p)); }
std::string RateCell(const std::optional<double>& v, const char* unit) {
  return OptCell(v, v ? FormatRate(*v, unit) : "");
}

void AppendRatesCells(const analysis::SampledRates& r, std::string& out) {
  absl::StrAppend(&out, PctCell(r.sm_active_pct), PctCell(r.issue_pct), PctCell(r.tensor_pct),
                  PctCell(r.dram_pct), RateCell(r.dram_bytes_per_s, "B/s"),
                  RateCell(r.l2_bytes_per_s, "B/s"));
}

constexpr char kRateHeads[] =
    "<th>SM active</th><th>Issue</th><th>Tensor</th><th>DRAM %</th><th>DRAM B/s</th>"
    "<th>L2 B/s</th>";

}  // namespace

void AppendGpuSamples(const ReportData& data, std::string& out) {
  const analysis::GpuSampleAnalysis& a = data.gpu_samples;
  if (a.empty()) {
    if (data.gpu_sample_notes.empty()) return;
    out += "<section id=\"gpu-metrics\"><h2>GPU metrics</h2>\n<p>No samples in this profile.</p>\n";
    for (const std::string& n : data.gpu_sample_notes) {
      absl::StrAppend(&out, "<p class=\"note\">", HtmlEscape(n), "</p>\n");
    }
    out += "</section>\n";
    return;
  }
  absl::StrAppend(&out, "<section id=\"gpu-metrics\"><h2>GPU metrics (sampled every ",
                  HtmlEscape(FormatNsShort(double(a.devices.front().interval_ns))),
                  " of GPU time)</h2>\n<table><thead><tr><th>GPU</th><th>Samples</th>", kRateHeads,
                  "</tr></thead><tbody>\n");
  for (const analysis::SampledDevice& d : a.devices) {
    absl::StrAppend(&out, "<tr><td>", d.device_id, " (all)</td>",
                    HtmlNumCell(double(d.all.samples), absl::StrCat(d.all.samples)));
    AppendRatesCells(d.all, out);
    absl::StrAppend(&out, "</tr>\n<tr><td>", d.device_id, " (in kernels)</td>",
                    HtmlNumCell(double(d.in_kernels.samples), absl::StrCat(d.in_kernels.samples)));
    AppendRatesCells(d.in_kernels, out);
    out += "</tr>\n";
  }
  absl::StrAppend(&out,
                  "</tbody></table>\n<table class=\"sortable\" id=\"gpu-metrics-table\"><thead>"
                  "<tr><th>Kernel</th><th>Time</th><th>Sampled</th>",
                  kRateHeads, "<th>Verdict</th></tr></thead><tbody>\n");
  const size_t shown = std::min(a.kernels.size(), kHtmlMaxRows);
  for (size_t i = 0; i < shown; ++i) {
    const analysis::SampledKernel& k = a.kernels[i];
    absl::StrAppend(
        &out, "<tr>", HtmlKernelCell(data.kernel_names, k.name),
        HtmlNumCell(double(k.kernel_ns), FormatDuration(double(k.kernel_ns))),
        HtmlNumCell(k.coverage_pct(), k.rates.samples > 0 ? FormatPercent(k.coverage_pct()) : "-"));
    AppendRatesCells(k.rates, out);
    absl::StrAppend(
        &out, "<td title=\"", HtmlEscape(k.verdict ? VerdictReason(*k.verdict) : std::string()),
        "\">", HtmlEscape(k.verdict ? VerdictLabel(*k.verdict) : std::string("-")), "</td></tr>\n");
  }
  out += "</tbody></table>\n";
  if (a.kernels.size() > shown) {
    absl::StrAppend(&out, "<p class=\"note\">", a.kernels.size() - shown,
                    " more kernels (cuscope report --format json lists them all).</p>\n");
  }
  for (const std::string& n : data.gpu_sample_notes) {
    absl::StrAppend(&out, "<p class=\"note\">", HtmlEscape(n), "</p>\n");
  }
  out +=
      "<p class=\"note\">Sampled: the share of the kernel's time covered by samples that lie "
      "wholly inside one of its launches with no other kernel running. docs/gpu-metrics.md "
      "says how the rates are made.</p>\n</section>\n";
}

}  // namespace cuscope::report
