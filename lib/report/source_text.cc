#include "lib/report/source_text.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/report/format.h"
#include "lib/report/json_writer.h"
#include "lib/report/name_cut.h"

namespace cuscope::report {

using analysis::FunctionHotspots;
using analysis::HotLine;
using analysis::PcStallShare;
using model::StallKind;

std::string HotLineLabel(const HotLine& line, int file_parts) {
  if (line.line == 0) return absl::StrFormat("PC +0x%x", line.pc_offset);
  std::string file = line.file;
  if (file_parts > 0) {
    std::vector<absl::string_view> parts = absl::StrSplit(line.file, '/');
    if (static_cast<int>(parts.size()) > file_parts) {
      file = absl::StrJoin(parts.end() - file_parts, parts.end(), "/");
    }
  }
  return absl::StrCat(file, ":", line.line);
}

namespace {

std::string StallList(const std::vector<PcStallShare>& stalls) {
  std::vector<std::string> parts;
  for (const PcStallShare& s : stalls) {
    parts.push_back(absl::StrCat(FormatPercent(s.pct), "% ", StallWords(s.kind)));
  }
  return absl::StrJoin(parts, ", ");
}

void WriteNotes(const model::RunNotes& n, std::ostream& out) {
  for (const std::string* note : {&n.source_status, &n.source_buffer_full}) {
    if (!note->empty()) out << "note: " << *note << "\n";
  }
  if (n.source_dropped && *n.source_dropped > 0) {
    out << "note: the hardware dropped " << *n.source_dropped << " PC samples\n";
  }
}

void WriteFunction(const FunctionHotspots& f, const ReportOptions& options, std::ostream& out) {
  const size_t width = options.width > 0 ? options.width : 100;
  out << "\n" << FitName(f.name, width) << "\n";
  out << absl::StrFormat(
      "  %d samples (%s%% of all); %s\n", f.samples, FormatPercent(f.pct),
      f.has_lines ? "by source line" : "no line info (build with -lineinfo): by PC offset");
  out << "  stalls: " << StallList(f.stalls) << "\n";
  for (const HotLine& l : f.lines) {
    out << absl::StrFormat("  %5s%%  %-24s", FormatPercent(l.pct), HotLineLabel(l));
    if (!l.text.empty()) {
      out << "  " << FitName(absl::StripAsciiWhitespace(l.text), width > 40 ? width - 40 : 40);
    }
    out << "\n" << Wrapped(StallList(l.stalls), width, 10, 10);
  }
  if (f.line_count > f.lines.size()) {
    out << "  ... " << f.line_count - f.lines.size() << " more " << (f.has_lines ? "lines" : "PCs")
        << "\n";
  }
}

}  // namespace

void WriteSourceText(const analysis::SourceHotspots& h, const model::RunNotes& notes,
                     const ReportOptions& options, std::ostream& out) {
  out << "Source hotspots (PC sampling)\n";
  WriteNotes(notes, out);
  if (h.functions.empty()) {
    out << (h.samples == 0 ? "no PC samples in this profile (record with cuscope run --source)\n"
                           : "no sampled kernel matches\n");
    return;
  }
  out << h.samples << " samples in " << h.function_count << " kernel functions\n";
  for (const FunctionHotspots& f : h.functions) WriteFunction(f, options, out);
  if (h.function_count > h.functions.size()) {
    out << "\n... " << h.function_count - h.functions.size() << " more functions (--top)\n";
  }
}

namespace {

void WriteStalls(json::Writer& w, const std::vector<PcStallShare>& stalls) {
  w.StartArray();
  for (const PcStallShare& s : stalls) {
    w.StartObject();
    json::Key(w, "reason");
    json::Str(w, model::StallKindKey(s.kind));
    json::Key(w, "words");
    json::Str(w, StallWords(s.kind));
    json::Key(w, "samples");
    w.Uint64(s.samples);
    json::Key(w, "pct");
    json::Num(w, s.pct);
    w.EndObject();
  }
  w.EndArray();
}

void WriteLineJson(json::Writer& w, const HotLine& l) {
  w.StartObject();
  json::Key(w, "file");
  json::Str(w, l.file);
  json::Key(w, "line");
  w.Uint(l.line);
  json::Key(w, "pc_offset");
  w.Uint64(l.pc_offset);
  json::Key(w, "samples");
  w.Uint64(l.samples);
  json::Key(w, "pct");
  json::Num(w, l.pct);
  json::Key(w, "text");
  json::Str(w, l.text);
  json::Key(w, "stalls");
  WriteStalls(w, l.stalls);
  w.EndObject();
}

}  // namespace

void WriteSourceJson(const analysis::SourceHotspots& h, const model::RunNotes& notes,
                     std::ostream& out) {
  json::Document doc;
  json::Writer& w = doc.writer();
  w.StartObject();
  json::Key(w, "samples");
  w.Uint64(h.samples);
  json::Key(w, "functions");
  w.StartArray();
  for (const FunctionHotspots& f : h.functions) {
    w.StartObject();
    json::Key(w, "name");
    json::Str(w, f.name);
    json::Key(w, "mangled");
    json::Str(w, f.mangled);
    json::Key(w, "samples");
    w.Uint64(f.samples);
    json::Key(w, "pct");
    json::Num(w, f.pct);
    json::Key(w, "has_lines");
    w.Bool(f.has_lines);
    json::Key(w, "stalls");
    WriteStalls(w, f.stalls);
    json::Key(w, "lines");
    w.StartArray();
    for (const HotLine& l : f.lines) WriteLineJson(w, l);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  json::Key(w, "status");
  json::Str(w, notes.source_status);
  json::Key(w, "buffer_full");
  w.Bool(!notes.source_buffer_full.empty());
  w.EndObject();
  doc.WriteTo(out);
}

}  // namespace cuscope::report
