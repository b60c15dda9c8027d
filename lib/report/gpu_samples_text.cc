#include "lib/report/gpu_samples_text.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/model/demangle.h"
#include "lib/report/format.h"
#include "lib/report/number_format.h"
#include "lib/report/verdict_text.h"

namespace cuscope::report {
namespace {

using analysis::SampledRates;
using json::Key;
using json::Num;
using json::Str;

std::string Rate(const std::optional<double>& v, const char* unit) {
  return v ? FormatRate(*v, unit) : "-";
}

// "SM active 92%, issue 41%, tensor 80%, DRAM 12% (410.2 GB/s), L2 1.2 TB/s, SM clock 1.98 GHz"
std::string RatesLine(const SampledRates& r) {
  std::vector<std::string> parts;
  if (r.sm_active_pct)
    parts.push_back(absl::StrCat("SM active ", FormatPercentOfPeak(r.sm_active_pct)));
  if (r.issue_pct) parts.push_back(absl::StrCat("issue ", FormatPercentOfPeak(r.issue_pct)));
  if (r.tensor_pct)
    parts.push_back(absl::StrCat("tensor pipe ", FormatPercentOfPeak(r.tensor_pct)));
  if (r.dram_pct || r.dram_bytes_per_s) {
    std::string dram = absl::StrCat("DRAM ", FormatPercentOfPeak(r.dram_pct));
    if (r.dram_bytes_per_s)
      absl::StrAppend(&dram, " (", FormatRate(*r.dram_bytes_per_s, "B/s"), ")");
    parts.push_back(dram);
  }
  if (r.l2_bytes_per_s) parts.push_back(absl::StrCat("L2 ", FormatRate(*r.l2_bytes_per_s, "B/s")));
  if (r.sm_clock_hz) parts.push_back(absl::StrCat("SM clock ", FormatRate(*r.sm_clock_hz, "Hz")));
  return parts.empty() ? "no metric evaluated" : absl::StrJoin(parts, ", ");
}

void OptionalNum(json::Writer& w, const char* key, const std::optional<double>& v) {
  Key(w, key);
  if (v) {
    Num(w, *v);
  } else {
    w.Null();
  }
}

void RatesJson(json::Writer& w, const SampledRates& r) {
  Key(w, "samples"), w.Uint64(r.samples);
  Key(w, "sampled_ns"), w.Uint64(r.sampled_ns);
  OptionalNum(w, "sm_active_pct", r.sm_active_pct);
  OptionalNum(w, "issue_pct", r.issue_pct);
  OptionalNum(w, "tensor_pct", r.tensor_pct);
  OptionalNum(w, "dram_pct", r.dram_pct);
  OptionalNum(w, "dram_bytes_per_s", r.dram_bytes_per_s);
  OptionalNum(w, "l2_bytes_per_s", r.l2_bytes_per_s);
  OptionalNum(w, "sm_clock_hz", r.sm_clock_hz);
  Key(w, "metrics");
  w.StartObject();
  for (const auto& [name, v] : r.values) Key(w, name), Num(w, v);
  w.EndObject();
}

// The sampled verdict: its class, its bound, the two sides and the reason in words.
void VerdictJson(json::Writer& w, const analysis::Verdict& v) {
  w.StartObject();
  Key(w, "sol_class"), Str(w, analysis::SolClassName(v.sol_class));
  Key(w, "verdict"), Str(w, VerdictLabel(v));
  OptionalNum(w, "sm_pct", v.sm_pct);
  OptionalNum(w, "memory_pct", v.memory_pct);
  Key(w, "reason"), Str(w, VerdictReason(v));
  w.EndObject();
}

void WriteNotes(const std::vector<std::string>& notes, const ReportOptions& options,
                std::ostream& out) {
  if (notes.empty()) return;
  out << "\n  Sampling notes:\n";
  for (const std::string& n : notes) out << Wrapped(n, options.width, 4, 6);
}

}  // namespace

void WriteGpuSamplesText(const analysis::GpuSampleAnalysis& a,
                         const std::vector<std::string>& notes, const NameCut& names,
                         const ReportOptions& options, std::ostream& out) {
  if (a.empty()) {
    if (notes.empty()) return;
    out << "\nGPU metrics\n  No samples in this profile.\n";
    WriteNotes(notes, options, out);
    return;
  }
  out << absl::StrFormat("\nGPU metrics (sampled every %s of GPU time)\n",
                         FormatNsShort(double(a.devices.front().interval_ns)));
  for (const analysis::SampledDevice& d : a.devices) {
    out << Wrapped(
        absl::StrFormat("GPU %d, %d samples: %s", d.device_id, d.all.samples, RatesLine(d.all)),
        options.width, 2, 4);
    if (d.in_kernels.samples > 0) {
      out << Wrapped(absl::StrFormat("inside kernels (%d samples, %d of one kernel alone): %s",
                                     d.in_kernels.samples, d.attributed, RatesLine(d.in_kernels)),
                     options.width, 4, 6);
    }
  }
  std::vector<const analysis::SampledKernel*> kernels;
  for (const analysis::SampledKernel& k : a.kernels) kernels.push_back(&k);
  const size_t shown = ShownRows(kernels.size(), options.top);
  TextTable table({"Time", "Sampled", "SM act", "Issue", "Tensor", "DRAM %", "DRAM B/s", "L2 B/s",
                   "Verdict", "Name"});
  table.Fit(options.width, options.max_name_width, &names);
  table.SetDroppable({"L2 B/s", "DRAM B/s", "Issue"});
  for (size_t i = 0; i < shown; ++i) {
    const analysis::SampledKernel& k = *kernels[i];
    const SampledRates& r = k.rates;
    table.AddRow({FormatDuration(double(k.kernel_ns)),
                  r.samples > 0 ? FormatPercent(k.coverage_pct()) : "-",
                  FormatPercentOfPeak(r.sm_active_pct), FormatPercentOfPeak(r.issue_pct),
                  FormatPercentOfPeak(r.tensor_pct), FormatPercentOfPeak(r.dram_pct),
                  Rate(r.dram_bytes_per_s, "B/s"), Rate(r.l2_bytes_per_s, "B/s"),
                  k.verdict ? VerdictLabel(*k.verdict) : "-", model::Demangle(k.name)});
  }
  out << "\n";
  table.Write(out);
  WriteMoreLine(kernels.size(), shown, "kernels", out);
  out << Wrapped(
      "Sampled: the share of the kernel's time covered by samples that lie wholly inside one "
      "of its launches with no other kernel running (kernels shorter than the interval have "
      "none; sampled in bursts, only the launches inside a burst hold samples). Rates are per "
      "elapsed cycle or second over those samples. Verdict: the speed-of-light class from "
      "the busiest sampled SM part (issue, tensor pipe) and memory level (DRAM, L2), for "
      "kernels with 3 or more samples; what a kernel the counters cannot measure (inside "
      "CUDA graphs) gets.",
      options.width, 2, 4);
  WriteNotes(notes, options, out);
}

void WriteGpuSamplesJson(json::Writer& w, const analysis::GpuSampleAnalysis& a,
                         const std::vector<std::string>& notes, int top) {
  if (a.empty() && notes.empty()) return;
  Key(w, "gpu_metrics");
  w.StartObject();
  Key(w, "devices");
  w.StartArray();
  for (const analysis::SampledDevice& d : a.devices) {
    w.StartObject();
    Key(w, "device_id"), w.Uint(d.device_id);
    Key(w, "interval_ns"), w.Uint64(d.interval_ns);
    Key(w, "metrics");
    w.StartArray();
    for (const std::string& m : d.metrics) Str(w, m);
    w.EndArray();
    Key(w, "all");
    w.StartObject();
    RatesJson(w, d.all);
    w.EndObject();
    Key(w, "in_kernels");
    w.StartObject();
    RatesJson(w, d.in_kernels);
    w.EndObject();
    Key(w, "attributed_samples"), w.Uint64(d.attributed);
    w.EndObject();
  }
  w.EndArray();
  Key(w, "kernels");
  w.StartObject();
  Key(w, "total_rows"), w.Uint64(a.kernels.size());
  Key(w, "rows");
  w.StartArray();
  const size_t shown = ShownRows(a.kernels.size(), top);
  for (size_t i = 0; i < shown; ++i) {
    const analysis::SampledKernel& k = a.kernels[i];
    w.StartObject();
    Key(w, "device_id"), w.Uint(k.device_id);
    Key(w, "name"), Str(w, model::Demangle(k.name));
    Key(w, "launches"), w.Uint64(k.launches);
    Key(w, "kernel_ns"), w.Uint64(k.kernel_ns);
    Key(w, "coverage_pct"), Num(w, k.coverage_pct());
    RatesJson(w, k.rates);
    Key(w, "verdict");
    if (k.verdict) {
      VerdictJson(w, *k.verdict);
    } else {
      w.Null();
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  Key(w, "notes");
  w.StartArray();
  for (const std::string& n : notes) Str(w, n);
  w.EndArray();
  w.EndObject();
}

}  // namespace cuscope::report
