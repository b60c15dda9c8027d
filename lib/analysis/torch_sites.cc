#include "lib/analysis/torch_sites.h"

#include <string_view>
#include <utility>

namespace cuscope::analysis {

absl::flat_hash_map<std::string, KernelSite> KernelSites(const model::Profile& p,
                                                         const TorchAttribution& a) {
  absl::flat_hash_map<std::string, KernelSite> out;
  if (!a.any_line) return out;
  struct PerName {
    uint64_t total_ns = 0;
    absl::flat_hash_map<model::LocationId, std::pair<uint64_t, uint32_t>> lines;  // ns, op
  };
  absl::flat_hash_map<model::StringId, PerName> names;
  for (size_t i = 0; i < p.kernels.size() && i < a.kernels.size(); ++i) {
    const model::KernelRecord& k = p.kernels[i];
    if (k.start_ns == 0 || k.end_ns <= k.start_ns) continue;
    const uint64_t ns = k.end_ns - k.start_ns;
    PerName& n = names[k.name];
    n.total_ns += ns;
    const TorchKernel& t = a.kernels[i];
    const model::LocationId line = TorchLineOf(p, t.line);
    if (line == model::kNoLocation) continue;
    auto& [line_ns, op] = n.lines[line];
    line_ns += ns;
    op = t.backward() && t.forward != TorchKernel::kNone ? t.forward : t.op;
  }
  for (const model::KernelRecord& k : p.kernels) {
    if (out.contains(p.str(k.name))) continue;
    auto it = names.find(k.name);
    if (it == names.end()) continue;
    const PerName& n = it->second;
    KernelSite best;
    uint64_t best_ns = 0;
    for (const auto& [line, data] : n.lines) {
      if (data.first < best_ns || (data.first == best_ns && line > best.line)) continue;
      best_ns = data.first;
      best.line = line;
      best.op = std::string(TorchOpOf(p, data.second));
    }
    if (best.line == model::kNoLocation || n.total_ns == 0) continue;
    best.share = static_cast<double>(best_ns) / static_cast<double>(n.total_ns);
    out[p.str(k.name)] = best;
    if (k.mangled_name != model::kEmptyString) out[p.str(k.mangled_name)] = best;
  }
  return out;
}

}  // namespace cuscope::analysis
