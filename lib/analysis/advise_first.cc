// The first-iteration rule: the first instance of a repeated region (NVTX range,
// cuscope scope) against the median of the others. One-time costs land there:
// module loading, autotuning, allocator warm-up, compilation. cuscope's own time
// (kernel replay, counter windows: own_time.h) is left out of every instance first.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "lib/analysis/advise_rules.h"
#include "lib/analysis/summary.h"

namespace cuscope::analysis::advise {

std::pair<uint64_t, uint64_t> FirstIteration(const Context& c, std::vector<model::Finding>& out) {
  // Instances by (name, domain), in record order.
  absl::flat_hash_map<uint64_t, std::vector<uint32_t>> by_name;
  const std::vector<model::RangeRecord>& ranges = c.profile.ranges;
  for (uint32_t i = 0; i < ranges.size(); ++i) {
    const model::RangeRecord& r = ranges[i];
    if (r.source == model::RangeSource::kNvtxMark || !HasValidTimes(r) || r.end_ns == r.start_ns) {
      continue;
    }
    by_name[uint64_t{r.name} << 32 | r.domain].push_back(i);
  }
  // An instance's duration without cuscope's own time.
  auto program_ns = [&c](const model::RangeRecord& r) {
    return static_cast<double>(r.duration_ns() - c.own.Within(r.start_ns, r.end_ns));
  };
  const model::RangeRecord* best = nullptr;
  double best_gain = 0, best_median = 0, best_ns = 0;
  size_t best_count = 0;
  for (auto& [key, instances] : by_name) {
    if (instances.size() < 3) continue;
    std::sort(instances.begin(), instances.end(), [&](uint32_t a, uint32_t b) {
      return ranges[a].start_ns != ranges[b].start_ns ? ranges[a].start_ns < ranges[b].start_ns
                                                      : a < b;
    });
    std::vector<double> rest;
    for (size_t i = 1; i < instances.size(); ++i) {
      rest.push_back(program_ns(ranges[instances[i]]));
    }
    const double median = Median(std::move(rest));
    const model::RangeRecord& first = ranges[instances[0]];
    const double d = program_ns(first);
    if (d <= c.t.first_factor * median) continue;
    const double gain = d - median;
    // The largest gain; on a tie the outer (longer, earlier) region.
    if (best == nullptr || gain > best_gain ||
        (gain == best_gain && first.duration_ns() > best->duration_ns())) {
      best = &first;
      best_ns = d;
      best_gain = gain;
      best_median = median;
      best_count = instances.size();
    }
  }
  if (best == nullptr) return {0, 0};
  model::Finding f = c.Make("first_iteration", best_gain, model::GainBasis::kWall);
  if (!c.Keeps(f)) return {0, 0};
  uint64_t loading = 0;
  for (const model::ApiRecord& a : c.profile.api_calls) {
    if (c.KindOf(a) == ApiKind::kModuleLoad && HasValidTimes(a) && a.start_ns >= best->start_ns &&
        a.end_ns <= best->end_ns) {
      loading += a.duration_ns();
    }
  }
  const double first_ns = best_ns;
  const double own_ns = static_cast<double>(best->duration_ns()) - first_ns;
  f.summary = absl::StrFormat(
      "The first of %d '%s' instances took %s%s, %.1fx the median of the others (%s)%s", best_count,
      c.profile.str(best->name), Dur(first_ns),
      own_ns > 0 ? absl::StrFormat(" besides cuscope's own %s", Dur(own_ns)) : "",
      best_median > 0 ? first_ns / best_median : 0.0, Dur(best_median),
      loading > 0
          ? absl::StrFormat("; %s of it in module loading", Dur(static_cast<double>(loading)))
          : "");
  f.advice =
      "One-time costs land in the first iteration (module loading, cuDNN/cuBLAS autotuning, "
      "allocator warm-up, compilation): leave warm-up steps out of measurements; for short "
      "runs cache compilation and autotuning results, or load modules eagerly "
      "(CUDA_MODULE_LOADING=EAGER) before the timed part.";
  f.evidence = {{"instances", static_cast<double>(best_count)},
                {"first_ns", first_ns},
                {"median_others_ns", best_median},
                {"module_load_ns", static_cast<double>(loading)},
                {"cuscope_own_ns", own_ns}};
  f.start_ns = best->start_ns;
  f.end_ns = best->end_ns;
  f.thread_id = best->thread_id;
  f.region = c.RegionAt(best->start_ns, best->thread_id);
  out.push_back(std::move(f));
  return {best->start_ns, best->end_ns};
}

}  // namespace cuscope::analysis::advise
