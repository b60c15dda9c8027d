// `cuscope diff BASE NEW`: what changed between two profiles.
#include "lib/cli/diff.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "lib/analysis/compare.h"
#include "lib/cli/commands.h"
#include "lib/cli/common_flags.h"
#include "lib/cli/flags.h"
#include "lib/cli/load.h"
#include "lib/cli/output.h"
#include "lib/config/from_env.h"
#include "lib/config/report_width.h"
#include "lib/report/html_diff.h"
#include "lib/report/report.h"

namespace cuscope::cli {
namespace {

// What the flags of `cuscope diff` give.
struct DiffFlags {
  Format format = Format::kText;
  int top = report::ReportOptions{}.top;
  int width = -1;  // the terminal's
  std::string output, html;
};

const FlagTable<DiffFlags>& Flags() {
  static const auto* flags = new FlagTable<DiffFlags>{
      FormatFlag(&DiffFlags::format, {Format::kText, Format::kJson}),
      TopFlag(&DiffFlags::top, "rows per table"),
      WidthFlag(&DiffFlags::width),
      OutputFlag(&DiffFlags::output, "the file to write (default stdout, also -)"),
      Text("html", &DiffFlags::html, "FILE",
           "also write the comparison as one self-contained HTML page (totals, findings, "
           "sortable kernel, region, memory and API tables) that opens in any browser"),
  };
  return *flags;
}

std::string Help() { return CommandHelp(kDiffCommand.usage, kDiffCommand.summary, Flags()); }

int Main(const std::vector<std::string>& words, const std::vector<std::string>&) {
  DiffFlags flags;
  absl::StatusOr<Words> args = ParseFlags(Flags(), words, &flags);
  if (!args.ok()) return UsageError("diff", args.status().message());
  const std::vector<std::string>& paths = args->positional;
  if (paths.size() != 2) {
    return UsageError(
        "diff", absl::StrCat("expected BASE and NEW profiles, got ", paths.size(), " arguments"));
  }
  report::ReportOptions options;
  options.top = flags.top;
  options.width = config::ReportWidth(flags.width, STDOUT_FILENO);
  for (const std::string& input : paths) {
    if (int code = RefuseToOverwrite("diff", "output", input, flags.output)) return code;
    if (int code = RefuseToOverwrite("diff", "html", input, flags.html)) return code;
  }
  std::optional<model::Profile> base = LoadOrSay("diff", paths[0]);
  if (!base) return 1;
  std::optional<model::Profile> next = LoadOrSay("diff", paths[1]);
  if (!next) return 1;
  std::optional<analysis::Comparison> compared = CompareProfiles("diff", *base, *next);
  if (!compared) return 1;
  const analysis::Comparison& c = *compared;
  if (!flags.html.empty() && !WriteDiffPage("diff", c, paths[0], paths[1], flags.html)) return 1;
  Output out;
  if (!out.Open("diff", flags.output)) return 1;
  if (flags.format == Format::kText) {
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
