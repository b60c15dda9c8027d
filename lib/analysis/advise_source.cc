// The source_stalls rule (docs/advisor.md): a kernel function's hottest source line,
// from PC samples, when most of the function's samples sit there stalled for one reason
// that has a known remedy (memory, shared memory, math pipe, barrier).
#include <algorithm>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "lib/analysis/advise_rules.h"
#include "lib/analysis/source_hotspots.h"

namespace cuscope::analysis::advise {
namespace {

using model::StallKind;

// The share of a function's samples its hottest line must hold to be named.
constexpr double kMinLinePct = 30;
// The share of that line's samples its top stall must hold.
constexpr double kMinStallPct = 40;
// The gain assumed: this share of the time the line's top stall holds.
constexpr double kGainShare = 0.5;

const char* Remedy(StallKind kind) {
  switch (kind) {
    case StallKind::kLongScoreboard:
    case StallKind::kLgThrottle:
      return "Coalesce the loads of this line (neighbouring threads reading neighbouring "
             "addresses), reuse data through shared memory or registers, or keep more loads in "
             "flight per thread.";
    case StallKind::kShortScoreboard:
    case StallKind::kMioThrottle:
      return "Reduce shared-memory bank conflicts on this line (pad the array, change the "
             "access stride) or the special-math instructions it issues.";
    case StallKind::kWait:
    case StallKind::kMathPipeThrottle:
    case StallKind::kTensor:
      return "This line is math bound: break long dependent chains into independent ones "
             "(more instruction-level parallelism), use cheaper or tensor-core instructions.";
    case StallKind::kBarrier:
    case StallKind::kMembar:
      return "Warps wait for each other at a barrier on this line: balance the work before "
             "it, or synchronize less often.";
    default:
      return nullptr;
  }
}

// GPU time of the kernels named `mangled`.
uint64_t KernelTimeNs(const model::Profile& p, const std::string& mangled) {
  uint64_t ns = 0;
  for (const model::KernelRecord& k : p.kernels) {
    if (p.str(k.mangled_name) == mangled) ns += k.duration_ns();
  }
  return ns;
}

}  // namespace

void SourceStalls(const Context& c, std::vector<model::Finding>& out) {
  if (c.profile.pc_samples.empty()) return;
  HotspotOptions options;
  options.top_functions = 0;
  options.top_lines = 1;
  options.top_stalls = 1;
  for (const FunctionHotspots& f : FindSourceHotspots(c.profile, options).functions) {
    if (f.lines.empty() || f.lines[0].stalls.empty()) continue;
    const HotLine& line = f.lines[0];
    const PcStallShare& stall = line.stalls[0];
    const char* remedy = Remedy(stall.kind);
    if (remedy == nullptr || line.pct < kMinLinePct || stall.pct < kMinStallPct) continue;
    const double share = line.pct / 100 * stall.pct / 100;
    const uint64_t kernel_ns = KernelTimeNs(c.profile, f.mangled);
    model::Finding finding =
        c.Make("source_stalls", static_cast<double>(kernel_ns) * share * kGainShare,
               model::GainBasis::kGpu);
    finding.kernel = f.name;
    if (!c.Keeps(finding)) continue;
    const std::string where =
        line.line != 0
            ? absl::StrCat("line ", line.line, " (", line.file, ")")
            : absl::StrFormat("PC +0x%x (no line info: build with -lineinfo)", line.pc_offset);
    const std::string text(absl::StripAsciiWhitespace(line.text));
    finding.summary = absl::StrFormat(
        "%.0f%% of the samples of this kernel are on %s, and %.0f%% of those %s (%s)%s", line.pct,
        where, stall.pct, model::StallWords(stall.kind), model::StallKindKey(stall.kind),
        text.empty() ? "" : absl::StrCat(": ", text.substr(0, 120)));
    finding.advice = remedy;
    finding.evidence = {{"line", line.line},
                        {"line_pct", line.pct},
                        {"stall_pct", stall.pct},
                        {"samples", static_cast<double>(f.samples)}};
    out.push_back(std::move(finding));
  }
}

}  // namespace cuscope::analysis::advise
