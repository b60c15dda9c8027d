// `cuscope report PROFILE`: the summaries of a profile as text, CSV or JSON, and the
// roofline chart and the HTML report.
#include "lib/report/report.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/analysis/ranks.h"
#include "lib/analysis/source_hotspots.h"
#include "lib/cli/commands.h"
#include "lib/cli/common_flags.h"
#include "lib/cli/diff.h"
#include "lib/cli/flags.h"
#include "lib/cli/load.h"
#include "lib/cli/output.h"
#include "lib/config/from_env.h"
#include "lib/config/report_width.h"
#include "lib/model/pattern.h"
#include "lib/report/html_report.h"
#include "lib/report/ranks_text.h"
#include "lib/report/roofline_svg.h"
#include "lib/report/source_text.h"
#include "lib/report/torch_table.h"

namespace cuscope::cli {
namespace {

// What the flags of `cuscope report` give.
struct ReportFlags {
  Format format = Format::kText;
  int top = report::ReportOptions{}.top;
  int width = -1;  // the terminal's
  std::string output, roofline, html;
  bool source = false;  // the source hotspots (PC samples) instead of the summaries
  std::string kernels;  // with source: a regex on the demangled kernel name
  enum class By { kAll, kOp, kLine } by = By::kAll;
};

const FlagTable<ReportFlags>& Flags() {
  static const auto* flags = new FlagTable<ReportFlags>{
      FormatFlag(&ReportFlags::format, {Format::kText, Format::kCsv, Format::kJson}),
      TopFlag(&ReportFlags::top, "rows per table"),
      WidthFlag(&ReportFlags::width),
      OutputFlag(&ReportFlags::output, "the file to write (default stdout, also -)"),
      Choice("by", &ReportFlags::by,
             {{"all", ReportFlags::By::kAll},
              {"op", ReportFlags::By::kOp},
              {"line", ReportFlags::By::kLine}},
             "WHAT",
             "op: kernels and GPU time by PyTorch operator; line: by the Python line that "
             "called it (a profile of cuscope run --pytorch); all: the whole report; one of"),
      Text("roofline", &ReportFlags::roofline, "FILE",
           "also write the roofline chart (SVG); the profile needs counters (cuscope run "
           "--metrics=roofline)"),
      Text("html", &ReportFlags::html, "FILE",
           "also write the HTML report: one self-contained page (findings, kernels, regions, "
           "roofline, counters, timeline) that opens in any browser; of two profiles, the page "
           "comparing them (as cuscope diff BASE NEW --html)"),
      Switch("source", &ReportFlags::source,
             "print the source hotspots instead: per kernel function, the lines its warps were "
             "on and why they waited (PC samples: cuscope run --source); text or JSON"),
      Text("kernels", &ReportFlags::kernels, "REGEX",
           "with --source: only the kernel functions whose demangled name matches"),
  };
  return *flags;
}

std::string Help() { return CommandHelp(kReportCommand.usage, kReportCommand.summary, Flags()); }

// --by=op|line: the one table.
int ReportTorch(const model::Profile& profile, const ReportFlags& flags) {
  Output out;
  if (!out.Open("report", flags.output)) return 1;
  const report::TorchFormat format = flags.format == Format::kCsv    ? report::TorchFormat::kCsv
                                     : flags.format == Format::kJson ? report::TorchFormat::kJson
                                                                     : report::TorchFormat::kText;
  report::WriteTorchTable(
      analysis::SummarizeTorch(profile),
      flags.by == ReportFlags::By::kOp ? report::TorchBy::kOp : report::TorchBy::kLine, format,
      flags.top, out.stream());
  return out.Finish();
}

// Several profiles (the ranks of one job): side by side, as text.
int ReportRanks(const std::vector<std::string>& paths, const ReportFlags& flags,
                const report::ReportOptions& options) {
  if (flags.format != Format::kText) {
    return UsageError("report", "several profiles are reported as text only (--format=text)");
  }
  if (!flags.roofline.empty()) return UsageError("report", "--roofline takes one profile");
  const std::string& html = flags.html;
  if (!html.empty() && paths.size() != 2) {
    return UsageError("report",
                      "--html takes one profile (its report) or two (their comparison, as "
                      "cuscope diff BASE NEW --html)");
  }
  for (const std::string& input : paths) {
    if (int code = RefuseToOverwrite("report", "output", input, flags.output)) return code;
    if (int code = RefuseToOverwrite("report", "html", input, flags.html)) return code;
  }
  std::vector<model::Profile> profiles;
  for (const std::string& input : paths) {
    std::optional<model::Profile> profile = LoadOrSay("report", input);
    if (!profile) return 1;
    profiles.push_back(*std::move(profile));
  }
  if (!html.empty()) {
    std::optional<analysis::Comparison> c = CompareProfiles("report", profiles[0], profiles[1]);
    if (!c || !WriteDiffPage("report", *c, paths[0], paths[1], html)) return 1;
  }
  std::vector<analysis::RankInput> inputs;
  for (size_t i = 0; i < profiles.size(); ++i) inputs.push_back({&profiles[i], paths[i]});
  Output out;
  if (!out.Open("report", flags.output)) return 1;
  report::WriteRanksText(analysis::CompareRanks(inputs), options, out.stream());
  return out.Finish();
}

// --source: the source hotspots of one profile, as text or JSON.
int ReportSource(const model::Profile& profile, const ReportFlags& flags,
                 const report::ReportOptions& options) {
  if (flags.format == Format::kCsv) return UsageError("report", "--source is text or JSON");
  analysis::HotspotOptions hot;
  hot.top_functions = flags.top > 0 ? static_cast<size_t>(flags.top) : 0;
  if (!flags.kernels.empty()) {
    absl::StatusOr<model::Pattern> pattern = model::Pattern::Compile(flags.kernels);
    if (!pattern.ok())
      return UsageError("report", absl::StrCat("--kernels: ", pattern.status().message()));
    hot.keep = [p = *std::move(pattern)](const std::string& name) { return p.Search(name); };
  }
  const analysis::SourceHotspots hotspots = analysis::FindSourceHotspots(profile, hot);
  Output out;
  if (!out.Open("report", flags.output)) return 1;
  if (flags.format == Format::kJson) {
    report::WriteSourceJson(hotspots, profile.run.notes, out.stream());
  } else {
    report::WriteSourceText(hotspots, profile.run.notes, options, out.stream());
  }
  return out.Finish();
}

int Main(const std::vector<std::string>& words, const std::vector<std::string>&) {
  ReportFlags flags;
  absl::StatusOr<Words> args = ParseFlags(Flags(), words, &flags);
  if (!args.ok()) return UsageError("report", args.status().message());
  if (args->positional.empty()) return UsageError("report", "expected a PROFILE argument");
  const std::string& path = args->positional[0];
  report::ReportOptions options;
  options.top = flags.top;
  options.width = config::ReportWidth(flags.width, STDOUT_FILENO);
  if (args->positional.size() > 1) return ReportRanks(args->positional, flags, options);
  for (auto [flag, file] :
       {std::pair{"output", &flags.output}, {"roofline", &flags.roofline}, {"html", &flags.html}}) {
    if (int code = RefuseToOverwrite("report", flag, path, *file)) return code;
  }
  if (!flags.kernels.empty() && !flags.source) {
    return UsageError("report", "--kernels goes with --source");
  }
  std::optional<model::Profile> profile = LoadOrSay("report", path);
  if (!profile) return 1;
  if (flags.source) return ReportSource(*profile, flags, options);
  // Findings not stored in the profile are computed with the environment's thresholds.
  absl::StatusOr<model::AdviseThresholds> thresholds = config::ThresholdsFromEnv(std::getenv);
  if (!thresholds.ok()) {
    std::cerr << "cuscope: report: " << thresholds.status().message() << "\n";
    return 1;
  }
  if (flags.by != ReportFlags::By::kAll) return ReportTorch(*profile, flags);
  report::ReportData data = report::BuildReport(*profile, *thresholds);
  Output out;
  if (!out.Open("report", flags.output)) return 1;
  const std::string& svg = flags.roofline;
  if (!svg.empty()) {
    absl::Status st = report::WriteRooflineSvg(*profile, data.ceilings, data.counters, svg);
    if (!st.ok()) {
      std::cerr << "cuscope: report: --roofline: " << st.message() << "\n";
      return 1;
    }
    std::cerr << "cuscope: roofline chart written to " << svg << "\n";
  }
  const std::string& html = flags.html;
  if (!html.empty()) {
    absl::Status st = report::WriteHtmlReport(data, html);
    if (!st.ok()) {
      std::cerr << "cuscope: report: --html: " << st.message() << "\n";
      return 1;
    }
    std::cerr << "cuscope: HTML report written to " << html << "\n";
  }
  switch (flags.format) {
    case Format::kText:
      report::WriteText(data, options, out.stream());
      break;
    case Format::kCsv:
      report::WriteCsv(data, options, out.stream());
      break;
    case Format::kJson:
      report::WriteJson(data, options, out.stream());
      break;
  }
  return out.Finish();
}

}  // namespace

const Command kReportCommand = {
    "report",
    "cuscope report PROFILE... [FLAGS]",
    "Prints the kernel, API, memory and region summaries of a profile, and with counters "
    "the ceilings, the roofline and the verdict of each kernel. Several profiles (the ranks "
    "of one job, e.g. run -o ddp.%r.sqlite) are compared side by side: each rank's wall, "
    "GPU, kernel and NCCL time, stragglers by step time, and the kernels per rank; with "
    "--html, two profiles give the HTML page of their comparison (as cuscope diff). With "
    "--source, the source hotspots of a profile recorded with cuscope run --source.",
    false,
    Help,
    Main};

}  // namespace cuscope::cli
