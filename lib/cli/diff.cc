// `cuscope diff BASE NEW`: what changed between two profiles.
#include "lib/cli/diff.h"

#include <cstdlib>
#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/analysis/compare.h"
#include "lib/cli/commands.h"
#include "lib/cli/flags.h"
#include "lib/cli/output.h"
#include "lib/config/from_env.h"
#include "lib/report/html_diff.h"
#include "lib/report/report.h"
#include "lib/store/reader.h"

namespace cuscope::cli {
namespace {

const std::vector<Flag>& DiffFlags() {
  static const std::vector<Flag>* flags = new std::vector<Flag>{
      {"format", nullptr, "FORMAT", "text or json (default text)"},
      {"top", nullptr, "N",
       absl::StrCat("rows per table, 0 for all (default ", report::ReportOptions{}.top, ")")},
      {"width", nullptr, "N",
       "columns of the text (default: the terminal's when stdout is one, else 100; 0 = no "
       "limit)"},
      {"output", "o", "FILE", "the file to write (default stdout, also -)"},
      {"html", nullptr, "FILE",
       "also write the comparison as one self-contained HTML page (totals, findings, "
       "sortable kernel, region, memory and API tables) that opens in any browser"},
  };
  return *flags;
}

std::string Help() { return CommandHelp(kDiffCommand.usage, kDiffCommand.summary, DiffFlags()); }

int Main(const std::vector<std::string>& words, const std::vector<std::string>&) {
  absl::StatusOr<Args> args = ParseArgs(DiffFlags(), words);
  if (!args.ok()) return UsageError("diff", args.status().message());
  const std::vector<std::string>& paths = args->positional;
  if (paths.size() != 2) {
    return UsageError(
        "diff", absl::StrCat("expected BASE and NEW profiles, got ", paths.size(), " arguments"));
  }
  std::string format = absl::AsciiStrToLower(args->Get("format", "text"));
  if (format != "text" && format != "json") {
    return UsageError("diff", absl::StrCat("--format=\"", args->Get("format"),
                                           "\" is not valid; accepted: text, json"));
  }
  report::ReportOptions options;
  if (!ParseTop("diff", args->Get("top"), &options.top)) return kUsageError;
  if (!ParseWidth("diff", args->Get("width"), &options.width)) return kUsageError;
  for (const std::string& input : paths) {
    for (const char* flag : {"output", "html"}) {
      if (int code = RefuseToOverwrite("diff", flag, input, args->Get(flag))) return code;
    }
  }
  absl::StatusOr<model::Profile> base = store::LoadProfile(paths[0]);
  if (!base.ok()) {
    std::cerr << "cuscope: diff: " << base.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<model::Profile> next = store::LoadProfile(paths[1]);
  if (!next.ok()) {
    std::cerr << "cuscope: diff: " << next.status().message() << "\n";
    return 1;
  }
  std::optional<analysis::Comparison> compared = CompareProfiles("diff", *base, *next);
  if (!compared) return 1;
  const analysis::Comparison& c = *compared;
  const std::string html = args->Get("html");
  if (!html.empty() && !WriteDiffPage("diff", c, paths[0], paths[1], html)) return 1;
  Output out;
  if (!out.Open("diff", args->Get("output"))) return 1;
  if (format == "text") {
    report::WriteComparisonText(c, paths[0], paths[1], options, out.stream());
  } else {
    report::WriteComparisonJson(c, paths[0], paths[1], options, out.stream());
  }
  return out.Finish();
}

}  // namespace

std::optional<analysis::Comparison> CompareProfiles(const char* command, const model::Profile& base,
                                                    const model::Profile& next) {
  // Findings not stored in a profile are computed with the environment's thresholds.
  absl::StatusOr<model::AdviseThresholds> thresholds = config::ThresholdsFromEnv(std::getenv);
  if (!thresholds.ok()) {
    std::cerr << "cuscope: " << command << ": " << thresholds.status().message() << "\n";
    return std::nullopt;
  }
  return analysis::Compare(base, next, *thresholds);
}

bool WriteDiffPage(const char* command, const analysis::Comparison& c,
                   const std::string& base_label, const std::string& next_label,
                   const std::string& path) {
  absl::Status st = report::WriteHtmlDiff(c, base_label, next_label, path);
  if (!st.ok()) {
    std::cerr << "cuscope: " << command << ": --html: " << st.message() << "\n";
    return false;
  }
  std::cerr << "cuscope: HTML diff written to " << path << "\n";
  return true;
}

const Command kDiffCommand = {
    "diff",
    "cuscope diff BASE NEW [FLAGS]",
    "What changed between two profiles: wall, kernel and GPU busy time, kernels and regions "
    "ranked by the change of their total time, memory operations and CUDA API calls, "
    "verdicts that changed, and the findings that appeared, were resolved or stayed.",
    false,
    Help,
    Main};

}  // namespace cuscope::cli
