#include "lib/report/counter_outcome_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace cuscope::report {
namespace {

using analysis::Shortfall;
using analysis::ShortfallKind;

std::string Plural(uint64_t n, const char* one, const char* many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

std::string ShortfallText(const analysis::CounterOutcome& o, const Shortfall& s) {
  switch (s.kind) {
    case ShortfallKind::kStatus:
      return s.text;
    case ShortfallKind::kMetricsDropped:
      return absl::StrCat("metrics this GPU does not have: ", s.text);
    case ShortfallKind::kLoopTooShort:
      return absl::StrFormat(
          "the loop ended before rotate could complete a set (%s; rotate needs >= %d for %s)",
          Plural(s.count, "step", "steps"), s.needs, Plural(s.passes, "pass", "passes"));
    case ShortfallKind::kStartupOnly:
      return absl::StrFormat("%d ran only before the first step (%s measures the loop)", s.count,
                             o.strategy);
    case ShortfallKind::kSetsDropped:
      return absl::StrCat(Plural(s.count, "set", "sets"), " dropped",
                          s.text.empty() ? "" : absl::StrCat(" (", s.text, ")"));
    case ShortfallKind::kKernelsFilter:
      return absl::StrCat("kernels='", s.text, "' leaves the others out");
    case ShortfallKind::kRegionsFilter:
      return absl::StrCat("regions='", s.text, "' leaves launches outside them out");
    case ShortfallKind::kLaunchCount:
      return absl::StrCat("launch_count=", s.count, " reached");
    case ShortfallKind::kNccl:
      return absl::StrCat(Plural(s.count, "NCCL launch", "NCCL launches"), ", never measured");
    case ShortfallKind::kCaptured:
      return absl::StrCat(Plural(s.count, "launch", "launches"),
                          " during stream capture, never measured");
    case ShortfallKind::kGraphOnly:
      return absl::StrFormat(
          "%d ran only inside CUDA graphs, which the Range Profiler does not measure kernel "
          "by kernel (--gpu-metrics=1 samples them and gives each a verdict)",
          s.count);
    case ShortfallKind::kBudget:
      return "rotate's time budget allowed no set at times (note budget_idle)";
    case ShortfallKind::kBackoff:
      return "the sweep backed off after windows that kept no sample (note backoff)";
    case ShortfallKind::kUnexplained:
      return absl::StrCat(s.count, " not measured; the notes do not say why");
  }
  return "";
}

}  // namespace

std::string AskedText(const analysis::CounterOutcome& o) {
  if (!o.settings_recorded) {
    return absl::StrCat(o.strategy.empty() ? "" : absl::StrCat("by ", o.strategy, " "),
                        "(settings not recorded)");
  }
  // The replay setting by the strategy's name ("kernel" is kernel replay).
  const std::string replay = o.replay == "kernel" ? "kernel replay" : o.replay;
  std::string by = o.regions || replay.empty() ? o.strategy : replay;
  if (!o.regions && !o.strategy.empty() && o.strategy != replay && !replay.empty()) {
    absl::StrAppend(&by, " (", o.strategy, ")");
  }
  return absl::StrCat("asked ", o.metrics, by.empty() ? "" : absl::StrCat(" by ", by));
}

std::vector<std::string> ShortfallTexts(const analysis::CounterOutcome& o) {
  std::vector<std::string> out;
  for (const Shortfall& s : o.shortfalls) out.push_back(ShortfallText(o, s));
  return out;
}

std::string CounterOutcomeLine(const analysis::CounterOutcome& o) {
  if (!o.asked) return "";
  std::string line = absl::StrCat("counters: ", AskedText(o), "; measured ");
  if (o.regions) {
    absl::StrAppend(&line, Plural(o.measured, "region", "regions"));
  } else {
    absl::StrAppend(&line, o.measured, " of ", Plural(o.signatures, "signature", "signatures"));
  }
  const std::vector<std::string> why = ShortfallTexts(o);
  if (!why.empty()) absl::StrAppend(&line, ": ", absl::StrJoin(why, "; "));
  return line;
}

}  // namespace cuscope::report
