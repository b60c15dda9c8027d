#include "lib/report/roofline_svg.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/model/demangle.h"
#include "lib/report/format.h"
#include "lib/report/number_format.h"
#include "lib/report/output_file.h"
#include "lib/report/report_data.h"
#include "lib/report/svg_primitives.h"
#include "lib/report/verdict_text.h"

namespace cuscope::report {

using model::Demangle;
namespace {

using analysis::Bound;
using analysis::Ceilings;
using analysis::KernelCounters;
using svg::Escape;
using svg::Line;
using svg::Text;

// Layout of one device's chart (pixels).
constexpr double kWidth = 1000;
constexpr double kPlotLeft = 110, kPlotTop = 60, kPlotWidth = 540, kPlotHeight = 440;
constexpr double kLegendLeft = 680;
constexpr double kLineHeight = 17;
constexpr double kMinChartHeight = 580;
constexpr size_t kLabelChars = 36, kLegendChars = 46;

const char* VerdictColor(Bound b) {
  switch (b) {
    case Bound::kCompute:
      return "#d62728";
    case Bound::kDram:
      return "#ff7f0e";
    case Bound::kL2:
      return "#8c564b";
    case Bound::kL1:
      return "#e377c2";
    case Bound::kLatency:
      return "#7f7f7f";
    case Bound::kMemory:
      return "#ff7f0e";
    case Bound::kUnknown:
      break;
  }
  return "#17becf";
}

struct Roof {
  std::string label;
  double value;
  const char* color;
};

// "1 GFLOP/s", "10 TFLOP/s" for a power of ten.
std::string DecadeLabel(int exponent, const char* unit) {
  static const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  if (exponent >= 0 && exponent < 21) {
    const int p = exponent / 3;
    const int mantissa = exponent % 3 == 0 ? 1 : exponent % 3 == 1 ? 10 : 100;
    return absl::StrCat(mantissa, " ", kPrefixes[p], unit);
  }
  return absl::StrCat("1e", exponent, " ", unit);
}
std::string IntensityLabel(int exponent) {
  if (exponent >= -2 && exponent <= 4) {
    return exponent >= 0 ? absl::StrCat(static_cast<int64_t>(std::pow(10.0, exponent)))
                         : absl::StrFormat("%.*f", -exponent, std::pow(10.0, exponent));
  }
  return absl::StrCat("1e", exponent);
}

bool Plottable(double v) { return std::isfinite(v) && v > 0; }

struct Scale {
  int x_lo, x_hi, y_lo, y_hi;  // decades
  double X(double v) const {
    return kPlotLeft + (std::log10(v) - x_lo) / (x_hi - x_lo) * kPlotWidth;
  }
  double Y(double v) const {
    return kPlotTop + kPlotHeight - (std::log10(v) - y_lo) / (y_hi - y_lo) * kPlotHeight;
  }
};

// The roofs of one device: the compute ceilings (horizontal) and the memory ones (slanted).
struct Roofs {
  std::vector<Roof> compute, memory;
  double top_peak = 0;  // the highest compute roof
  double max_bw = 0;    // the fastest memory level
  bool empty() const { return compute.empty() && memory.empty(); }
};

Roofs DeviceRoofs(const Ceilings& c) {
  Roofs roofs;
  std::vector<Roof>& compute = roofs.compute;
  std::vector<Roof>& memory = roofs.memory;
  // One roof per distinct peak (FP16 and BF16 tensor share theirs), in precision order.
  static const char* const kColors[] = {"#1f77b4", "#2ca02c", "#9467bd", "#d62728", "#d62728",
                                        "#bcbd22", "#17becf", "#7f7f7f", "#393b79"};
  for (analysis::Precision p :
       {analysis::Precision::kFp64, analysis::Precision::kFp32, analysis::Precision::kFp16,
        analysis::Precision::kTensorFp16, analysis::Precision::kTensorBf16,
        analysis::Precision::kTensorTf32, analysis::Precision::kTensorFp8,
        analysis::Precision::kTensorInt8, analysis::Precision::kTensorFp64}) {
    const double peak = analysis::PeakFlops(c, p);
    if (!(peak > 0)) continue;
    if (!compute.empty() && compute.back().value == peak) {
      compute.back().label = absl::StrCat(compute.back().label, "/", analysis::PrecisionName(p));
      continue;
    }
    compute.push_back({analysis::PrecisionName(p), peak, kColors[static_cast<size_t>(p)]});
  }
  if (c.peak_dram_bytes_per_s > 0) memory.push_back({"DRAM", c.peak_dram_bytes_per_s, "#ff7f0e"});
  if (c.peak_l2_bytes_per_s > 0) memory.push_back({"L2", c.peak_l2_bytes_per_s, "#8c564b"});
  if (c.peak_l1_bytes_per_s > 0) memory.push_back({"L1", c.peak_l1_bytes_per_s, "#e377c2"});
  for (const Roof& r : compute) roofs.top_peak = std::max(roofs.top_peak, r.value);
  for (const Roof& r : memory) roofs.max_bw = std::max(roofs.max_bw, r.value);
  return roofs;
}

// Whether each kernel gets a point: it needs both FLOP/s and a DRAM intensity.
std::vector<bool> PlottedKernels(const std::vector<const KernelCounters*>& kernels) {
  std::vector<bool> plotted(kernels.size(), false);
  for (size_t i = 0; i < kernels.size(); ++i) {
    plotted[i] = Plottable(kernels[i]->total_flops_per_s) && Plottable(kernels[i]->ai_dram);
  }
  return plotted;
}

// A range of values on one axis, widened to the plottable values it is shown.
struct Range {
  double lo, hi;
  void Widen(double v) {
    if (Plottable(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
};

// Axis ranges: 1e-2 .. 1e3 FLOP/B and 1e9 .. 1e15 FLOP/s, widened to the roofs' ridge
// points and the plotted kernels, then rounded out to whole decades.
Scale ChartScale(const Roofs& roofs, const std::vector<const KernelCounters*>& kernels,
                 const std::vector<bool>& plotted) {
  Range x{1e-2, 1e3}, y{1e9, 1e15};
  for (const Roof& r : roofs.compute) {
    y.Widen(r.value);
    for (const Roof& m : roofs.memory) x.Widen(r.value / m.value);
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (!plotted[i]) continue;
    const KernelCounters& k = *kernels[i];
    y.Widen(k.total_flops_per_s);
    x.Widen(k.ai_dram);
    x.Widen(k.ai_l2);
    x.Widen(k.ai_l1);
  }
  Scale s;
  s.x_lo = std::max(-9, static_cast<int>(std::floor(std::log10(x.lo))));
  s.x_hi = std::min(12, static_cast<int>(std::ceil(std::log10(x.hi))));
  s.y_lo = std::max(0, static_cast<int>(std::floor(std::log10(y.lo))));
  s.y_hi = std::min(21, static_cast<int>(std::ceil(std::log10(y.hi))));
  if (s.x_hi <= s.x_lo) s.x_hi = s.x_lo + 1;
  if (s.y_hi <= s.y_lo) s.y_hi = s.y_lo + 1;
  return s;
}

// "GPU 0: NVIDIA H200 (sm_90, 132 SMs)", with what the profile knows of the device.
std::string DeviceName(const model::Profile& p, int device_id) {
  std::string device = absl::StrCat("GPU ", device_id);
  if (const model::DeviceInfo* found = p.FindDevice(device_id)) {
    const model::DeviceInfo& d = *found;
    if (!d.name.empty()) absl::StrAppend(&device, ": ", d.name);
    if (d.compute_major > 0) absl::StrAppend(&device, " (sm_", d.compute_major, d.compute_minor);
    if (d.compute_major > 0 && d.sm_count > 0) absl::StrAppend(&device, ", ", d.sm_count, " SMs");
    if (d.compute_major > 0) absl::StrAppend(&device, ")");
  }
  return device;
}

// The chart's title, and under it the SM clock the ceilings were computed with.
void AppendTitle(std::string& out, const model::Profile& p, const Ceilings& c) {
  Text(out, kPlotLeft, 30,
       Escape(absl::StrCat("Roofline \xE2\x80\x94 ", DeviceName(p, c.device_id))),
       " class=\"title\"");
  if (c.sm_clock_hz > 0) {
    Text(
        out, kPlotLeft, 48,
        Escape(absl::StrFormat("ceilings from measured per-cycle peaks x clocks; SM clock %.3f GHz",
                               c.sm_clock_hz / 1e9)),
        " class=\"small\"");
  }
}

// One grid line and tick label per decade, the plot's frame and the axis titles.
void AppendAxes(std::string& out, const Scale& s) {
  out += "<g class=\"grid\">\n";
  for (int e = s.x_lo; e <= s.x_hi; ++e) {
    const double x = s.X(std::pow(10.0, e));
    Line(out, x, kPlotTop, x, kPlotTop + kPlotHeight, "#e0e0e0", 1);
    Text(out, x, kPlotTop + kPlotHeight + 16, Escape(IntensityLabel(e)),
         " text-anchor=\"middle\" class=\"tick\"");
  }
  for (int e = s.y_lo; e <= s.y_hi; ++e) {
    const double y = s.Y(std::pow(10.0, e));
    Line(out, kPlotLeft, y, kPlotLeft + kPlotWidth, y, "#e0e0e0", 1);
    Text(out, kPlotLeft - 6, y + 4, Escape(DecadeLabel(e, "FLOP/s")),
         " text-anchor=\"end\" class=\"tick\"");
  }
  out += "</g>\n";
  absl::StrAppendFormat(&out,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                        "stroke=\"#333\" stroke-width=\"1\"/>\n",
                        kPlotLeft, kPlotTop, kPlotWidth, kPlotHeight);
  Text(out, kPlotLeft + kPlotWidth / 2, kPlotTop + kPlotHeight + 40,
       "Arithmetic intensity (FLOP/byte)", " text-anchor=\"middle\" class=\"axis\"");
  absl::StrAppendFormat(&out,
                        "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\" "
                        "text-anchor=\"middle\" class=\"axis\">Performance (FLOP/s)</text>\n",
                        18.0, kPlotTop + kPlotHeight / 2, 18.0, kPlotTop + kPlotHeight / 2);
}

// The memory roofs, y = bw * x from the plot's edge up to the highest compute roof,
// each labelled along its slope.
void AppendMemoryRoofs(std::string& out, const Roofs& roofs, const Scale& s) {
  const double xl = std::pow(10.0, s.x_lo), xh = std::pow(10.0, s.x_hi);
  const double yl = std::pow(10.0, s.y_lo), yh = std::pow(10.0, s.y_hi);
  const double slope_deg =
      -std::atan2(kPlotHeight / (s.y_hi - s.y_lo), kPlotWidth / (s.x_hi - s.x_lo)) * 180 / M_PI;
  for (const Roof& m : roofs.memory) {
    double x0 = std::max(xl, yl / m.value);
    double x1 = std::min(xh, (roofs.top_peak > 0 ? roofs.top_peak : yh) / m.value);
    x1 = std::min(x1, yh / m.value);
    if (!(x1 > x0)) continue;
    Line(out, s.X(x0), s.Y(m.value * x0), s.X(x1), s.Y(m.value * x1), m.color, 2);
    const double lx = std::pow(10.0, std::log10(x0) + 0.15 * (std::log10(x1) - std::log10(x0)));
    const double px = s.X(lx), py = s.Y(m.value * lx) - 5;
    absl::StrAppendFormat(&out,
                          "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(%.1f %.1f %.1f)\" "
                          "fill=\"%s\" class=\"roof\">%s</text>\n",
                          px, py, slope_deg, px, py, m.color,
                          Escape(absl::StrCat(m.label, " ", FormatRate(m.value, "B/s"))));
  }
}

// The compute roofs, horizontal from the fastest memory roof to the plot's right edge.
void AppendComputeRoofs(std::string& out, const Roofs& roofs, const Scale& s) {
  const double xl = std::pow(10.0, s.x_lo), xh = std::pow(10.0, s.x_hi);
  const double yl = std::pow(10.0, s.y_lo), yh = std::pow(10.0, s.y_hi);
  for (const Roof& r : roofs.compute) {
    if (r.value < yl || r.value > yh) continue;
    const double x0 = std::max(xl, roofs.max_bw > 0 ? r.value / roofs.max_bw : xl);
    if (!(xh > x0)) continue;
    const double y = s.Y(r.value);
    Line(out, s.X(x0), y, s.X(xh), y, r.color, 2);
    // The label above the roof, or below it when the roof is at the top of the plot.
    Text(out, s.X(xh) - 4, y - kPlotTop < 16 ? y + 14 : y - 5,
         Escape(absl::StrCat(r.label, " ", FormatRate(r.value, "FLOP/s"))),
         absl::StrCat(" text-anchor=\"end\" fill=\"", r.color, "\" class=\"roof\"").c_str());
  }
}

// All roofs, clipped to the plot, or a note that there are none.
void AppendRoofs(std::string& out, const Roofs& roofs, const Scale& s) {
  out += "<g class=\"roofs\">\n";
  AppendMemoryRoofs(out, roofs, s);
  AppendComputeRoofs(out, roofs, s);
  if (roofs.empty()) {
    Text(out, kPlotLeft + 10, kPlotTop + 20,
         "ceilings unknown: no peak or clock metrics were measured", " class=\"small\"");
  }
  out += "</g>\n";
}

// One kernel (number `number` in the legend): the DRAM point (circle), and the L2 (square)
// and L1 (triangle) points at the same FLOP/s, lighter, joined by a dashed line.
void AppendKernelPoint(std::string& out, const KernelCounters& k, size_t number, const Scale& s,
                       const NameCut& names) {
  const char* color = VerdictColor(k.verdict.bound);
  const double y = s.Y(k.total_flops_per_s);
  const double x = s.X(k.ai_dram);
  double x_min_level = x, x_max_level = x;
  for (double ai : {k.ai_l2, k.ai_l1}) {
    if (!Plottable(ai)) continue;
    x_min_level = std::min(x_min_level, s.X(ai));
    x_max_level = std::max(x_max_level, s.X(ai));
  }
  if (x_max_level > x_min_level) {
    Line(out, x_min_level, y, x_max_level, y, color, 1,
         " stroke-dasharray=\"3,3\" opacity=\"0.5\"");
  }
  if (Plottable(k.ai_l2)) {
    absl::StrAppendFormat(
        &out,
        "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"%s\" "
        "fill-opacity=\"0.35\" stroke=\"%s\"><title>L2: %s FLOP/B</title></rect>\n",
        s.X(k.ai_l2) - 4, y - 4, color, color, FormatRatio(k.ai_l2));
  }
  if (Plottable(k.ai_l1)) {
    const double lx = s.X(k.ai_l1);
    absl::StrAppendFormat(
        &out,
        "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\" "
        "fill-opacity=\"0.35\" stroke=\"%s\"><title>L1: %s FLOP/B</title></polygon>\n",
        lx, y - 5, lx - 5, y + 4, lx + 5, y + 4, color, color, FormatRatio(k.ai_l1));
  }
  absl::StrAppendFormat(
      &out,
      "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" "
      "stroke=\"#000\"><title>%s</title></circle>\n",
      x, y, color,
      Escape(absl::StrCat(Demangle(k.name), "\n", FormatRate(k.total_flops_per_s, "FLOP/s"),
                          ", AI ", FormatRatio(k.ai_dram), " FLOP/B (DRAM)\n", CountersReason(k))));
  // The label right of the point, or left of it near the plot's right edge.
  const bool left = x > kPlotLeft + kPlotWidth - 160;
  Text(out, left ? x - 8 : x + 8, y - 6,
       Escape(absl::StrCat(number, " ", names.Fit(Demangle(k.name), kLabelChars))),
       left ? " text-anchor=\"end\" class=\"label\"" : " class=\"label\"");
}

void AppendKernels(std::string& out, const std::vector<const KernelCounters*>& kernels,
                   const std::vector<bool>& plotted, const Scale& s, const NameCut& names) {
  out += "<g class=\"kernels\">\n";
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (plotted[i]) AppendKernelPoint(out, *kernels[i], i + 1, s, names);
  }
  out += "</g>\n";
}

// The legend's roofs, from baseline `ly`; returns the next line's baseline.
double AppendRoofLegend(std::string& out, const Roofs& roofs, double ly) {
  Text(out, kLegendLeft, ly, "Roofs", " class=\"heading\"");
  ly += kLineHeight;
  for (const std::vector<Roof>* group : {&roofs.compute, &roofs.memory}) {
    for (const Roof& r : *group) {
      Line(out, kLegendLeft, ly - 4, kLegendLeft + 24, ly - 4, r.color, 2);
      const char* unit = group == &roofs.compute ? "FLOP/s" : "B/s";
      Text(out, kLegendLeft + 30, ly,
           Escape(absl::StrCat(r.label, " ", FormatRate(r.value, unit))));
      ly += kLineHeight;
    }
  }
  if (roofs.empty()) {
    Text(out, kLegendLeft, ly, "(none)");
    ly += kLineHeight;
  }
  return ly;
}

// The legend's kernels (the markers, then each kernel with its verdict), from baseline
// `ly`; returns the next line's baseline.
double AppendKernelLegend(std::string& out, const std::vector<const KernelCounters*>& kernels,
                          const std::vector<bool>& plotted, const NameCut& names, double ly) {
  Text(out, kLegendLeft, ly, "Kernels", " class=\"heading\"");
  ly += kLineHeight;
  Text(out, kLegendLeft, ly, "circle: FLOP/s at the DRAM intensity;", " class=\"small\"");
  ly += kLineHeight;
  Text(out, kLegendLeft, ly, "square: at the L2 one; triangle: at L1", " class=\"small\"");
  ly += kLineHeight;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelCounters& k = *kernels[i];
    absl::StrAppendFormat(&out,
                          "<rect class=\"swatch\" x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" "
                          "fill=\"%s\" fill-opacity=\"%s\"/>\n",
                          kLegendLeft + 1, ly - 8, VerdictColor(k.verdict.bound),
                          plotted[i] ? "1" : "0.2");
    Text(out, kLegendLeft + 14, ly,
         Escape(absl::StrCat(i + 1, ". ", names.Fit(Demangle(k.name), kLegendChars))));
    ly += kLineHeight;
    std::string detail = VerdictLabel(k.verdict);
    if (plotted[i]) {
      absl::StrAppend(&detail, ", ", FormatRate(k.total_flops_per_s, "FLOP/s"), ", AI ",
                      FormatRatio(k.ai_dram));
    } else {
      absl::StrAppend(&detail, !Plottable(k.total_flops_per_s) ? ", not plotted: no FLOPs"
                                                               : ", not plotted: no DRAM bytes");
    }
    Text(out, kLegendLeft + 26, ly, Escape(detail), " class=\"small\"");
    ly += kLineHeight;
  }
  return ly;
}

// One device's chart, `height` set to what it used.
std::string DeviceChart(const model::Profile& p, const Ceilings& c,
                        const std::vector<const KernelCounters*>& kernels, const NameCut& names,
                        double* height) {
  const Roofs roofs = DeviceRoofs(c);
  const std::vector<bool> plotted = PlottedKernels(kernels);
  const Scale s = ChartScale(roofs, kernels, plotted);
  std::string out;
  AppendTitle(out, p, c);
  AppendAxes(out, s);
  AppendRoofs(out, roofs, s);
  AppendKernels(out, kernels, plotted, s, names);
  double ly = AppendRoofLegend(out, roofs, kPlotTop + 4);
  ly = AppendKernelLegend(out, kernels, plotted, names, ly + 6);
  *height = std::max(kMinChartHeight, ly + 20);
  return out;
}

}  // namespace

absl::StatusOr<std::string> RenderRooflineSvg(const model::Profile& profile) {
  const std::vector<Ceilings> ceilings = analysis::ComputeAllCeilings(profile);
  return RenderRooflineSvg(profile, ceilings,
                           analysis::AnalyzeCounters(profile, ceilings, nullptr));
}

absl::StatusOr<std::string> RenderRooflineSvg(const model::Profile& profile,
                                              const std::vector<Ceilings>& ceilings,
                                              const std::vector<KernelCounters>& counters) {
  if (profile.counters.empty()) {
    return absl::FailedPreconditionError(
        "no hardware counters in the profile: nothing to put on a roofline chart");
  }
  const NameCut names = KernelNameCut(profile);
  std::string charts;
  double total_height = 0;
  for (const Ceilings& c : ceilings) {
    std::vector<const KernelCounters*> kernels;
    for (const KernelCounters& k : counters) {
      if (k.device_id == c.device_id) kernels.push_back(&k);
    }
    if (kernels.empty()) continue;
    double height = 0;
    std::string chart = DeviceChart(profile, c, kernels, names, &height);
    absl::StrAppendFormat(&charts, "<g transform=\"translate(0 %.1f)\">\n", total_height);
    charts += chart;
    charts += "</g>\n";
    total_height += height;
  }
  if (total_height == 0) total_height = kMinChartHeight;
  std::string out = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
      kWidth, total_height, kWidth, total_height);
  out +=
      "<style>.title{font-size:16px;font-weight:bold}.heading{font-weight:bold}"
      ".small{font-size:11px;fill:#555}.tick{font-size:11px;fill:#333}.axis{font-size:13px}"
      ".roof{font-size:11px}.label{font-size:11px}</style>\n";
  absl::StrAppendFormat(&out,
                        "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n",
                        kWidth, total_height);
  out += charts;
  out += "</svg>\n";
  return out;
}

absl::Status WriteRooflineSvg(const model::Profile& profile, const std::string& path) {
  const std::vector<Ceilings> ceilings = analysis::ComputeAllCeilings(profile);
  return WriteRooflineSvg(profile, ceilings, analysis::AnalyzeCounters(profile, ceilings, nullptr),
                          path);
}

absl::Status WriteRooflineSvg(const model::Profile& profile,
                              const std::vector<analysis::Ceilings>& ceilings,
                              const std::vector<analysis::KernelCounters>& counters,
                              const std::string& path) {
  absl::StatusOr<std::string> svg = RenderRooflineSvg(profile, ceilings, counters);
  if (!svg.ok()) return svg.status();
  return WriteOutputFile(path, "roofline SVG", [&](std::FILE* out) {
    if (std::fwrite(svg->data(), 1, svg->size(), out) != svg->size()) {
      return absl::ErrnoToStatus(errno, "cannot write the roofline SVG");
    }
    return absl::OkStatus();
  });
}

}  // namespace cuscope::report
