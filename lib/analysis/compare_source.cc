#include "lib/analysis/compare_source.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace cuscope::analysis {
namespace {

using LineKey = std::tuple<std::string, uint32_t, uint64_t>;  // file, line, PC (no lines)

LineKey KeyOf(const HotLine& l) { return {l.file, l.line, l.file.empty() ? l.pc_offset : 0}; }

}  // namespace

std::vector<SourceLineChange> CompareSource(const SourceHotspots& base,
                                            const SourceHotspots& next) {
  std::vector<SourceLineChange> out;
  for (const FunctionHotspots& n : next.functions) {
    auto b = std::find_if(base.functions.begin(), base.functions.end(),
                          [&](const FunctionHotspots& f) { return f.mangled == n.mangled; });
    if (b == base.functions.end()) continue;
    std::map<LineKey, SourceLineChange> lines;
    auto add = [&](const HotLine& l, bool is_next) {
      SourceLineChange& c = lines[KeyOf(l)];
      c.function = n.name;
      c.file = l.file;
      c.line = l.line;
      c.pc_offset = l.pc_offset;
      (is_next ? c.next_pct : c.base_pct) = l.pct;
      if (!l.stalls.empty()) {
        (is_next ? c.next_stall : c.base_stall) = l.stalls.front().kind;
        (is_next ? c.next_has_stall : c.base_has_stall) = true;
      }
    };
    for (const HotLine& l : b->lines) add(l, false);
    for (const HotLine& l : n.lines) add(l, true);
    for (auto& [key, c] : lines) out.push_back(std::move(c));
  }
  // By the change of share (to 0.1 point), then by the larger share.
  auto change = [](const SourceLineChange& c) {
    return std::round(10 * std::fabs(c.next_pct - c.base_pct));
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const SourceLineChange& a, const SourceLineChange& b) {
                     if (change(a) != change(b)) return change(a) > change(b);
                     return std::max(a.base_pct, a.next_pct) > std::max(b.base_pct, b.next_pct);
                   });
  return out;
}

}  // namespace cuscope::analysis
