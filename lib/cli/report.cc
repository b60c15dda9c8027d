// `cuscope report PROFILE`: the summaries of a profile as text, CSV or JSON, and the
// roofline chart and the HTML report.
#include "lib/report/report.h"

#include <cstdlib>
#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/analysis/ranks.h"
#include "lib/cli/commands.h"
#include "lib/cli/diff.h"
#include "lib/cli/flags.h"
#include "lib/cli/output.h"
#include "lib/config/from_env.h"
#include "lib/report/html_report.h"
#include "lib/report/ranks_text.h"
#include "lib/report/roofline_svg.h"
#include "lib/store/reader.h"

namespace cuscope::cli {
namespace {

const std::vector<Flag>& ReportFlags() {
  static const std::vector<Flag>* flags = new std::vector<Flag>{
      {"format", nullptr, "FORMAT", "text, csv or json (default text)"},
      {"top", nullptr, "N",
       absl::StrCat("rows per table, 0 for all (default ", report::ReportOptions{}.top, ")")},
      {"width", nullptr, "N",
       "columns of the text (default: the terminal's when stdout is one, else 100; 0 = no "
       "limit)"},
      {"output", "o", "FILE", "the file to write (default stdout, also -)"},
      {"roofline", nullptr, "FILE",
       "also write the roofline chart (SVG); the profile needs counters (cuscope run "
       "--metrics=roofline)"},
      {"html", nullptr, "FILE",
       "also write the HTML report: one self-contained page (findings, kernels, regions, "
       "roofline, counters, timeline) that opens in any browser; of two profiles, the page "
       "comparing them (as cuscope diff BASE NEW --html)"},
  };
  return *flags;
}

std::string Help() {
  return CommandHelp(kReportCommand.usage, kReportCommand.summary, ReportFlags());
}

// Several profiles (the ranks of one job): side by side, as text.
int ReportRanks(const Args& args, const std::string& format, const report::ReportOptions& options) {
  if (format != "text") {
    return UsageError("report", "several profiles are reported as text only (--format=text)");
  }
  if (!args.Get("roofline").empty()) return UsageError("report", "--roofline takes one profile");
  const std::string html = args.Get("html");
  if (!html.empty() && args.positional.size() != 2) {
    return UsageError("report",
                      "--html takes one profile (its report) or two (their comparison, as "
                      "cuscope diff BASE NEW --html)");
  }
  for (const std::string& input : args.positional) {
    for (const char* flag : {"output", "html"}) {
      if (int code = RefuseToOverwrite("report", flag, input, args.Get(flag))) return code;
    }
  }
  std::vector<model::Profile> profiles;
  for (const std::string& input : args.positional) {
    absl::StatusOr<model::Profile> profile = store::LoadProfile(input);
    if (!profile.ok()) {
      std::cerr << "cuscope: report: " << profile.status().message() << "\n";
      return 1;
    }
    profiles.push_back(*std::move(profile));
  }
  if (!html.empty()) {
    std::optional<analysis::Comparison> c = CompareProfiles("report", profiles[0], profiles[1]);
    if (!c || !WriteDiffPage("report", *c, args.positional[0], args.positional[1], html)) return 1;
  }
  std::vector<analysis::RankInput> inputs;
  for (size_t i = 0; i < profiles.size(); ++i) inputs.push_back({&profiles[i], args.positional[i]});
  Output out;
  if (!out.Open("report", args.Get("output"))) return 1;
  report::WriteRanksText(analysis::CompareRanks(inputs), options, out.stream());
  return out.Finish();
}

int Main(const std::vector<std::string>& words, const std::vector<std::string>&) {
  absl::StatusOr<Args> args = ParseArgs(ReportFlags(), words);
  if (!args.ok()) return UsageError("report", args.status().message());
  if (args->positional.empty()) return UsageError("report", "expected a PROFILE argument");
  const std::string& path = args->positional[0];
  std::string format = absl::AsciiStrToLower(args->Get("format", "text"));
  if (format != "text" && format != "csv" && format != "json") {
    return UsageError("report", absl::StrCat("--format=\"", args->Get("format"),
                                             "\" is not valid; accepted: text, csv, json"));
  }
  report::ReportOptions options;
  if (!ParseTop("report", args->Get("top"), &options.top)) return kUsageError;
  if (!ParseWidth("report", args->Get("width"), &options.width)) return kUsageError;
  if (args->positional.size() > 1) return ReportRanks(*args, format, options);
  for (const char* flag : {"output", "roofline", "html"}) {
    if (int code = RefuseToOverwrite("report", flag, path, args->Get(flag))) return code;
  }
  absl::StatusOr<model::Profile> profile = store::LoadProfile(path);
  if (!profile.ok()) {
    std::cerr << "cuscope: report: " << profile.status().message() << "\n";
    return 1;
  }
  // Findings not stored in the profile are computed with the environment's thresholds.
  absl::StatusOr<model::AdviseThresholds> thresholds = config::ThresholdsFromEnv(std::getenv);
  if (!thresholds.ok()) {
    std::cerr << "cuscope: report: " << thresholds.status().message() << "\n";
    return 1;
  }
  report::ReportData data = report::BuildReport(*profile, *thresholds);
  Output out;
  if (!out.Open("report", args->Get("output"))) return 1;
  std::string svg = args->Get("roofline");
  if (!svg.empty()) {
    absl::Status st = report::WriteRooflineSvg(*profile, data.ceilings, data.counters, svg);
    if (!st.ok()) {
      std::cerr << "cuscope: report: --roofline: " << st.message() << "\n";
      return 1;
    }
    std::cerr << "cuscope: roofline chart written to " << svg << "\n";
  }
  std::string html = args->Get("html");
  if (!html.empty()) {
    absl::Status st = report::WriteHtmlReport(data, html);
    if (!st.ok()) {
      std::cerr << "cuscope: report: --html: " << st.message() << "\n";
      return 1;
    }
    std::cerr << "cuscope: HTML report written to " << html << "\n";
  }
  if (format == "text")
    report::WriteText(data, options, out.stream());
  else if (format == "csv")
    report::WriteCsv(data, options, out.stream());
  else
    report::WriteJson(data, options, out.stream());
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
    "--html, two profiles give the HTML page of their comparison (as cuscope diff).",
    false,
    Help,
    Main};

}  // namespace cuscope::cli
