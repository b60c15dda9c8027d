#include "lib/report/html_timeline.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "lib/analysis/summary.h"

namespace cuscope::report {
namespace {

// A lane while it is filled: dense bins, and per bin the longest kernel overlap.
struct DenseLane {
  std::vector<uint64_t> kernel_ns, memory_ns, top_overlap;
  std::vector<int32_t> top;
  uint64_t kernels = 0, memory_ops = 0;
};

class Binner {
 public:
  Binner(uint64_t start, uint64_t bin_ns, uint32_t count)
      : start_(start), bin_ns_(bin_ns), count_(count) {}

  DenseLane& Lane(uint32_t device, uint32_t stream) {
    DenseLane& lane = lanes_[{device, stream}];
    if (lane.kernel_ns.empty()) {
      lane.kernel_ns.assign(count_, 0);
      lane.memory_ns.assign(count_, 0);
      lane.top_overlap.assign(count_, 0);
      lane.top.assign(count_, -1);
    }
    return lane;
  }

  // Adds [s, e) to each bin it overlaps; `name` >= 0 for a kernel.
  void Add(DenseLane& lane, uint64_t s, uint64_t e, int32_t name) {
    const uint32_t first = BinOf(s);
    const uint32_t last = BinOf(e > s ? e - 1 : s);
    for (uint32_t b = first; b <= last; ++b) {
      const uint64_t lo = std::max(s, start_ + b * bin_ns_);
      const uint64_t hi = std::min(e, start_ + (b + 1) * bin_ns_);
      const uint64_t overlap = hi > lo ? hi - lo : 0;
      if (name < 0) {
        lane.memory_ns[b] += overlap;
        continue;
      }
      lane.kernel_ns[b] += overlap;
      if (lane.top[b] < 0 || overlap > lane.top_overlap[b]) {
        lane.top[b] = name;
        lane.top_overlap[b] = overlap;
      }
    }
  }

  std::map<std::pair<uint32_t, uint32_t>, DenseLane>& lanes() { return lanes_; }

 private:
  uint32_t BinOf(uint64_t t) const {
    const uint64_t b = (t - start_) / bin_ns_;
    return static_cast<uint32_t>(std::min<uint64_t>(b, count_ - 1));
  }

  uint64_t start_, bin_ns_;
  uint32_t count_;
  std::map<std::pair<uint32_t, uint32_t>, DenseLane> lanes_;
};

std::pair<uint64_t, uint64_t> GpuSpan(const model::Profile& p) {
  uint64_t lo = UINT64_MAX, hi = 0;
  auto take = [&](const auto& records) {
    for (const auto& r : records) {
      if (!analysis::HasValidTimes(r)) continue;
      lo = std::min(lo, r.start_ns);
      hi = std::max(hi, r.end_ns);
    }
  };
  take(p.kernels);
  take(p.memcpys);
  take(p.memsets);
  return lo > hi ? std::make_pair<uint64_t, uint64_t>(0, 0) : std::make_pair(lo, hi);
}

TimelineLane Sparse(uint32_t device, uint32_t stream, const DenseLane& dense, uint64_t bin_ns) {
  TimelineLane lane;
  lane.device_id = device;
  lane.stream_id = stream;
  lane.kernels = dense.kernels;
  lane.memory_ops = dense.memory_ops;
  for (uint32_t b = 0; b < dense.kernel_ns.size(); ++b) {
    if (dense.kernel_ns[b] == 0 && dense.memory_ns[b] == 0 && dense.top[b] < 0) continue;
    // Overlapping records of one stream (replays, placed times) can sum above the bin.
    TimelineBin bin{b, std::min(dense.kernel_ns[b], bin_ns), std::min(dense.memory_ns[b], bin_ns),
                    dense.top[b]};
    lane.busy_ns += bin.kernel_ns + bin.memory_ns;
    lane.bins.push_back(bin);
  }
  return lane;
}

}  // namespace

TimelineOverview BuildTimelineOverview(const model::Profile& profile, uint32_t bins) {
  TimelineOverview out;
  const auto [start, end] = GpuSpan(profile);
  if (end == 0 || bins == 0) return out;
  const uint64_t span = std::max<uint64_t>(end - start, 1);
  out.start_ns = start;
  out.end_ns = end;
  out.bin_ns = std::max<uint64_t>((span + bins - 1) / bins, 1);
  out.bin_count = static_cast<uint32_t>((span + out.bin_ns - 1) / out.bin_ns);
  Binner binner(start, out.bin_ns, out.bin_count);
  analysis::KernelNameIndex names(profile);
  for (const model::KernelRecord& k : profile.kernels) {
    if (!analysis::HasValidTimes(k)) continue;
    DenseLane& lane = binner.Lane(k.device_id, k.stream_id);
    ++lane.kernels;
    binner.Add(lane, k.start_ns, k.end_ns, static_cast<int32_t>(names.Id(k)));
  }
  auto add_memory = [&](const auto& records) {
    for (const auto& r : records) {
      if (!analysis::HasValidTimes(r)) continue;
      DenseLane& lane = binner.Lane(r.device_id, r.stream_id);
      ++lane.memory_ops;
      binner.Add(lane, r.start_ns, r.end_ns, -1);
    }
  };
  add_memory(profile.memcpys);
  add_memory(profile.memsets);
  for (const auto& [key, dense] : binner.lanes()) {
    out.lanes.push_back(Sparse(key.first, key.second, dense, out.bin_ns));
  }
  // Only the names some bin refers to, renumbered in first-use order.
  absl::flat_hash_map<int32_t, int32_t> renumber;
  for (TimelineLane& lane : out.lanes) {
    for (TimelineBin& bin : lane.bins) {
      if (bin.top < 0) continue;
      auto [it, added] = renumber.try_emplace(bin.top, static_cast<int32_t>(out.names.size()));
      if (added) out.names.push_back(names.Name(static_cast<uint32_t>(bin.top)));
      bin.top = it->second;
    }
  }
  return out;
}

}  // namespace cuscope::report
