#include "lib/report/findings_text.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/analysis/advise.h"
#include "lib/analysis/torch_attribution.h"
#include "lib/analysis/torch_sites.h"
#include "lib/model/demangle.h"
#include "lib/report/format.h"

namespace cuscope::report {
namespace {

// Where a time range starts, relative to the run (or to its first record).
uint64_t Origin(const model::Profile& p) {
  if (p.run.start_ns != 0) return p.run.start_ns;
  return p.TimeSpan().first;
}

double Relative(const model::Profile& p, uint64_t t) {
  const uint64_t origin = Origin(p);
  return t >= origin ? static_cast<double>(t - origin) : 0.0;
}

// Each kernel's Python line (a profile of cuscope run --pytorch); empty otherwise.
absl::flat_hash_map<std::string, analysis::KernelSite> Sites(const model::Profile& p) {
  const bool python = std::any_of(
      p.source_locations.begin(), p.source_locations.end(),
      [](const model::SourceLocation& l) { return l.kind == model::SourceLocationKind::kPython; });
  if (!python) return {};
  return analysis::KernelSites(p, analysis::AttributeTorch(p));
}

// "modeling_gpt2.py:697 forward (aten::mm)": the line that launched most of it.
std::string SiteText(const model::Profile& p, const analysis::KernelSite& site) {
  for (const model::SourceLocation& l : p.source_locations) {
    if (l.id != site.line) continue;
    const std::string& file = p.str(l.file);
    const size_t slash = file.rfind('/');
    return absl::StrCat(
        slash == std::string::npos ? file : file.substr(slash + 1), ":", l.line, " ",
        p.str(l.function), site.op.empty() ? "" : absl::StrCat(" (", site.op, ")"),
        site.share < 0.995 ? absl::StrFormat(", %.0f%% of its time", 100 * site.share) : "");
  }
  return "";
}

// The finding's kernel's Python line, "" when none.
std::string LineOf(const model::Profile& p, const model::Finding& f,
                   const absl::flat_hash_map<std::string, analysis::KernelSite>& sites) {
  if (f.kernel.empty()) return "";
  auto site = sites.find(f.kernel);
  return site == sites.end() ? "" : SiteText(p, site->second);
}

std::string Where(const model::Profile& p, const model::Finding& f, const NameCut& names,
                  size_t width) {
  std::vector<std::string> parts;
  if (!f.kernel.empty())
    parts.push_back(absl::StrCat("kernel ", names.Fit(model::Demangle(f.kernel), width)));
  if (!f.region.empty()) parts.push_back(absl::StrCat("region ", FitName(f.region, width)));
  if (f.stream_id != model::kNoId) parts.push_back(absl::StrCat("stream ", f.stream_id));
  if (f.thread_id != model::kNoId) parts.push_back(absl::StrCat("thread ", f.thread_id));
  if (f.end_ns > f.start_ns && f.start_ns != 0) {
    parts.push_back(absl::StrFormat("%s for %s into the run",
                                    absl::StrCat("at ", FormatDuration(Relative(p, f.start_ns))),
                                    FormatDuration(static_cast<double>(f.end_ns - f.start_ns))));
  }
  if (!f.kernel.empty() && p.devices.size() > 1) parts.push_back(absl::StrCat("GPU ", f.device_id));
  return absl::StrJoin(parts, ", ");
}

size_t Shown(size_t n, int limit) {
  return limit <= 0 || static_cast<size_t>(limit) >= n ? n : static_cast<size_t>(limit);
}

}  // namespace

void WriteFindingsText(const model::Profile& profile, const std::vector<model::Finding>& findings,
                       const NameCut& names, int limit, size_t max_name_width, size_t width,
                       const std::string& footer, std::ostream& out) {
  if (limit < 0) return;
  const size_t shown = Shown(findings.size(), limit);
  if (findings.empty()) {
    out << "\nFindings\n  (none above the advisor's thresholds)\n";
    return;
  }
  const std::string heading = absl::StrCat(
      "Findings",
      shown < findings.size() ? absl::StrFormat(" (top %d of %d)", shown, findings.size()) : "",
      ", ranked by estimated gain",
      std::any_of(findings.begin(), findings.end(), analysis::IsStartupFinding)
          ? " (start-up after the steps)"
          : "");
  out << "\n" << Wrapped(heading, width, 0, 2);
  const auto sites = Sites(profile);
  for (size_t i = 0; i < shown; ++i) {
    const model::Finding& f = findings[i];
    out << Wrapped(
        absl::StrFormat("%d. [%s] %s: gain %s (%.1f%% of %s)", i + 1,
                        model::SeverityName(f.severity), f.rule, FormatDuration(f.gain_ns),
                        f.gain_pct,
                        f.basis == model::GainBasis::kGpu ? "GPU kernel time" : "wall time"),
        width, 2, 5);
    out << Wrapped(f.summary, width, 5, 5);
    // Names in "where" get the line's room, less "where: kernel ".
    const size_t name_room = width == 0 ? max_name_width : width > 40 ? width - 20 : 20;
    const std::string where = Where(
        profile, f, names, max_name_width == 0 ? name_room : std::min(max_name_width, name_room));
    if (!where.empty()) out << Wrapped(absl::StrCat("where: ", where), width, 5, 7);
    const std::string line = LineOf(profile, f, sites);
    if (!line.empty()) out << Wrapped(absl::StrCat("line: ", line), width, 5, 7);
    out << Wrapped(absl::StrCat("fix: ", f.advice), width, 5, 7);
  }
  if (shown < findings.size() && !footer.empty()) out << Wrapped(footer, width, 2, 4);
}

void WriteFindingsJson(json::Writer& w, const model::Profile& profile,
                       const std::vector<model::Finding>& findings, int limit) {
  json::Key(w, "findings");
  w.StartArray();
  const size_t shown = Shown(findings.size(), limit);
  const auto sites = Sites(profile);
  for (size_t i = 0; i < shown; ++i) {
    const model::Finding& f = findings[i];
    w.StartObject();
    json::Key(w, "rank");
    w.Uint64(i + 1);
    json::Key(w, "rule");
    json::Str(w, f.rule);
    json::Key(w, "severity");
    json::Str(w, model::SeverityName(f.severity));
    json::Key(w, "gain_ns");
    json::Num(w, f.gain_ns);
    json::Key(w, "gain_pct");
    json::Num(w, f.gain_pct);
    json::Key(w, "gain_basis");
    json::Str(w, model::GainBasisName(f.basis));
    json::Key(w, "summary");
    json::Str(w, f.summary);
    json::Key(w, "advice");
    json::Str(w, f.advice);
    json::Key(w, "location");
    w.StartObject();
    json::Key(w, "kernel");
    json::Str(w, f.kernel);
    json::Key(w, "region");
    json::Str(w, f.region);
    // The Python line that launched most of the kernel (cuscope run --pytorch).
    if (const std::string line = LineOf(profile, f, sites); !line.empty()) {
      json::Key(w, "python");
      json::Str(w, line);
    }
    json::Key(w, "device_id");
    w.Uint(f.device_id);
    json::Key(w, "stream_id");
    if (f.stream_id == model::kNoId)
      w.Null();
    else
      w.Uint(f.stream_id);
    json::Key(w, "thread_id");
    if (f.thread_id == model::kNoId)
      w.Null();
    else
      w.Uint(f.thread_id);
    json::Key(w, "start_ns");
    w.Uint64(f.start_ns);
    json::Key(w, "end_ns");
    w.Uint64(f.end_ns);
    json::Key(w, "start_in_run_ns");
    json::Num(w, f.start_ns != 0 ? Relative(profile, f.start_ns) : 0.0);
    w.EndObject();
    json::Key(w, "evidence");
    w.StartObject();
    for (const auto& [name, value] : f.evidence) {
      json::Key(w, name);
      json::Num(w, value);
    }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace cuscope::report
