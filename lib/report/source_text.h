// Source hotspots (analysis/source_hotspots.h) for people and tools: `cuscope report
// --source` as text and as JSON.
#ifndef CUSCOPE_LIB_REPORT_SOURCE_TEXT_H_
#define CUSCOPE_LIB_REPORT_SOURCE_TEXT_H_

#include <ostream>
#include <string>

#include "lib/analysis/source_hotspots.h"
#include "lib/model/profile.h"
#include "lib/report/report_options.h"

namespace cuscope::report {

using model::StallWords;

// "file:line" of a hot line, or "PC +0x1a0" without line info; the file by its last
// `file_parts` path components (0: whole).
std::string HotLineLabel(const analysis::HotLine& line, int file_parts = 2);

// Per function, its hot lines with their share of its samples, their top stall reasons
// and the source text beside; a function without line info by PC offset, saying so.
// The run's source.* notes first when samples are missing or lost.
void WriteSourceText(const analysis::SourceHotspots& hotspots, const model::RunNotes& notes,
                     const ReportOptions& options, std::ostream& out);

// The same as one JSON document: {"samples", "functions": [{"name", "mangled",
// "samples", "pct", "has_lines", "stalls": [...], "lines": [{"file", "line",
// "pc_offset", "samples", "pct", "text", "stalls": [{"reason", "words", "samples",
// "pct"}]}]}], "notes": {...}}.
void WriteSourceJson(const analysis::SourceHotspots& hotspots, const model::RunNotes& notes,
                     std::ostream& out);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_SOURCE_TEXT_H_
