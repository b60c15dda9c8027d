#include "lib/report/diff_source.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/model/pc_samples.h"
#include "lib/report/format.h"
#include "lib/report/number_format.h"

namespace cuscope::report {
namespace {

std::string LineLabel(const analysis::SourceLineChange& c) {
  if (c.file.empty()) return absl::StrFormat("PC +0x%x", c.pc_offset);
  const size_t slash = c.file.rfind('/');
  return absl::StrCat(slash == std::string::npos ? c.file : c.file.substr(slash + 1), ":", c.line);
}

std::string Stall(bool has, model::StallKind kind) { return has ? model::StallWords(kind) : "-"; }

}  // namespace

void WriteSourceChangesText(const std::vector<analysis::SourceLineChange>& rows,
                            const ReportOptions& options, std::ostream& out) {
  if (rows.empty()) return;
  out << "\nSource lines of kernel functions PC-sampled in both (by change of share)\n";
  const size_t shown = ShownRows(rows.size(), options.top);
  for (size_t i = 0; i < shown; ++i) {
    const analysis::SourceLineChange& c = rows[i];
    out << Wrapped(absl::StrFormat("%s %s: %s%% -> %s%% of its samples; waits: %s -> %s",
                                   c.function, LineLabel(c), FormatPercent(c.base_pct),
                                   FormatPercent(c.next_pct), Stall(c.base_has_stall, c.base_stall),
                                   Stall(c.next_has_stall, c.next_stall)),
                   options.width, 2, 4);
  }
  WriteMoreLine(rows.size(), shown, "lines", out);
}

void WriteSourceChangesJson(json::Writer& w, const std::vector<analysis::SourceLineChange>& rows,
                            int top) {
  if (rows.empty()) return;
  json::Key(w, "source_changes");
  w.StartArray();
  const size_t shown = ShownRows(rows.size(), top);
  for (size_t i = 0; i < shown; ++i) {
    const analysis::SourceLineChange& c = rows[i];
    w.StartObject();
    json::Key(w, "function"), json::Str(w, c.function);
    json::Key(w, "file"), json::Str(w, c.file);
    json::Key(w, "line"), w.Uint(c.line);
    json::Key(w, "pc_offset"), w.Uint64(c.pc_offset);
    json::Key(w, "base_pct"), json::Num(w, c.base_pct);
    json::Key(w, "new_pct"), json::Num(w, c.next_pct);
    json::Key(w, "base_stall"), json::Str(w, Stall(c.base_has_stall, c.base_stall));
    json::Key(w, "new_stall"), json::Str(w, Stall(c.next_has_stall, c.next_stall));
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace cuscope::report
