#include "lib/analysis/event_waits.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace cuscope::analysis {

std::vector<int32_t> LinkEventWaits(const model::Profile& p) {
  std::vector<int32_t> link(p.syncs.size(), kNoEventRecord);
  if (p.event_records.empty()) return link;
  absl::flat_hash_map<uint64_t, int32_t> by_sync_id;
  // Per event: (correlation id, record index), sorted by correlation id.
  absl::flat_hash_map<uint32_t, std::vector<std::pair<uint32_t, int32_t>>> by_event;
  for (size_t i = 0; i < p.event_records.size(); ++i) {
    const model::CudaEventRecord& e = p.event_records[i];
    const int32_t index = static_cast<int32_t>(i);
    if (e.event_sync_id != model::kNoEventSyncId) by_sync_id.emplace(e.event_sync_id, index);
    if (e.event_id != model::kNoCudaEvent)
      by_event[e.event_id].emplace_back(e.correlation_id, index);
  }
  for (auto& [event, records] : by_event) std::sort(records.begin(), records.end());
  for (size_t i = 0; i < p.syncs.size(); ++i) {
    const model::SyncRecord& s = p.syncs[i];
    if (s.type != model::SyncType::kEventSynchronize &&
        s.type != model::SyncType::kStreamWaitEvent) {
      continue;
    }
    // CUPTI's exact link when the records carry it (without the record of that id,
    // the event was recorded while nothing was: an older record would be wrong).
    if (s.event_sync_id != model::kNoEventSyncId && !by_sync_id.empty()) {
      auto it = by_sync_id.find(s.event_sync_id);
      if (it != by_sync_id.end()) link[i] = it->second;
      continue;
    }
    auto records = by_event.find(s.event_id);
    if (s.event_id == model::kNoCudaEvent || records == by_event.end()) continue;
    const std::vector<std::pair<uint32_t, int32_t>>& r = records->second;
    // The last record whose call came before the wait's.
    auto after =
        std::lower_bound(r.begin(), r.end(), std::make_pair(s.correlation_id, int32_t{-1}));
    if (after != r.begin()) link[i] = std::prev(after)->second;
  }
  return link;
}

}  // namespace cuscope::analysis
