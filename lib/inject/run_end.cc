#include "lib/inject/run_end.h"

#include <unistd.h>

#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/analysis/advise.h"
#include "lib/report/report.h"
#include "lib/store/reader.h"

namespace cuscope::inject {

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

void PrintReport(const model::Profile& profile, const config::Config& config) {
  std::ostringstream text;
  report::ReportOptions options;
  options.top = config.report_top;
  if (!config.advise) options.findings = -1;
  report::WriteText(report::BuildReport(profile, config.thresholds), options, text);
  const std::string out = text.str();
  ssize_t n = write(STDERR_FILENO, out.data(), out.size());
  (void)n;
}

}  // namespace cuscope::inject
