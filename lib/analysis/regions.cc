#include "lib/analysis/regions.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "lib/analysis/own_time.h"
#include "lib/analysis/range_nesting.h"
#include "lib/model/checked.h"

namespace cuscope::analysis {
namespace {

constexpr uint32_t kNone = KernelRangeAttribution::kNone;

bool IsRegion(const model::RangeRecord& r) {
  return r.source != model::RangeSource::kNvtxMark && r.start_ns != 0 && r.end_ns > r.start_ns;
}

}  // namespace

KernelRangeAttribution AttributeKernelsToRanges(const model::Profile& profile) {
  if (profile.ranges.empty() || profile.kernels.empty()) {
    return AttributeKernelsToRanges(profile, ApiByCorrelation());  // nothing to attribute
  }
  return AttributeKernelsToRanges(profile, ApiByCorrelation(profile));
}

KernelRangeAttribution AttributeKernelsToRanges(const model::Profile& profile,
                                                const ApiByCorrelation& apis) {
  KernelRangeAttribution out;
  const auto& ranges = profile.ranges;
  out.range_parent.assign(ranges.size(), kNone);
  out.range_is_region.assign(ranges.size(), 0);
  out.kernel_range.assign(profile.kernels.size(), kNone);

  out.torch = AttributeTorch(profile, apis);
  // Regions per thread, nested by containment (op and Python line ranges are not regions).
  const RangeNesting regions(ranges, [&](uint32_t i) {
    return IsRegion(ranges[i]) && out.torch.roles[i] == RangeRole::kOther;
  });
  out.order = regions.order();
  for (uint32_t i : out.order) {
    out.range_is_region[i] = 1;
    out.range_parent[i] = regions.Parent(i);
  }
  if (out.order.empty() || profile.kernels.empty()) return out;

  for (size_t k = 0; k < profile.kernels.size(); ++k) {
    const model::KernelRecord& kernel = profile.kernels[k];
    if (!HasValidTimes(kernel) || kernel.correlation_id == 0) continue;
    const uint32_t api_index = apis.Find(kernel.correlation_id);
    if (api_index == ApiByCorrelation::kNone) continue;
    const model::ApiRecord& api = profile.api_calls[api_index];
    uint32_t r = regions.Innermost(api.process_id, api.thread_id, api.start_ns);
    // A backward kernel: the region on the thread of its forward op, or of the
    // backward() call whose line it carries.
    uint32_t caller = TorchKernel::kNone;
    if (k < out.torch.kernels.size()) {
      const TorchKernel& t = out.torch.kernels[k];
      caller = t.forward != TorchKernel::kNone ? t.forward
               : t.backward_call               ? t.line
                                               : TorchKernel::kNone;
    }
    if (r == kNone && caller != TorchKernel::kNone) {
      const model::RangeRecord& c = ranges[caller];
      r = regions.Innermost(c.process_id, c.thread_id, api.start_ns);
    }
    out.kernel_range[k] = r;
  }
  return out;
}

std::string RegionLabel(const RegionSummaryRow& row) {
  return row.domain.empty() ? row.path : absl::StrCat("[", row.domain, "] ", row.path);
}

namespace {

// One region row while it is built: (domain, path) and its instances' durations.
struct RowData {
  model::StringId domain = model::kEmptyString;
  uint32_t path = 0;
  std::vector<uint64_t> durations;
  uint64_t own_ns = 0;
  uint64_t kernel_count = 0, gpu_time_ns = 0;
  std::vector<model::LocationId> locations;  // distinct, in order of first instance

  void AddInstance(const model::RangeRecord& r, const OwnTime& own) {
    const uint64_t own_in = own.Within(r.start_ns, r.end_ns);
    durations.push_back(r.duration_ns() - own_in);
    own_ns += own_in;
    if (r.location != model::kNoLocation &&
        std::find(locations.begin(), locations.end(), r.location) == locations.end()) {
      locations.push_back(r.location);
    }
  }
};

// The label of a row's sites: the first one known, and how many more there are.
std::string LocationsLabel(const std::vector<model::LocationId>& ids,
                           const model::SourceLocationIndex& index,
                           const model::StringTable& strings) {
  std::string label;
  size_t known = 0;
  for (model::LocationId id : ids) {
    const model::SourceLocation* location = index.Find(id);
    if (location == nullptr) continue;
    std::string l = model::SourceLocationLabel(strings.Get(location->file), location->line);
    if (l.empty()) continue;
    if (++known == 1) label = std::move(l);
  }
  if (known > 1) absl::StrAppend(&label, " (+", known - 1, ")");
  return label;
}

struct KernelTotal {
  uint64_t count = 0, total_ns = 0;
};

// Keeps each region's five largest kernels, then ranks the regions by total time.
void RankRegionRows(std::vector<RegionSummaryRow>& out) {
  for (RegionSummaryRow& row : out) {
    auto by_total = [](const RegionTopKernel& a, const RegionTopKernel& b) {
      if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
      return a.name < b.name;
    };
    if (row.top_kernels.size() > 5) {
      std::partial_sort(row.top_kernels.begin(), row.top_kernels.begin() + 5, row.top_kernels.end(),
                        by_total);
      row.top_kernels.resize(5);
    } else {
      std::sort(row.top_kernels.begin(), row.top_kernels.end(), by_total);
    }
  }
  std::sort(out.begin(), out.end(), [](const RegionSummaryRow& a, const RegionSummaryRow& b) {
    if (a.stats.total_ns != b.stats.total_ns) return a.stats.total_ns > b.stats.total_ns;
    if (a.path != b.path) return a.path < b.path;
    return a.domain < b.domain;
  });
}

}  // namespace

std::vector<RegionSummaryRow> SummarizeRegions(const model::Profile& profile) {
  const KernelRangeAttribution attribution = AttributeKernelsToRanges(profile);
  const OwnTime own(profile);
  const auto& ranges = profile.ranges;

  // Paths, interned: (parent path, name) -> path id. Parents come first in `order`.
  std::vector<std::string> paths;
  absl::flat_hash_map<std::pair<uint32_t, model::StringId>, uint32_t> path_ids;
  std::vector<uint32_t> range_path(ranges.size(), kNone);
  // Rows: (domain, path) -> row.
  absl::flat_hash_map<std::pair<model::StringId, uint32_t>, uint32_t> row_ids;
  std::vector<uint32_t> range_row(ranges.size(), kNone);
  std::vector<RowData> rows;

  for (uint32_t i : attribution.order) {
    const model::RangeRecord& r = ranges[i];
    const uint32_t parent = attribution.range_parent[i];
    const uint32_t parent_path = parent == kNone ? kNone : range_path[parent];
    auto [pit, new_path] = path_ids.try_emplace(std::make_pair(parent_path, r.name),
                                                static_cast<uint32_t>(paths.size()));
    if (new_path) {
      absl::string_view name = profile.str(r.name);
      if (name.empty()) name = "<unnamed>";
      paths.push_back(parent_path == kNone ? std::string(name)
                                           : absl::StrCat(paths[parent_path], "/", name));
    }
    range_path[i] = pit->second;
    auto [rit, new_row] = row_ids.try_emplace(std::make_pair(r.domain, pit->second),
                                              static_cast<uint32_t>(rows.size()));
    if (new_row) {
      rows.emplace_back();
      rows.back().domain = r.domain;
      rows.back().path = pit->second;
    }
    range_row[i] = rit->second;
    rows[rit->second].AddInstance(r, own);
  }

  // Kernels: each counts for its innermost region and every enclosing one. Kernel
  // names are resolved once per name id pair.
  KernelNameIndex kernel_names(profile);
  absl::flat_hash_map<uint64_t, KernelTotal> row_kernels;  // (row, kernel name) -> totals
  for (size_t k = 0; k < profile.kernels.size(); ++k) {
    uint32_t r = attribution.kernel_range[k];
    if (r == kNone) continue;
    const model::KernelRecord& kernel = profile.kernels[k];
    const uint32_t name_id = kernel_names.Id(kernel);
    const uint64_t duration = kernel.duration_ns();
    for (; r != kNone; r = attribution.range_parent[r]) {
      const uint32_t row = range_row[r];
      RowData& data = rows[row];
      ++data.kernel_count;
      model::AddTo(data.gpu_time_ns, duration);
      KernelTotal& total = row_kernels[(uint64_t{row} << 32) | name_id];
      ++total.count;
      model::AddTo(total.total_ns, duration);
    }
  }

  const model::SourceLocationIndex locations(profile.source_locations);
  std::vector<RegionSummaryRow> out(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    RowData& data = rows[i];
    RegionSummaryRow& row = out[i];
    row.path = paths[data.path];
    row.domain = profile.str(data.domain);
    row.stats = ComputeStats(std::move(data.durations));
    row.own_ns = data.own_ns;
    row.kernel_count = data.kernel_count;
    row.gpu_time_ns = data.gpu_time_ns;
    row.location = LocationsLabel(data.locations, locations, profile.strings);
  }
  for (const auto& [key, total] : row_kernels) {
    RegionSummaryRow& row = out[key >> 32];
    row.top_kernels.push_back(RegionTopKernel{
        kernel_names.Name(static_cast<uint32_t>(key & 0xffffffffu)), total.count, total.total_ns});
  }
  RankRegionRows(out);
  return out;
}

}  // namespace cuscope::analysis
