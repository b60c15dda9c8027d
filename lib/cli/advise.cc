// `cuscope advise PROFILE`: the advisor's findings (docs/advisor.md), ranked by
// estimated gain, as text or JSON. The profile is loaded whole, as by every
// subcommand (load.h), so a damaged one is refused as `report` refuses it; then the
// findings stored at the end of the run are shown, and a profile without them
// (written before findings existed, or with CUSCOPE_ADVISE=0), or --recompute, has
// them computed with the CUSCOPE_ADVISE_* thresholds of the environment.
#include "lib/analysis/advise.h"

#include <cstdlib>
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "lib/cli/commands.h"
#include "lib/cli/common_flags.h"
#include "lib/cli/flags.h"
#include "lib/cli/load.h"
#include "lib/cli/output.h"
#include "lib/config/from_env.h"
#include "lib/report/findings_text.h"
#include "lib/report/json_writer.h"
#include "lib/report/report_data.h"
#include "lib/report/report_options.h"

namespace cuscope::cli {
namespace {

// What the flags of `cuscope advise` give.
struct AdviseFlags {
  Format format = Format::kText;
  int top = 0;
  std::string output;
  bool recompute = false;
};

const FlagTable<AdviseFlags>& Flags() {
  static const auto* flags = new FlagTable<AdviseFlags>{
      FormatFlag(&AdviseFlags::format, {Format::kText, Format::kJson}),
      TopFlag(&AdviseFlags::top, "findings shown"),
      OutputFlag(&AdviseFlags::output, "the file to write (default stdout, also -)"),
      Switch("recompute", &AdviseFlags::recompute,
             "compute the findings again with the CUSCOPE_ADVISE_* thresholds of the environment "
             "(docs/configuration.md) instead of reading those stored in the profile"),
  };
  return *flags;
}

std::string Help() { return CommandHelp(kAdviseCommand.usage, kAdviseCommand.summary, Flags()); }

// The findings of `profile`: stored, else (or with `recompute`) computed.
absl::StatusOr<std::vector<model::Finding>> Findings(const model::Profile& profile,
                                                     bool recompute) {
  if (!recompute && profile.findings) return *profile.findings;
  absl::StatusOr<model::AdviseThresholds> thresholds = config::ThresholdsFromEnv(std::getenv);
  if (!thresholds.ok()) return thresholds.status();
  return analysis::Advise(profile, *thresholds);
}

int Main(const std::vector<std::string>& words, const std::vector<std::string>&) {
  AdviseFlags flags;
  absl::StatusOr<Words> args = ParseFlags(Flags(), words, &flags);
  if (!args.ok()) return UsageError("advise", args.status().message());
  if (args->positional.size() != 1) {
    return UsageError("advise", absl::StrCat("expected exactly one PROFILE argument, got ",
                                             args->positional.size()));
  }
  const std::string& path = args->positional[0];
  const int top = flags.top;
  if (int code = RefuseToOverwrite("advise", "output", path, flags.output)) return code;
  std::optional<model::Profile> loaded = LoadOrSay("advise", path);
  if (!loaded) return 1;
  const model::Profile& profile = *loaded;
  absl::StatusOr<std::vector<model::Finding>> findings = Findings(profile, flags.recompute);
  if (!findings.ok()) {
    std::cerr << "cuscope: advise: " << findings.status().message() << "\n";
    return 1;
  }
  Output out;
  if (!out.Open("advise", flags.output)) return 1;
  if (flags.format == Format::kText) {
    report::WriteFindingsText(profile, *findings, report::KernelNameCut(profile), top,
                              report::ReportOptions{}.max_name_width, report::ReportOptions{}.width,
                              "(--top 0 lists them all)", out.stream());
  } else {
    report::json::Document doc;
    doc.writer().StartObject();
    report::WriteFindingsJson(doc.writer(), profile, *findings, top);
    doc.writer().EndObject();
    doc.WriteTo(out.stream());
  }
  return out.Finish();
}

}  // namespace

const Command kAdviseCommand = {
    "advise",
    "cuscope advise PROFILE [FLAGS]",
    "Prints the findings of a profile, ranked by estimated gain: what costs time (GPU idle "
    "gaps, synchronizations, copies, launch overhead, slow kernels' causes), where, and what "
    "to do (docs/advisor.md).",
    false,
    Help,
    Main};

}  // namespace cuscope::cli
