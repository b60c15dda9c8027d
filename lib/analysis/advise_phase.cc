// Start-up and the loop: with steps, a finding about what happens before the first
// step (or about the first instance of a repeated region, one-time warm-up) is a
// start-up finding. It says so, and ranks after the findings about the steps: those
// recur at every step of a longer run, start-up is paid once.
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/analysis/advise.h"
#include "lib/analysis/advise_rules.h"

namespace cuscope::analysis {

bool IsStartupFinding(const model::Finding& f) {
  for (const auto& [name, value] : f.evidence) {
    if (name == advise::kStartupEvidence) return value != 0;
  }
  return false;
}

namespace advise {
namespace {

// "The first of ..." as "the first of ...": a sentence's capital, not a name's.
std::string Lowered(std::string s) {
  if (s.size() > 1 && std::isupper(static_cast<unsigned char>(s[0])) &&
      std::islower(static_cast<unsigned char>(s[1]))) {
    s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  }
  return s;
}

}  // namespace

void MarkStartup(const Context& c, model::Finding& f) {
  if (IsStartupFinding(f)) return;
  const bool first = f.rule == "first_iteration";
  f.summary =
      absl::StrCat(first ? "Start-up (the first instance, one-time): "
                         : absl::StrCat("Start-up (before the first '", c.steps.name, "'): "),
                   Lowered(f.summary));
  if (!first) {
    absl::StrAppend(&f.advice, " It is paid once, before the loop: it does not slow the ",
                    c.steps.count(), " steps.");
  }
  f.evidence.emplace_back(kStartupEvidence, 1.0);
}

void MarkStartupFindings(const Context& c, std::vector<model::Finding>& out, size_t from) {
  if (c.steps.empty()) return;
  const uint64_t loop = c.steps.first_start_ns();
  for (size_t i = from; i < out.size(); ++i) {
    model::Finding& f = out[i];
    // Timeline findings of the start-up phase; a finding located wholly before the
    // loop; the first instance of a repeated region (warm-up).
    const bool located_before = f.end_ns > 0 && f.end_ns <= loop && f.kernel.empty();
    if (c.phase == Phase::kStartup || located_before || f.rule == "first_iteration") {
      MarkStartup(c, f);
    }
  }
}

}  // namespace advise
}  // namespace cuscope::analysis
