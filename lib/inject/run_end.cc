#include "lib/inject/run_end.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/analysis/advise.h"
#include "lib/config/report_width.h"
#include "lib/inject/warn.h"
#include "lib/report/report.h"
#include "lib/store/reader.h"

namespace cuscope::inject {
namespace {

// Whether this process prints the report: of several ranks, only report_rank.
bool PrintsReport(const RunEnd& end) {
  return end.config.report == config::ReportMode::kText &&
         (end.rank < 0 || end.config.report_rank < 0 || end.rank == end.config.report_rank);
}

// The text report of `profile` on stderr, ending with its top five findings (none
// with CUSCOPE_ADVISE=0).
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

std::optional<model::Profile> EndProfile(const std::string& path, store::ProfileWriter& writer,
                                         const config::Config& config,
                                         const std::function<void(const std::string&)>& warn) {
  if (!config.advise && config.report != config::ReportMode::kText) return std::nullopt;
  absl::StatusOr<model::Profile> profile = store::LoadProfile(path);
  if (!profile.ok()) {
    warn(absl::StrCat("cannot read the profile back for the report: ", profile.status().message()));
    return std::nullopt;
  }
  if (!config.advise) {
    profile->findings.emplace();
    return std::move(*profile);
  }
  std::vector<model::Finding> findings = analysis::Advise(*profile, config.thresholds);
  if (absl::Status st = writer.WriteFindings(findings); !st.ok()) {
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
  if (PrintsReport(end) && !end.on_signal && end.profile != nullptr) {
    PrintReport(*end.profile, end.config);
  }
  Warn(absl::StrCat("profile written to ", end.path));
  TellCommand(absl::StrCat("written ", end.path));
}

}  // namespace cuscope::inject
