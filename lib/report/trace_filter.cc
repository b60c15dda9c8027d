#include "lib/report/trace_filter.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "lib/analysis/summary.h"
#include "lib/model/demangle.h"
#include "lib/model/pattern.h"
#include "lib/report/format.h"

namespace cuscope::report {

using analysis::HasValidTimes;

absl::StatusOr<TraceFilter> TraceFilter::Create(const model::Profile& profile,
                                                const TraceOptions& options) {
  TraceFilter f(profile);
  const uint64_t start =
      profile.run.start_ns != 0 ? profile.run.start_ns : profile.TimeSpan().first;
  if (options.from_ns) f.lo_ = start + *options.from_ns;
  if (options.to_ns) f.hi_ = start + *options.to_ns;
  if (f.lo_ > f.hi_) {
    return absl::InvalidArgumentError("the window is empty: --from is after --to");
  }
  std::optional<model::Pattern> kernels;
  if (!options.kernels.empty()) {
    absl::StatusOr<model::Pattern> p = model::Pattern::Compile(options.kernels);
    if (!p.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--kernels: ", p.status().message()));
    }
    kernels = std::move(*p);
  }
  if (!options.regions.empty()) {
    absl::StatusOr<model::Pattern> p = model::Pattern::Compile(options.regions);
    if (!p.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--regions: ", p.status().message()));
    }
    f.by_regions_ = true;
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const model::RangeRecord& r : profile.ranges) {
      if (HasValidTimes(r) && r.end_ns > r.start_ns && p->Search(profile.str(r.name))) {
        spans.emplace_back(r.start_ns, r.end_ns);
      }
    }
    std::sort(spans.begin(), spans.end());
    for (const auto& s : spans) {
      if (!f.regions_.empty() && s.first <= f.regions_.back().second) {
        f.regions_.back().second = std::max(f.regions_.back().second, s.second);
      } else {
        f.regions_.push_back(s);
      }
    }
  }
  if (kernels || f.by_regions_ || options.from_ns || options.to_ns) {
    f.apis_ = analysis::ApiByCorrelation(profile);
    f.FilterKernels(options, kernels ? &*kernels : nullptr);
  }
  if (options.aggregate_below_ns > 0) f.Aggregate(options.aggregate_below_ns);
  f.sample_bin_ns_ = options.sample_bin_ns;
  f.NoteWhatIsLeftOut(options, start, kernels ? &*kernels : nullptr);
  return f;
}

void TraceFilter::NoteWhatIsLeftOut(const TraceOptions& options, uint64_t start,
                                    const model::Pattern* kernels) {
  const auto [first, last] = p_.TimeSpan();
  const uint64_t end = std::max(p_.run.end_ns, last);
  const bool events = first != 0 || last != 0;
  if (options.from_ns && events && lo_ > end) {
    warnings_.push_back(absl::StrCat("--from=", FormatDuration(double(*options.from_ns)),
                                     " starts after the run's end (it lasted ",
                                     FormatDuration(double(end - start)),
                                     " from its start): the trace has no events"));
  } else if (options.to_ns && events && hi_ < first) {
    warnings_.push_back(absl::StrCat(
        "--to=", FormatDuration(double(*options.to_ns)), " ends before the run's first event (",
        FormatDuration(double(first - start)), " after its start): the trace has no events"));
  }
  if (by_regions_ && regions_.empty()) {
    warnings_.push_back(absl::StrCat("--regions=", options.regions, " matches none of the run's ",
                                     p_.ranges.size(),
                                     " NVTX ranges and scopes: the trace has no events"));
  }
  if (kernels == nullptr || p_.kernels.empty() ||
      std::find(keep_kernel_.begin(), keep_kernel_.end(), 1) != keep_kernel_.end()) {
    return;
  }
  analysis::KernelNameIndex names(p_);
  for (const model::KernelRecord& k : p_.kernels) names.Id(k);
  bool any = false;
  for (uint32_t id = 0; id < names.size() && !any; ++id) {
    any = kernels->Search(model::Demangle(names.Name(id)));
  }
  if (!any) {
    warnings_.push_back(absl::StrCat("--kernels=", options.kernels, " matches none of the run's ",
                                     names.size(),
                                     " kernel names: the trace has no kernels (copies, sets and "
                                     "the other events stay)"));
  } else if (warnings_.empty()) {
    warnings_.push_back(absl::StrCat("--kernels=", options.kernels,
                                     " matches no kernel that the window and regions keep: the "
                                     "trace has no kernels"));
  }
}

bool TraceFilter::InRegions(uint64_t start_ns, uint64_t end_ns) const {
  if (!by_regions_) return true;
  // The first span ending at or after start; kept when it starts by end.
  auto it = std::lower_bound(
      regions_.begin(), regions_.end(), start_ns,
      [](const std::pair<uint64_t, uint64_t>& s, uint64_t t) { return s.second < t; });
  return it != regions_.end() && it->first <= end_ns;
}

bool TraceFilter::KeepHost(uint64_t start_ns, uint64_t end_ns) const {
  return InWindow(start_ns, end_ns) && InRegions(start_ns, end_ns);
}

bool TraceFilter::KeepApi(uint32_t index) const {
  if (!api_dropped_.empty() && api_dropped_[index]) return false;
  const model::ApiRecord& a = p_.api_calls[index];
  return KeepHost(a.start_ns, a.end_ns);
}

// GPU work: in the window by its own times; in a region when the call that
// launched it was (or, when no call is known, by its own times).
template <typename Rec>
bool TraceFilter::KeepGpu(const Rec& r) const {
  if (!InWindow(r.start_ns, r.end_ns)) return false;
  if (!by_regions_) return true;
  const uint32_t api =
      r.correlation_id != 0 ? apis_.Find(r.correlation_id) : analysis::ApiByCorrelation::kNone;
  if (api == analysis::ApiByCorrelation::kNone) return InRegions(r.start_ns, r.end_ns);
  const model::ApiRecord& a = p_.api_calls[api];
  return InRegions(a.start_ns, a.start_ns);
}

bool TraceFilter::KeepMemcpy(const model::MemcpyRecord& m) const { return KeepGpu(m); }
bool TraceFilter::KeepMemset(const model::MemsetRecord& m) const { return KeepGpu(m); }

// Kernels by window, region and name; the calls that launched a dropped kernel go
// with it.
void TraceFilter::FilterKernels(const TraceOptions& options, const model::Pattern* kernels) {
  keep_kernel_.assign(p_.kernels.size(), 1);
  std::vector<int8_t> name_matches;  // per KernelNameIndex id: -1 not asked yet
  analysis::KernelNameIndex names(p_);
  for (size_t i = 0; i < p_.kernels.size(); ++i) {
    const model::KernelRecord& k = p_.kernels[i];
    bool keep = KeepGpu(k);
    if (keep && kernels != nullptr) {
      const uint32_t id = names.Id(k);
      if (id >= name_matches.size()) name_matches.resize(id + 1, -1);
      if (name_matches[id] < 0) {
        name_matches[id] = kernels->Search(model::Demangle(names.Name(id))) ? 1 : 0;
      }
      keep = name_matches[id] == 1;
    }
    if (keep) continue;
    keep_kernel_[i] = 0;
    if (kernels == nullptr || k.correlation_id == 0) continue;
    const uint32_t api = apis_.Find(k.correlation_id);
    if (api == analysis::ApiByCorrelation::kNone) continue;
    if (api_dropped_.empty()) api_dropped_.assign(p_.api_calls.size(), 0);
    api_dropped_[api] = 1;
  }
}

// Runs of consecutive kept kernels on one stream, each shorter than `below_ns`.
void TraceFilter::Aggregate(uint64_t below_ns) {
  run_count_.assign(p_.kernels.size(), 1);
  struct Open {
    uint32_t first = 0;
    uint64_t end = 0;
  };
  absl::flat_hash_map<uint64_t, Open> open;  // (device << 32 | stream) -> the open run
  for (size_t i = 0; i < p_.kernels.size(); ++i) {
    const model::KernelRecord& k = p_.kernels[i];
    if (!HasValidTimes(k) || !KeepKernel(i)) continue;
    const uint64_t stream = (uint64_t{k.device_id} << 32) | k.stream_id;
    if (k.duration_ns() >= below_ns) {
      open.erase(stream);
      continue;
    }
    auto [it, fresh] = open.try_emplace(stream, Open{static_cast<uint32_t>(i), k.end_ns});
    if (fresh || k.start_ns < it->second.end) {  // a new run (or out of order)
      it->second = {static_cast<uint32_t>(i), k.end_ns};
      continue;
    }
    ++run_count_[it->second.first];
    run_count_[i] = 0;
    it->second.end = k.end_ns;
    run_end_[it->second.first] = k.end_ns;
  }
}

uint64_t TraceFilter::AggregateEnd(size_t index) const {
  auto it = run_end_.find(static_cast<uint32_t>(index));
  return it == run_end_.end() ? p_.kernels[index].end_ns : it->second;
}

}  // namespace cuscope::report
