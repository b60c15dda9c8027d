#include "lib/analysis/ranks.h"

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "lib/analysis/own_time.h"

namespace cuscope::analysis {
namespace {

// The step regions of `p` (steps.h): their name and durations, less cuscope's own time
// in each (own_time.h), in start order.
std::pair<std::string, std::vector<uint64_t>> StepDurations(const model::Profile& p) {
  const Steps steps = StepsOf(p);
  const OwnTime own(p);
  std::vector<uint64_t> durations;
  for (const auto& [start, end] : steps.spans) {
    durations.push_back(end - start - own.Within(start, end));
  }
  return {steps.name, durations};
}

RankColumn Column(const RankInput& in, const Summary& s) {
  const model::Profile& p = *in.profile;
  RankColumn c;
  c.label = in.label;
  c.rank = p.run.rank;
  c.pid = p.run.pid;
  c.host = p.run.hostname;
  c.wall_ns = s.wall_ns;
  for (const DeviceBusy& d : s.devices) c.gpu_busy_ns += d.busy_ns;
  c.kernel_ns = s.kernel_ns;
  c.kernel_count = s.kernel_count;
  for (const KernelSummaryRow& k : s.kernels) {
    if (absl::StrContains(absl::AsciiStrToLower(k.name), "nccl")) {
      c.nccl_ns += k.stats.total_ns;
      c.nccl_count += k.stats.count;
    }
  }
  return c;
}

uint64_t Median(std::vector<uint64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

Stragglers FindStragglers(const std::vector<RankColumn>& ranks,
                          const std::vector<std::string>& step_names) {
  Stragglers st;
  if (ranks.empty()) return st;
  bool steps = !step_names[0].empty();
  for (size_t r = 0; r < ranks.size(); ++r) steps = steps && step_names[r] == step_names[0];
  std::vector<uint64_t> measure(ranks.size());
  if (steps) {
    st.basis = "steps";
    st.step_name = step_names[0];
    st.steps_compared = ranks[0].step_ns.size();
    for (const RankColumn& c : ranks)
      st.steps_compared = std::min(st.steps_compared, c.step_ns.size());
    std::vector<uint64_t> skews;
    for (size_t i = 0; i < st.steps_compared; ++i) {
      uint64_t lo = UINT64_MAX, hi = 0;
      for (const RankColumn& c : ranks) {
        lo = std::min(lo, c.step_ns[i]);
        hi = std::max(hi, c.step_ns[i]);
      }
      skews.push_back(hi - lo);
      if (hi - lo > st.max_skew_ns) {
        st.max_skew_ns = hi - lo;
        st.max_skew_step = i;
      }
    }
    st.median_skew_ns = Median(skews);
    for (size_t r = 0; r < ranks.size(); ++r) {
      measure[r] = Median({ranks[r].step_ns.begin(), ranks[r].step_ns.begin() + st.steps_compared});
    }
  } else {
    st.basis = "wall";
    for (size_t r = 0; r < ranks.size(); ++r) measure[r] = ranks[r].wall_ns;
  }
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (measure[r] > measure[st.slowest]) st.slowest = r;
    if (measure[r] < measure[st.fastest]) st.fastest = r;
  }
  const uint64_t spread = measure[st.slowest] - measure[st.fastest];
  if (!steps) st.median_skew_ns = st.max_skew_ns = spread;
  if (measure[st.fastest] > 0)
    st.skew_percent = 100.0 * double(spread) / double(measure[st.fastest]);
  return st;
}

}  // namespace

RankComparison CompareRanks(const std::vector<RankInput>& inputs) {
  // By rank, then (no rank) in the order given.
  std::vector<size_t> order(inputs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const int ra = inputs[a].profile->run.rank, rb = inputs[b].profile->run.rank;
    if ((ra < 0) != (rb < 0)) return ra >= 0;
    return ra < rb;
  });
  RankComparison out;
  std::vector<std::string> step_names;
  std::map<std::string, size_t> kernel_row;
  for (size_t i : order) {
    const Summary s = Summarize(*inputs[i].profile);
    RankColumn c = Column(inputs[i], s);
    auto [step_name, steps] = StepDurations(*inputs[i].profile);
    c.step_ns = steps;
    c.steps = ComputeStats(steps);
    step_names.push_back(step_name);
    const size_t column = out.ranks.size();
    for (const KernelSummaryRow& k : s.kernels) {
      auto [it, added] = kernel_row.emplace(k.name, out.kernels.size());
      if (added) out.kernels.push_back({k.name, {}, {}, 0});
      RankKernelRow& row = out.kernels[it->second];
      row.total_ns.resize(inputs.size());
      row.count.resize(inputs.size());
      row.total_ns[column] += k.stats.total_ns;
      row.count[column] += k.stats.count;
      row.sum_ns += k.stats.total_ns;
    }
    out.ranks.push_back(std::move(c));
  }
  uint64_t least_nccl = UINT64_MAX;
  for (const RankColumn& c : out.ranks) least_nccl = std::min(least_nccl, c.nccl_ns);
  for (RankColumn& c : out.ranks) c.nccl_excess_ns = c.nccl_ns - least_nccl;
  std::stable_sort(
      out.kernels.begin(), out.kernels.end(),
      [](const RankKernelRow& a, const RankKernelRow& b) { return a.sum_ns > b.sum_ns; });
  out.stragglers = FindStragglers(out.ranks, step_names);
  return out;
}

}  // namespace cuscope::analysis
