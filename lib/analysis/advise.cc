#include "lib/analysis/advise.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "lib/analysis/advise_context.h"
#include "lib/analysis/advise_rules.h"

namespace cuscope::analysis {

namespace {

// The rules that read the timeline, over the context's phase.
void TimelineRules(const advise::Context& c, std::vector<model::Finding>& out) {
  advise::IdleGaps(c, out);
  advise::LowUtilization(c, out);
  advise::SyncStalls(c, out);
  advise::SmallReads(c, out);
  advise::LaunchBound(c, out);
  advise::PageableCopies(c, out);
}

}  // namespace

std::vector<model::Finding> Advise(const model::Profile& profile,
                                   const model::AdviseThresholds& thresholds) {
  std::vector<model::Finding> out;
  advise::Context c(profile, thresholds);
  const auto [first_start, first_end] = advise::FirstIteration(c, out);
  c.AttributeGaps(first_start, first_end);
  if (c.steps.empty()) {
    TimelineRules(c, out);
  } else {
    for (advise::Phase phase : {advise::Phase::kStartup, advise::Phase::kLoop}) {
      c.phase = phase;
      const size_t from = out.size();
      TimelineRules(c, out);
      advise::MarkStartupFindings(c, out, from);
    }
    c.phase = advise::Phase::kWhole;
  }
  advise::DefaultStream(c, out);
  advise::KernelRules(c, out);
  advise::GemmNames(c, out);
  advise::SourceStalls(c, out);
  advise::MarkStartupFindings(c, out, 0);  // the first iteration's, the default stream's
  std::stable_sort(out.begin(), out.end(), [](const model::Finding& a, const model::Finding& b) {
    const bool sa = IsStartupFinding(a), sb = IsStartupFinding(b);
    return std::tie(sa, b.gain_ns, a.rule, a.kernel, a.start_ns) <
           std::tie(sb, a.gain_ns, b.rule, b.kernel, b.start_ns);
  });
  return out;
}

const std::vector<std::string>& AdviseRuleIds() {
  static const auto* ids = new std::vector<std::string>{"gpu_idle_gaps",
                                                        "low_gpu_utilization",
                                                        "sync_stalls",
                                                        "small_dtoh_reads",
                                                        "pageable_copies",
                                                        "launch_bound",
                                                        "first_iteration",
                                                        "default_stream",
                                                        "shared_bank_conflicts",
                                                        "uncoalesced_access",
                                                        "low_occupancy",
                                                        "small_grid",
                                                        "tail_wave",
                                                        "fp32_without_tensor_cores",
                                                        "fp64_in_fp32_program",
                                                        "misaligned_gemm",
                                                        "old_arch_gemm",
                                                        "dominant_stall",
                                                        "source_stalls"};
  return *ids;
}

std::vector<model::Finding> FindingsOf(const model::Profile& profile,
                                       const model::AdviseThresholds& thresholds) {
  if (profile.findings) return *profile.findings;
  return Advise(profile, thresholds);
}

}  // namespace cuscope::analysis
