#include "lib/analysis/source_hotspots.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "lib/model/demangle.h"

namespace cuscope::analysis {
namespace {

using model::StallKind;

// A line (file id, line) or, without one, a PC: (0, 0, pc).
using LineKey = std::tuple<model::StringId, uint32_t, uint64_t>;

struct LineSum {
  uint64_t samples = 0;
  uint64_t first_pc = ~uint64_t{0};
  std::map<StallKind, uint64_t> stalls;
};

struct FunctionSum {
  uint64_t samples = 0;
  std::map<LineKey, LineSum> lines;
  std::map<StallKind, uint64_t> stalls;
};

std::vector<PcStallShare> Shares(const std::map<StallKind, uint64_t>& stalls, uint64_t total,
                                 size_t top) {
  std::vector<PcStallShare> out;
  for (const auto& [kind, samples] : stalls) {
    out.push_back({kind, samples, total > 0 ? 100.0 * samples / total : 0.0});
  }
  std::stable_sort(out.begin(), out.end(), [](const PcStallShare& a, const PcStallShare& b) {
    return a.samples > b.samples;
  });
  if (top > 0 && out.size() > top) out.resize(top);
  return out;
}

// Per function id: its samples by line (or PC) and stall kind.
std::map<uint32_t, FunctionSum> SumByFunction(const model::Profile& p) {
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, std::pair<model::StringId, uint32_t>> line_of;
  for (const model::PcLine& l : p.pc_lines)
    line_of[{l.function_id, l.pc_offset}] = {l.file, l.line};
  absl::flat_hash_map<model::StringId, std::pair<bool, StallKind>> kind_of;  // (counted, kind)
  std::map<uint32_t, FunctionSum> sums;
  for (const model::PcSampleCount& c : p.pc_samples) {
    auto [k, made] = kind_of.try_emplace(c.stall);
    if (made) {
      const std::string& name = p.str(c.stall);
      k->second = {!model::IsNotIssuedStall(name), model::StallKindOf(name)};
    }
    if (!k->second.first || c.samples == 0) continue;
    auto line = line_of.find({c.function_id, c.pc_offset});
    const LineKey key = line != line_of.end() ? LineKey{line->second.first, line->second.second, 0}
                                              : LineKey{0, 0, c.pc_offset};
    FunctionSum& f = sums[c.function_id];
    f.samples += c.samples;
    f.stalls[k->second.second] += c.samples;
    LineSum& s = f.lines[key];
    s.samples += c.samples;
    s.first_pc = std::min(s.first_pc, c.pc_offset);
    s.stalls[k->second.second] += c.samples;
  }
  return sums;
}

FunctionHotspots MakeFunction(
    const model::Profile& p, const FunctionSum& sum,
    const std::map<std::pair<model::StringId, uint32_t>, const std::string*>& texts,
    const HotspotOptions& options) {
  FunctionHotspots f;
  f.samples = sum.samples;
  f.stalls = Shares(sum.stalls, sum.samples, 0);
  f.line_count = sum.lines.size();
  for (const auto& [key, line] : sum.lines) {
    HotLine h;
    const auto& [file, number, pc] = key;
    f.has_lines = f.has_lines || number != 0;
    h.file = number != 0 ? p.str(file) : "";
    h.line = number;
    h.pc_offset = number != 0 ? line.first_pc : pc;
    h.samples = line.samples;
    h.pct = sum.samples > 0 ? 100.0 * line.samples / sum.samples : 0;
    h.stalls = Shares(line.stalls, line.samples, options.top_stalls);
    if (auto t = texts.find({file, number}); number != 0 && t != texts.end()) h.text = *t->second;
    f.lines.push_back(std::move(h));
  }
  std::stable_sort(f.lines.begin(), f.lines.end(),
                   [](const HotLine& a, const HotLine& b) { return a.samples > b.samples; });
  if (options.top_lines > 0 && f.lines.size() > options.top_lines)
    f.lines.resize(options.top_lines);
  return f;
}

}  // namespace

SourceHotspots FindSourceHotspots(const model::Profile& p, const HotspotOptions& options) {
  SourceHotspots out;
  const std::map<uint32_t, FunctionSum> sums = SumByFunction(p);
  std::map<std::pair<model::StringId, uint32_t>, const std::string*> texts;
  for (const model::SourceText& t : p.source_text)
    texts.emplace(std::pair{t.file, t.line}, &t.text);
  // Functions of one name (one kernel in several cubins) are reported apart.
  for (const model::SampledFunction& fn : p.sampled_functions) {
    auto sum = sums.find(fn.id);
    if (sum == sums.end()) continue;
    out.samples += sum->second.samples;
    const std::string& mangled = p.str(fn.name);
    std::string name = model::Demangle(mangled);
    if (options.keep && !options.keep(name)) continue;
    FunctionHotspots f = MakeFunction(p, sum->second, texts, options);
    f.name = std::move(name);
    f.mangled = mangled;
    out.functions.push_back(std::move(f));
  }
  for (FunctionHotspots& f : out.functions) {
    f.pct = out.samples > 0 ? 100.0 * f.samples / out.samples : 0;
  }
  std::stable_sort(
      out.functions.begin(), out.functions.end(),
      [](const FunctionHotspots& a, const FunctionHotspots& b) { return a.samples > b.samples; });
  out.function_count = out.functions.size();
  if (options.top_functions > 0 && out.functions.size() > options.top_functions) {
    out.functions.resize(options.top_functions);
  }
  return out;
}

}  // namespace cuscope::analysis
