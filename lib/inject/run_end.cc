#include "lib/inject/run_end.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/analysis/advise.h"
#include "lib/config/report_width.h"
#include "lib/inject/end_process.h"
#include "lib/inject/warn.h"
#include "lib/report/report.h"
#include "lib/store/reader.h"
#include "lib/store/writer.h"

namespace cuscope::inject {
namespace {

// Whether this process prints the report: of several ranks, only report_rank.
bool PrintsReport(const RunEnd& end) {
  return end.config.report == config::ReportMode::kText &&
         (end.rank < 0 || end.config.report_rank < 0 || end.rank == end.config.report_rank);
}

// The text report of `profile` on stderr, ending with its top five findings (none
// with CUSCOPE_ADVISE=0). lib/cli/end_run.cc prints it alike in its own process.
void PrintReport(const model::Profile& profile, const config::Config& config) {
  std::ostringstream text;
  report::ReportOptions options;
  options.top = config.report_top;
  options.width = config::ReportWidth(config.report_width, STDERR_FILENO);
  if (!config.advise) options.findings = -1;
  report::WriteText(report::BuildReport(profile, config.thresholds), options, text);
  const std::string out = text.str();
  ssize_t n = write(STDERR_FILENO, out.data(), out.size());
  (void)n;
}

}  // namespace

std::optional<model::Profile> EndProfile(const std::string& path, const config::Config& config,
                                         const std::function<void(const std::string&)>& warn) {
  absl::StatusOr<model::Profile> profile = store::LoadProfile(path);
  if (!profile.ok()) {
    warn(absl::StrCat("cannot read the profile back for the report: ", profile.status().message()));
    return std::nullopt;
  }
  profile->findings.emplace();
  if (!config.advise) return std::move(*profile);
  std::vector<model::Finding> findings = analysis::Advise(*profile, config.thresholds);
  absl::StatusOr<std::unique_ptr<store::ProfileWriter>> writer =
      store::ProfileWriter::OpenFinished(path);
  absl::Status st = writer.ok() ? (*writer)->WriteFindings(findings) : writer.status();
  if (st.ok()) st = (*writer)->Close();
  if (!st.ok()) {
    warn(absl::StrCat("storing the findings failed (`cuscope advise` computes them): ",
                      st.message()));
  }
  profile->findings = std::move(findings);
  return std::move(*profile);
}

void TellCommand(const std::string& line) {
  const char* log = std::getenv("CUSCOPE_RUN_LOG");
  if (log == nullptr || *log == '\0') return;
  int fd = open(log, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  const std::string text = line + "\n";
  ssize_t n = write(fd, text.data(), text.size());  // one short append: not interleaved
  (void)n;
  close(fd);
}

namespace {

// The findings and the report: by the end command when there is one, else here.
void EndRun(const RunEnd& end) {
  const bool prints = PrintsReport(end);
  if (end.on_signal || (!end.config.advise && !prints)) return;
  if (!end.end_command.empty() &&
      RunEndProcess(end.end_command, end.path, end.config, prints) == EndOutcome::kDone) {
    return;
  }
  std::optional<model::Profile> profile = EndProfile(end.path, end.config, Warn);
  if (profile && prints) PrintReport(*profile, end.config);
}

}  // namespace

void FinishRun(const RunEnd& end) {
  if (end.nothing_recorded) {
    std::remove(end.path.c_str());
    TellCommand(absl::StrCat("empty ", end.pid));
    // Under `cuscope run` the command says it once, for all its processes.
    if (std::getenv("CUSCOPE_RUN_LOG") == nullptr) {
      Warn(absl::StrCat("no CUDA work was seen in pid ", end.pid,
                        ": nothing to profile (no profile written)"));
    }
    return;
  }
  EndRun(end);
  Warn(absl::StrCat("profile written to ", end.path));
  TellCommand(absl::StrCat("written ", end.path));
}

}  // namespace cuscope::inject
