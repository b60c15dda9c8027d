// `cuscope _end-run PROFILE [--report] [--library-version=V]`: the end of a profiled
// process's run in a process of its own, so that reading the profile back does not
// grow the profiled program (lib/inject/end_process.h starts it and waits): the
// profile read back, the advisor's findings computed and stored in it
// (CUSCOPE_ADVISE), and with --report the text report on stderr, as
// lib/inject/run_end.cc does when no command is at hand. The settings are those of
// the environment, which the profiled process sets to its own. Not listed by
// `cuscope --help`.
//
// Exit codes: 0 done (a failure to store the findings is said and still 0: the profile
// stays valid); 1 the profile could not be read back (said); 2 a usage error; 3 the
// library is another version than this command (nothing done: the library then ends
// the run itself).
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cuscope/version.h"
#include "lib/analysis/advise.h"
#include "lib/cli/commands.h"
#include "lib/cli/flags.h"
#include "lib/cli/typed_flags.h"
#include "lib/config/from_env.h"
#include "lib/config/report_width.h"
#include "lib/report/report.h"
#include "lib/store/reader.h"
#include "lib/store/writer.h"

namespace cuscope::cli {
namespace {

constexpr int kOtherVersion = 3;

struct EndRunFlags {
  bool report = false;
  std::string library_version;
};

const FlagTable<EndRunFlags>& Flags() {
  static const auto* flags = new FlagTable<EndRunFlags>{
      Switch("report", &EndRunFlags::report, "print the text report on stderr"),
      Text("library_version", &EndRunFlags::library_version, "VERSION",
           "the version of the libcuscope.so that recorded the profile: another than this "
           "command's exits 3 having done nothing"),
  };
  return *flags;
}

std::string Help() { return CommandHelp(kEndRunCommand.usage, kEndRunCommand.summary, Flags()); }

// One line on stderr, as the library says it ("cuscope: ...").
void Say(const std::string& message) {
  const std::string line = absl::StrCat("cuscope: ", message, "\n");
  ssize_t n = write(STDERR_FILENO, line.data(), line.size());
  (void)n;
}

// The findings computed and stored in the profile at `path`; a failure to store them
// is said.
std::vector<model::Finding> StoreFindings(const model::Profile& profile, const std::string& path,
                                          const config::Config& config) {
  std::vector<model::Finding> findings = analysis::Advise(profile, config.thresholds);
  absl::StatusOr<std::unique_ptr<store::ProfileWriter>> writer =
      store::ProfileWriter::OpenFinished(path);
  absl::Status st = writer.ok() ? (*writer)->WriteFindings(findings) : writer.status();
  if (st.ok()) st = (*writer)->Close();
  if (!st.ok()) {
    Say(absl::StrCat("storing the findings failed (`cuscope advise` computes them): ",
                     st.message()));
  }
  return findings;
}

int Main(const std::vector<std::string>& words, const std::vector<std::string>&) {
  EndRunFlags flags;
  absl::StatusOr<Words> args = ParseFlags(Flags(), words, &flags);
  if (!args.ok()) return UsageError("_end-run", args.status().message());
  if (args->positional.size() != 1) return UsageError("_end-run", "expected one PROFILE");
  if (!flags.library_version.empty() && flags.library_version != CUSCOPE_VERSION_STRING) {
    return kOtherVersion;
  }
  absl::StatusOr<config::Config> config = config::ConfigFromEnv(std::getenv);
  if (!config.ok()) return UsageError("_end-run", config.status().message());
  const std::string& path = args->positional[0];
  absl::StatusOr<model::Profile> profile = store::LoadProfile(path);
  if (!profile.ok()) {
    Say(absl::StrCat("cannot read the profile back for the report: ", profile.status().message()));
    return 1;
  }
  profile->findings.emplace();
  if (config->advise) profile->findings = StoreFindings(*profile, path, *config);
  if (!flags.report) return 0;
  report::ReportOptions options;
  options.top = config->report_top;
  options.width = config::ReportWidth(config->report_width, STDERR_FILENO);
  if (!config->advise) options.findings = -1;
  std::ostringstream text;
  report::WriteText(report::BuildReport(*profile, config->thresholds), options, text);
  const std::string out = text.str();
  ssize_t n = write(STDERR_FILENO, out.data(), out.size());
  (void)n;
  return 0;
}

}  // namespace

const Command kEndRunCommand = {
    "_end-run",
    "cuscope _end-run PROFILE [--report] [--library-version=VERSION]",
    "The end of a profiled process's run, which libcuscope.so runs in a process of its own: "
    "the profile's findings computed and stored in it (CUSCOPE_ADVISE), and with --report "
    "the text report on stderr, with the settings of the environment.",
    false,
    Help,
    Main};

}  // namespace cuscope::cli
