#include "lib/report/rank_merge.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace cuscope::report {

absl::Status SortRanks(std::vector<RankTrace>& ranks) {
  std::sort(ranks.begin(), ranks.end(),
            [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i].view == nullptr || ranks[i].rank < 0 ||
        (i > 0 && ranks[i].rank == ranks[i - 1].rank)) {
      return absl::InvalidArgumentError(
          absl::StrCat("a merged trace needs one profile per rank, each rank >= 0 and distinct; "
                       "got rank ",
                       ranks[i].rank, " twice or without a profile"));
    }
  }
  return absl::OkStatus();
}

TraceHeader MergedHeader(const std::vector<RankTrace>& ranks) {
  TraceHeader h;
  h.rank = ranks.empty() ? 0 : ranks.front().rank;
  h.world_size = static_cast<int64_t>(ranks.size());
  for (const RankTrace& r : ranks) {
    const TraceHeader& rh = r.view->header();
    if (h.backend.empty()) h.backend = rh.backend;
    if (rh.base_unix_ns != 0 && (h.base_unix_ns == 0 || rh.base_unix_ns < h.base_unix_ns)) {
      h.base_unix_ns = rh.base_unix_ns;
      h.origin_ns = rh.origin_ns;
    }
  }
  return h;
}

}  // namespace cuscope::report
