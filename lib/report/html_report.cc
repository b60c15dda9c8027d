#include "lib/report/html_report.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "lib/report/html_escape.h"
#include "lib/report/html_sections.h"
#include "lib/report/html_timeline.h"
#include "lib/report/json_writer.h"
#include "lib/report/output_file.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace cuscope::report {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

using json::Str;

// Busy time in thousandths of the bin: 0..1000.
unsigned Permille(uint64_t ns, uint64_t bin_ns) {
  return static_cast<unsigned>(
      std::lround(1000.0 * static_cast<double>(ns) / static_cast<double>(bin_ns)));
}

void WriteLane(Writer& w, const TimelineLane& lane, uint64_t bin_ns) {
  w.StartObject();
  w.Key("device");
  w.Uint(lane.device_id);
  w.Key("stream");
  w.Uint(lane.stream_id);
  w.Key("kernels");
  w.Uint64(lane.kernels);
  w.Key("memory_ops");
  w.Uint64(lane.memory_ops);
  w.Key("busy_ns");
  w.Uint64(lane.busy_ns);
  // Columns of the non-empty bins: index, kernel and memory busy (permille), top name.
  w.Key("bin");
  w.StartArray();
  for (const TimelineBin& b : lane.bins) w.Uint(b.index);
  w.EndArray();
  w.Key("k");
  w.StartArray();
  for (const TimelineBin& b : lane.bins) w.Uint(Permille(b.kernel_ns, bin_ns));
  w.EndArray();
  w.Key("m");
  w.StartArray();
  for (const TimelineBin& b : lane.bins) w.Uint(Permille(b.memory_ns, bin_ns));
  w.EndArray();
  w.Key("top");
  w.StartArray();
  for (const TimelineBin& b : lane.bins) w.Int(b.top);
  w.EndArray();
  w.EndObject();
}

void WriteTimeline(Writer& w, const TimelineOverview& t) {
  w.StartObject();
  w.Key("start_ns");
  w.Uint64(t.start_ns);
  w.Key("end_ns");
  w.Uint64(t.end_ns);
  w.Key("bin_ns");
  w.Uint64(t.bin_ns);
  w.Key("bins");
  w.Uint(t.bin_count);
  w.Key("names");
  w.StartArray();
  for (const std::string& n : t.names) Str(w, n);
  w.EndArray();
  w.Key("lanes");
  w.StartArray();
  for (const TimelineLane& lane : t.lanes) WriteLane(w, lane, t.bin_ns);
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string HtmlReportJson(const ReportData& data) {
  const model::Profile& p = ProfileOf(data);
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("format");
  w.String("cuscope-html-report");
  w.Key("version");
  w.Uint(1);
  w.Key("run");
  w.StartObject();
  w.Key("command_line");
  Str(w, p.run.command_line);
  w.Key("hostname");
  Str(w, p.run.hostname);
  w.Key("pid");
  w.Int64(p.run.pid);
  w.Key("wall_ns");
  w.Uint64(data.summary.wall_ns);
  w.Key("kernels");
  w.Uint64(data.summary.kernel_count);
  w.Key("kernel_time_ns");
  w.Uint64(data.summary.kernel_ns);
  w.Key("timed_launches");
  w.Uint64(data.summary.timed_launches);
  w.Key("findings");
  w.Uint64(data.findings.size());
  w.EndObject();
  w.Key("timeline");
  WriteTimeline(w, BuildTimelineOverview(p));
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string RenderHtmlReport(const ReportData& data) {
  const model::Profile& p = ProfileOf(data);
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  absl::StrAppend(&out, "<title>cuscope report: ", HtmlEscape(p.run.command_line),
                  "</title>\n<style>", HtmlStyle(), "</style>\n</head><body>\n");
  absl::StrAppend(&out, "<header><h1>cuscope report</h1><p class=\"cmd\">",
                  HtmlEscape(p.run.command_line),
                  "</p><nav><a href=\"#run\">Run</a> <a "
                  "href=\"#findings\">Findings</a> <a href=\"#timeline\">Timeline</a> <a "
                  "href=\"#kernels\">Kernels</a> <a href=\"#regions\">Regions</a> <a "
                  "href=\"#roofline\">Roofline</a> <a href=\"#counters\">Counters</a>",
                  data.gpu_samples.empty() && data.gpu_sample_notes.empty()
                      ? ""
                      : " <a href=\"#gpu-metrics\">GPU metrics</a>",
                  data.source.functions.empty() ? "" : " <a href=\"#source\">Source</a>",
                  "</nav></header>\n<main>\n");
  AppendRunHeader(data, out);
  AppendFindings(data, out);
  out +=
      "<section id=\"timeline\"><h2>Timeline</h2>\n<p class=\"note\">Busy time per stream "
      "(kernels blue, copies and memsets orange) in at most 4000 bins over the GPU span. "
      "Drag to zoom into a range, double-click to zoom out, hover for the bin's top kernel."
      "</p>\n<div id=\"tl-info\" class=\"note\"></div>\n<canvas id=\"tl\" width=\"1200\" "
      "height=\"60\"></canvas>\n<noscript>The timeline needs JavaScript.</noscript>\n"
      "</section>\n";
  AppendKernelTable(data, out);
  AppendRegionTree(data, out);
  AppendCounters(data, out);
  AppendGpuSamples(data, out);
  AppendSourceHotspots(data, out);
  absl::StrAppend(&out, "</main>\n<script type=\"application/json\" id=\"cuscope-data\">",
                  ScriptSafeJson(HtmlReportJson(data)), "</script>\n<script>", HtmlScript(),
                  "</script>\n</body></html>\n");
  return out;
}

absl::Status WriteHtmlReport(const ReportData& data, const std::string& path) {
  const std::string html = RenderHtmlReport(data);
  return WriteOutputFile(path, "HTML report", [&](std::FILE* f) {
    std::fwrite(html.data(), 1, html.size(), f);
    return absl::OkStatus();
  });
}

}  // namespace cuscope::report
