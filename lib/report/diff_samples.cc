#include "lib/report/diff_samples.h"

#include <optional>
#include <string>

#include "lib/model/demangle.h"
#include "lib/report/format.h"
#include "lib/report/number_format.h"

namespace cuscope::report {
namespace {

using analysis::SampledRates;

// The speed-of-light class of a sampled verdict, "-" without one.
std::string ClassOf(const std::optional<analysis::Verdict>& v) {
  return v ? analysis::SolClassName(v->sol_class) : "-";
}

void ClassJson(json::Writer& w, const char* key, const std::optional<analysis::Verdict>& v) {
  json::Key(w, key);
  if (v) {
    json::Str(w, analysis::SolClassName(v->sol_class));
  } else {
    w.Null();
  }
}

void Rates(json::Writer& w, const char* key, const SampledRates& r) {
  json::Key(w, key);
  w.StartObject();
  auto num = [&](const char* k, const std::optional<double>& v) {
    json::Key(w, k);
    if (v) {
      json::Num(w, *v);
    } else {
      w.Null();
    }
  };
  json::Key(w, "samples"), w.Uint64(r.samples);
  num("sm_active_pct", r.sm_active_pct);
  num("issue_pct", r.issue_pct);
  num("tensor_pct", r.tensor_pct);
  num("dram_pct", r.dram_pct);
  num("dram_bytes_per_s", r.dram_bytes_per_s);
  num("l2_bytes_per_s", r.l2_bytes_per_s);
  w.EndObject();
}

}  // namespace

void WriteSampledChangesText(const std::vector<analysis::SampledChange>& rows, const NameCut& names,
                             const ReportOptions& options, std::ostream& out) {
  if (rows.empty()) return;
  out << "\nGPU metrics of kernels sampled in both (by new kernel time)\n";
  const size_t shown = ShownRows(rows.size(), options.top);
  TextTable t({"Base Time", "New Time", "Base SM", "New SM", "Base Tensor", "New Tensor",
               "Base DRAM", "New DRAM", "Base Class", "New Class", "Name"});
  t.Fit(options.width, options.max_name_width, &names);
  for (size_t i = 0; i < shown; ++i) {
    const analysis::SampledChange& c = rows[i];
    t.AddRow({FormatDuration(double(c.base_kernel_ns)), FormatDuration(double(c.next_kernel_ns)),
              FormatPercentOfPeak(c.base.sm_active_pct), FormatPercentOfPeak(c.next.sm_active_pct),
              FormatPercentOfPeak(c.base.tensor_pct), FormatPercentOfPeak(c.next.tensor_pct),
              FormatPercentOfPeak(c.base.dram_pct), FormatPercentOfPeak(c.next.dram_pct),
              ClassOf(c.base_verdict), ClassOf(c.next_verdict), model::Demangle(c.name)});
  }
  t.Write(out);
  WriteMoreLine(rows.size(), shown, "kernels", out);
}

void WriteSampledChangesJson(json::Writer& w, const std::vector<analysis::SampledChange>& rows,
                             int top) {
  if (rows.empty()) return;
  json::Key(w, "sampled_changes");
  w.StartArray();
  const size_t shown = ShownRows(rows.size(), top);
  for (size_t i = 0; i < shown; ++i) {
    const analysis::SampledChange& c = rows[i];
    w.StartObject();
    json::Key(w, "device_id"), w.Uint(c.device_id);
    json::Key(w, "name"), json::Str(w, model::Demangle(c.name));
    json::Key(w, "base_kernel_ns"), w.Uint64(c.base_kernel_ns);
    json::Key(w, "new_kernel_ns"), w.Uint64(c.next_kernel_ns);
    Rates(w, "base", c.base);
    Rates(w, "new", c.next);
    ClassJson(w, "base_class", c.base_verdict);
    ClassJson(w, "new_class", c.next_verdict);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace cuscope::report
