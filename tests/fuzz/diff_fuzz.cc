// `cuscope diff` of any profile that loads against a recorded one, both ways, as
// text, JSON (which must parse) and the HTML page.
#include <cstdlib>
#include <sstream>
#include <string>

#include "lib/analysis/compare.h"
#include "lib/report/diff.h"
#include "lib/report/html_diff.h"
#include "tests/fuzz/fuzz_profile.h"

namespace {

const cuscope::model::Profile& Recorded() {
  static const cuscope::model::Profile* const profile = [] {
    auto loaded = cuscope::store::LoadProfile(CUSCOPE_FUZZ_DIFF_PROFILE);
    if (!loaded.ok()) std::abort();
    return new cuscope::model::Profile(*std::move(loaded));
  }();
  return *profile;
}

void Diff(const cuscope::model::Profile& base, const cuscope::model::Profile& next) {
  const cuscope::analysis::Comparison c = cuscope::analysis::Compare(base, next);
  std::ostringstream text, json;
  cuscope::report::WriteComparisonText(c, "base", "new", cuscope::fuzz::AllRows(), text);
  cuscope::fuzz::CheckText(text.str());
  cuscope::report::WriteComparisonJson(c, "base", "new", cuscope::fuzz::AllRows(), json);
  cuscope::fuzz::CheckJson(json.str());
  const std::string html = cuscope::report::RenderHtmlDiff(c, "base", "new");
  if (html.find("</html>") == std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<cuscope::model::Profile> profile = cuscope::fuzz::LoadBytes(data, size);
  if (!profile) return 0;
  Diff(Recorded(), *profile);
  Diff(*profile, Recorded());
  return 0;
}
