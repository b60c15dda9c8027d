#include "lib/analysis/summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "lib/analysis/own_time.h"
#include "lib/model/checked.h"

namespace cuscope::analysis {
namespace {

// Rows ranked by total time, descending; ties by name so the order is stable.
template <typename Row, typename NameOf>
void RankByTotal(std::vector<Row>& rows, NameOf name_of) {
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (a.stats.total_ns != b.stats.total_ns) return a.stats.total_ns > b.stats.total_ns;
    return name_of(a) < name_of(b);
  });
}

template <typename Row>
void FillTimePercent(std::vector<Row>& rows) {
  uint64_t total = 0;
  for (const Row& r : rows) model::AddTo(total, r.stats.total_ns);
  for (Row& r : rows) {
    r.time_percent =
        total > 0 ? 100.0 * static_cast<double>(r.stats.total_ns) / static_cast<double>(total)
                  : 0.0;
  }
}

// "[CUDA memcpy HtoD pageable]": the copy direction and, for copies that touch
// host memory, the kind of host memory.
std::string MemcpyOperationName(model::MemcpyKind kind, model::MemoryKind src,
                                model::MemoryKind dst) {
  using model::MemcpyKind;
  using model::MemoryKind;
  std::string host;
  switch (kind) {
    case MemcpyKind::kHtoD:
    case MemcpyKind::kHtoA:
      if (src != MemoryKind::kUnknown) host = model::MemoryKindName(src);
      break;
    case MemcpyKind::kDtoH:
    case MemcpyKind::kAtoH:
      if (dst != MemoryKind::kUnknown) host = model::MemoryKindName(dst);
      break;
    case MemcpyKind::kHtoH:
      if (src != MemoryKind::kUnknown && dst != MemoryKind::kUnknown && src != dst) {
        host = absl::StrCat(model::MemoryKindName(src), "->", model::MemoryKindName(dst));
      } else if (src != MemoryKind::kUnknown) {
        host = model::MemoryKindName(src);
      }
      break;
    default:
      break;
  }
  if (host.empty()) return absl::StrCat("[CUDA memcpy ", model::MemcpyKindName(kind), "]");
  return absl::StrCat("[CUDA memcpy ", model::MemcpyKindName(kind), " ", host, "]");
}

struct Window {
  bool clip = false;
  uint64_t lo = 0, hi = 0;
};

// Adds [start, end) to `out`, clipped to the window when there is one.
void AddInterval(const Window& w, uint64_t start, uint64_t end,
                 std::vector<std::pair<uint64_t, uint64_t>>& out) {
  if (w.clip) {
    start = std::max(start, w.lo);
    end = std::min(end, w.hi);
  }
  if (end > start) out.emplace_back(start, end);
}

}  // namespace

DurationStats ComputeStats(std::vector<uint64_t> durations_ns) {
  DurationStats s;
  const size_t n = durations_ns.size();
  if (n == 0) return s;
  s.count = n;
  s.min_ns = durations_ns[0];
  s.max_ns = durations_ns[0];
  for (uint64_t d : durations_ns) {
    model::AddTo(s.total_ns, d);
    s.min_ns = std::min(s.min_ns, d);
    s.max_ns = std::max(s.max_ns, d);
  }
  const double mean = static_cast<double>(s.total_ns) / static_cast<double>(n);
  s.avg_ns = mean;
  if (n > 1) {
    double sum_sq = 0;
    for (uint64_t d : durations_ns) {
      const double diff = static_cast<double>(d) - mean;
      sum_sq += diff * diff;
    }
    s.stddev_ns = std::sqrt(sum_sq / static_cast<double>(n - 1));
  }
  // Median by selection: linear time, no full sort.
  auto mid = durations_ns.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(durations_ns.begin(), mid, durations_ns.end());
  const uint64_t upper = *mid;
  if (n % 2 == 1) {
    s.median_ns = static_cast<double>(upper);
  } else {
    const uint64_t lower = *std::max_element(durations_ns.begin(), mid);
    s.median_ns = static_cast<double>(lower) / 2.0 + static_cast<double>(upper) / 2.0;
  }
  return s;
}

uint64_t UnionLength(std::vector<std::pair<uint64_t, uint64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  uint64_t total = 0;
  bool open = false;
  uint64_t cur_start = 0, cur_end = 0;
  for (const auto& [start, end] : intervals) {
    if (end <= start) continue;
    if (!open) {
      cur_start = start;
      cur_end = end;
      open = true;
    } else if (start <= cur_end) {
      cur_end = std::max(cur_end, end);
    } else {
      model::AddTo(total, cur_end - cur_start);
      cur_start = start;
      cur_end = end;
    }
  }
  if (open) model::AddTo(total, cur_end - cur_start);
  return total;
}

uint32_t KernelNameIndex::Id(const model::KernelRecord& k) {
  const uint64_t ids = (uint64_t{k.name} << 32) | k.mangled_name;
  auto it = by_ids_.find(ids);
  if (it != by_ids_.end()) return it->second;
  const std::string& name = KernelDisplayName(profile_, k);
  auto [nit, inserted] = by_name_.try_emplace(name, static_cast<uint32_t>(names_.size()));
  if (inserted) names_.push_back(&name);
  by_ids_.emplace(ids, nit->second);
  return nit->second;
}

const std::string& KernelDisplayName(const model::Profile& profile,
                                     const model::KernelRecord& kernel) {
  static const std::string* const kUnnamed = new std::string("<unnamed kernel>");
  const std::string& name = profile.str(kernel.name);
  if (!name.empty()) return name;
  const std::string& mangled = profile.str(kernel.mangled_name);
  if (!mangled.empty()) return mangled;
  return *kUnnamed;
}

namespace {

// Each kernel record's display-name id (KernelNameIndex), and per name whether it has a
// launch with usable times that counters did not measure.
struct KernelNames {
  std::vector<uint32_t> id;  // per record; kNoName for unusable times
  std::vector<uint8_t> any_unmeasured;
  static constexpr uint32_t kNoName = 0xffffffffu;
};

KernelNames NameKernels(const model::Profile& profile, KernelNameIndex& names) {
  KernelNames out;
  out.id.assign(profile.kernels.size(), KernelNames::kNoName);
  for (size_t i = 0; i < profile.kernels.size(); ++i) {
    const model::KernelRecord& k = profile.kernels[i];
    if (!HasValidTimes(k)) continue;
    const uint32_t id = names.Id(k);
    out.id[i] = id;
    if (id == out.any_unmeasured.size()) out.any_unmeasured.push_back(0);
    if (!(k.flags & model::kKernelCountersMeasured)) out.any_unmeasured[id] = 1;
  }
  return out;
}

bool Timed(const model::KernelRecord& k, const KernelNames& names, size_t i) {
  const uint32_t id = names.id[i];
  if (id == KernelNames::kNoName) return false;
  return !(k.flags & model::kKernelCountersMeasured) || !names.any_unmeasured[id];
}

// Kernels, grouped by display name: each row's statistics are those of its timed
// launches (KernelTimeMask), its measured launches counted beside them.
void SummarizeKernels(const model::Profile& profile, Summary& out) {
  struct KernelGroup {
    std::vector<uint64_t> timed;
    uint64_t measured = 0;
  };
  KernelNameIndex kernel_names(profile);
  const KernelNames names = NameKernels(profile, kernel_names);
  std::vector<KernelGroup> kernel_groups(names.any_unmeasured.size());
  for (size_t i = 0; i < profile.kernels.size(); ++i) {
    const model::KernelRecord& k = profile.kernels[i];
    if (names.id[i] == KernelNames::kNoName) {
      ++out.invalid_records;
      continue;
    }
    KernelGroup& g = kernel_groups[names.id[i]];
    const bool measured = (k.flags & model::kKernelCountersMeasured) != 0;
    g.measured += measured ? 1 : 0;
    if (Timed(k, names, i)) {
      g.timed.push_back(k.duration_ns());
    } else if (measured) {
      ++out.measured_left_out;
    }
  }
  out.kernels.reserve(kernel_groups.size());
  for (size_t i = 0; i < kernel_groups.size(); ++i) {
    KernelGroup& g = kernel_groups[i];
    KernelSummaryRow row;
    row.name = kernel_names.Name(static_cast<uint32_t>(i));
    row.measured_launches = g.measured;
    row.all_measured = !names.any_unmeasured[i];
    row.stats = ComputeStats(std::move(g.timed));
    model::AddTo(out.measured_launches, g.measured);
    model::AddTo(out.kernel_ns, row.stats.total_ns);
    model::AddTo(out.timed_launches, row.stats.count);
    out.kernels.push_back(std::move(row));
  }
  FillTimePercent(out.kernels);
  RankByTotal(out.kernels, [](const KernelSummaryRow& r) -> const std::string& { return r.name; });
}

// CUDA API calls, by name.
void SummarizeApi(const model::Profile& profile, Summary& out) {
  std::vector<std::vector<uint64_t>> durations;
  std::vector<std::string> names;
  absl::flat_hash_map<std::string, uint32_t> by_name;
  // Key: the name id, or (for unnamed calls) the domain and callback id.
  absl::flat_hash_map<uint64_t, uint32_t> by_id;
  for (const model::ApiRecord& a : profile.api_calls) {
    if (!HasValidTimes(a)) {
      ++out.invalid_records;
      continue;
    }
    const uint64_t key = a.name != model::kEmptyString
                             ? uint64_t{a.name}
                             : (uint64_t{1} << 63) | (uint64_t(a.domain) << 32) | a.callback_id;
    auto it = by_id.find(key);
    if (it == by_id.end()) {
      std::string name = profile.str(a.name);
      if (name.empty()) {
        name = absl::StrCat(a.domain == model::ApiDomain::kDriver ? "<driver" : "<runtime",
                            " cbid ", a.callback_id, ">");
      }
      auto [nit, inserted] = by_name.try_emplace(name, static_cast<uint32_t>(names.size()));
      if (inserted) {
        names.push_back(std::move(name));
        durations.emplace_back();
      }
      it = by_id.emplace(key, nit->second).first;
    }
    durations[it->second].push_back(a.duration_ns());
  }
  for (size_t i = 0; i < names.size(); ++i) {
    ApiSummaryRow row;
    row.name = std::move(names[i]);
    row.stats = ComputeStats(std::move(durations[i]));
    out.api.push_back(std::move(row));
  }
  FillTimePercent(out.api);
  RankByTotal(out.api, [](const ApiSummaryRow& r) -> const std::string& { return r.name; });
}

// Memory operations: memcpy by direction and host memory kind, memset.
void SummarizeMemory(const model::Profile& profile, Summary& out) {
  struct MemGroup {
    std::vector<uint64_t> durations;
    uint64_t bytes = 0;
  };
  std::map<std::tuple<int, int, int>, MemGroup> copies;
  for (const model::MemcpyRecord& m : profile.memcpys) {
    if (!HasValidTimes(m)) {
      ++out.invalid_records;
      continue;
    }
    MemGroup& g = copies[{static_cast<int>(m.kind), static_cast<int>(m.src_kind),
                          static_cast<int>(m.dst_kind)}];
    g.durations.push_back(m.duration_ns());
    model::AddTo(g.bytes, m.bytes);
  }
  // Different (src, dst) pairs can share a display name ("[CUDA memcpy DtoD]").
  std::map<std::string, MemGroup> by_name;
  for (auto& [key, g] : copies) {
    const auto [kind, src, dst] = key;
    MemGroup& target = by_name[MemcpyOperationName(static_cast<model::MemcpyKind>(kind),
                                                   static_cast<model::MemoryKind>(src),
                                                   static_cast<model::MemoryKind>(dst))];
    target.durations.insert(target.durations.end(), g.durations.begin(), g.durations.end());
    model::AddTo(target.bytes, g.bytes);
  }
  MemGroup sets;
  for (const model::MemsetRecord& m : profile.memsets) {
    if (!HasValidTimes(m)) {
      ++out.invalid_records;
      continue;
    }
    sets.durations.push_back(m.duration_ns());
    model::AddTo(sets.bytes, m.bytes);
  }
  if (!sets.durations.empty()) by_name["[CUDA memset]"] = std::move(sets);
  for (auto& [name, g] : by_name) {
    MemorySummaryRow row;
    row.operation = name;
    row.total_bytes = g.bytes;
    row.stats = ComputeStats(std::move(g.durations));
    row.bandwidth_gbps = row.stats.total_ns > 0 ? static_cast<double>(row.total_bytes) /
                                                      static_cast<double>(row.stats.total_ns)
                                                : 0.0;
    out.memory.push_back(std::move(row));
  }
  FillTimePercent(out.memory);
  RankByTotal(out.memory,
              [](const MemorySummaryRow& r) -> const std::string& { return r.operation; });
}

// Per-device busy time: the devices the profile names plus any a record uses.
void SummarizeDevices(const model::Profile& profile, const Window& window, Summary& out) {
  struct DeviceIntervals {
    std::vector<std::pair<uint64_t, uint64_t>> kernels, others;
  };
  std::map<uint32_t, DeviceIntervals> per_device;
  for (const model::DeviceInfo& d : profile.devices) per_device[d.id];
  for (const model::KernelRecord& k : profile.kernels) {
    if (HasValidTimes(k))
      AddInterval(window, k.start_ns, k.end_ns, per_device[k.device_id].kernels);
  }
  for (const model::MemcpyRecord& m : profile.memcpys) {
    if (HasValidTimes(m)) AddInterval(window, m.start_ns, m.end_ns, per_device[m.device_id].others);
  }
  for (const model::MemsetRecord& m : profile.memsets) {
    if (HasValidTimes(m)) AddInterval(window, m.start_ns, m.end_ns, per_device[m.device_id].others);
  }
  for (auto& [id, iv] : per_device) {
    DeviceBusy busy;
    busy.device_id = id;
    if (const model::DeviceInfo* d = profile.FindDevice(id)) busy.device_name = d->name;
    busy.kernel_ns = UnionLength(iv.kernels);
    iv.others.insert(iv.others.end(), iv.kernels.begin(), iv.kernels.end());
    std::vector<std::pair<uint64_t, uint64_t>>().swap(iv.kernels);
    busy.busy_ns = UnionLength(std::move(iv.others));
    busy.busy_percent = out.wall_ns > 0 ? 100.0 * static_cast<double>(busy.busy_ns) /
                                              static_cast<double>(out.wall_ns)
                                        : 0.0;
    out.devices.push_back(std::move(busy));
  }
}

}  // namespace

std::vector<uint8_t> KernelTimeMask(const model::Profile& profile) {
  KernelNameIndex kernel_names(profile);
  const KernelNames names = NameKernels(profile, kernel_names);
  std::vector<uint8_t> mask(profile.kernels.size(), 0);
  for (size_t i = 0; i < profile.kernels.size(); ++i) {
    mask[i] = Timed(profile.kernels[i], names, i) ? 1 : 0;
  }
  return mask;
}

Summary Summarize(const model::Profile& profile) {
  Summary out;
  const model::RunInfo& run = profile.run;

  out.kernel_count = profile.kernels.size();
  out.memcpy_count = profile.memcpys.size();
  out.memset_count = profile.memsets.size();
  out.api_count = profile.api_calls.size();
  out.sync_count = profile.syncs.size();
  out.range_count = profile.ranges.size();
  out.dropped_records = run.dropped_records;

  // Wall time: the run's own window when it is known and sane, else the records' span.
  Window window;
  if (run.start_ns != 0 && run.end_ns > run.start_ns) {
    out.wall_ns = run.end_ns - run.start_ns;
    window = {true, run.start_ns, run.end_ns};
  } else {
    const auto [lo, hi] = profile.TimeSpan();
    out.wall_ns = hi > lo ? hi - lo : 0;
  }

  SummarizeKernels(profile, out);
  out.own_ns = OwnTime(profile).total_ns();
  SummarizeApi(profile, out);
  SummarizeMemory(profile, out);

  // Syncs, ranges and overheads only count towards invalid records here.
  for (const auto& s : profile.syncs) out.invalid_records += HasValidTimes(s) ? 0 : 1;
  for (const auto& r : profile.ranges) out.invalid_records += HasValidTimes(r) ? 0 : 1;
  for (const auto& o : profile.overheads) out.invalid_records += HasValidTimes(o) ? 0 : 1;

  SummarizeDevices(profile, window, out);
  const uint64_t program_ns = out.wall_ns > out.own_ns ? out.wall_ns - out.own_ns : 0;
  for (DeviceBusy& d : out.devices) {
    d.program_busy_percent =
        program_ns > 0 ? 100.0 * static_cast<double>(d.busy_ns) / static_cast<double>(program_ns)
                       : 0.0;
  }
  return out;
}

}  // namespace cuscope::analysis
