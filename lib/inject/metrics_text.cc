#include "lib/inject/metrics_text.h"

#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/report/json_writer.h"

namespace cuscope::inject {
namespace {

std::string Passes(size_t passes) {
  return passes == 0 ? "" : absl::StrCat(passes, passes == 1 ? " pass" : " passes");
}

std::string Collected(const collect::ResolvedMetric& m) { return absl::StrJoin(m.collect, " + "); }

void SetLines(const collect::Chip& chip, const SetView& set, std::string* out) {
  absl::StrAppendFormat(out, "%s: %s\n", set.name, set.answers);
  for (size_t i = 0; i < set.resolution.metrics.size(); ++i) {
    const collect::ResolvedMetric& m = set.resolution.metrics[i];
    absl::StrAppendFormat(out, "  %s\n", m.name);
    if (m.substituted()) {
      absl::StrAppendFormat(out, "      on %s: %s (%s)\n", chip.name, Collected(m),
                            m.note != nullptr ? m.note : "");
    }
    if (i < set.descriptions.size() && !set.descriptions[i].empty()) {
      absl::StrAppendFormat(out, "      %s\n", set.descriptions[i]);
    }
  }
  for (const collect::DroppedMetric& d : set.resolution.dropped) {
    absl::StrAppendFormat(out, "  %s\n      not on %s%s\n", d.name, chip.name,
                          d.note != nullptr ? absl::StrCat(": ", d.note) : "");
  }
}

}  // namespace

std::string SetAnswers(const std::string& set) {
  if (set == "verdict") {
    return "what limits each kernel, in one pass where the chip allows: the busiest parts "
           "of SM and memory throughput (ncu's speed-of-light class), tensor pipe, issue, "
           "DRAM, L2, L1, occupancy";
  }
  if (set == "roofline") {
    return "how far each kernel is from its compute and memory roofs: FLOPs per "
           "precision, bytes at DRAM, L2 and L1, clocks and per-cycle peaks";
  }
  if (set == "sol") {
    return "which unit limits the kernel: SM, memory, DRAM, L2, L1, tensor and FMA "
           "pipe throughput as % of peak (speed of light)";
  }
  if (set == "occupancy") return "how many warps stay resident: achieved occupancy";
  if (set == "stalls") return "why warps wait: the share of active warp-cycles stalled per reason";
  if (set == "memory") {
    return "how well memory is accessed: shared-memory bank conflicts, global sectors per "
           "request";
  }
  if (set == "full") return "all of the above in one configuration (more passes)";
  if (set == "metrics") return "the metrics named in the request";
  return "";
}

std::string MetricsText(const collect::Chip& chip, const std::vector<SetView>& sets,
                        bool detailed) {
  std::string out = absl::StrFormat("Metric sets on %s (%s%s%s)%s\n", chip.name, chip.architecture,
                                    chip.gpus[0] != '\0' ? ": " : "", chip.gpus,
                                    detailed ? "" : ": --set NAME lists a set's metrics");
  for (const SetView& set : sets) {
    out += "\n";
    if (detailed) {
      SetLines(chip, set, &out);
      continue;
    }
    size_t substituted = 0;
    for (const auto& m : set.resolution.metrics) substituted += m.substituted() ? 1 : 0;
    absl::StrAppendFormat(&out, "%-10s %s\n", set.name, set.answers);
    std::string counts = absl::StrCat(set.resolution.metrics.size(), " metrics");
    if (set.passes > 0) absl::StrAppend(&counts, ", ", Passes(set.passes));
    if (substituted > 0) absl::StrAppend(&counts, ", ", substituted, " through substitutes");
    absl::StrAppendFormat(&out, "%-10s %s\n", "", counts);
    if (!set.resolution.dropped.empty()) {
      std::vector<std::string> names;
      for (const auto& d : set.resolution.dropped) names.push_back(d.name);
      absl::StrAppendFormat(&out, "%-10s not on %s: %s\n", "", chip.name,
                            absl::StrJoin(names, ", "));
    }
  }
  return out;
}

std::string MetricsJson(const collect::Chip& chip, const std::vector<SetView>& sets) {
  report::json::Document doc;
  report::json::Writer& w = doc.writer();
  using report::json::Key;
  using report::json::Str;
  w.StartObject();
  Key(w, "chip");
  Str(w, chip.name);
  Key(w, "architecture");
  Str(w, chip.architecture);
  Key(w, "sets");
  w.StartArray();
  for (const SetView& set : sets) {
    w.StartObject();
    Key(w, "name");
    Str(w, set.name);
    Key(w, "answers");
    Str(w, set.answers);
    Key(w, "passes");
    w.Uint64(set.passes);
    Key(w, "metrics");
    w.StartArray();
    for (size_t i = 0; i < set.resolution.metrics.size(); ++i) {
      const collect::ResolvedMetric& m = set.resolution.metrics[i];
      w.StartObject();
      Key(w, "name");
      Str(w, m.name);
      Key(w, "collected_as");
      w.StartArray();
      for (const std::string& c : m.collect) Str(w, c);
      w.EndArray();
      Key(w, "substitute_note");
      Str(w, m.note != nullptr ? m.note : "");
      Key(w, "description");
      Str(w, i < set.descriptions.size() ? set.descriptions[i] : "");
      w.EndObject();
    }
    w.EndArray();
    Key(w, "not_measurable");
    w.StartArray();
    for (const collect::DroppedMetric& d : set.resolution.dropped) {
      w.StartObject();
      Key(w, "name");
      Str(w, d.name);
      Key(w, "why");
      Str(w, d.note != nullptr ? d.note : "the chip has no such counter");
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  std::ostringstream s;
  doc.WriteTo(s);
  return s.str();
}

std::string ChipsText() {
  std::string out = "Chips the Range Profiler supports (cuscope metrics --chip NAME):\n";
  for (const collect::Chip& c : collect::SupportedChips()) {
    absl::StrAppendFormat(&out, "  %-6s %-10s %s\n", c.name, c.architecture, c.gpus);
  }
  return out;
}

std::string ChipsJson() {
  report::json::Document doc;
  report::json::Writer& w = doc.writer();
  w.StartObject();
  report::json::Key(w, "chips");
  w.StartArray();
  for (const collect::Chip& c : collect::SupportedChips()) {
    w.StartObject();
    report::json::Key(w, "name");
    report::json::Str(w, c.name);
    report::json::Key(w, "architecture");
    report::json::Str(w, c.architecture);
    report::json::Key(w, "gpus");
    report::json::Str(w, c.gpus);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  std::ostringstream s;
  doc.WriteTo(s);
  return s.str();
}

}  // namespace cuscope::inject
