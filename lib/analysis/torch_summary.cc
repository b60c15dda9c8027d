#include "lib/analysis/torch_summary.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "lib/analysis/summary.h"
#include "lib/model/checked.h"

namespace cuscope::analysis {
namespace {

void Add(TorchTotals& t, uint64_t ns) {
  ++t.kernels;
  model::AddTo(t.gpu_ns, ns);
}

// The key with the most time in a map of key -> time.
template <typename Key>
Key Top(const absl::flat_hash_map<Key, uint64_t>& m) {
  Key best{};
  uint64_t most = 0;
  bool first = true;
  for (const auto& [k, ns] : m) {
    if (first || ns > most || (ns == most && k < best)) best = k, most = ns, first = false;
  }
  return best;
}

struct OpData {
  TorchTotals totals;
  absl::flat_hash_map<uint32_t, uint64_t> kernels;  // kernel name id -> time
};
struct LineData {
  TorchTotals totals, backward;
  absl::flat_hash_map<std::string_view, uint64_t> ops;
};

std::vector<TorchLineRow> LineRows(const model::Profile& p,
                                   absl::flat_hash_map<model::LocationId, LineData>& lines) {
  const model::SourceLocationIndex index(p.source_locations);
  std::vector<TorchLineRow> rows;
  for (auto& [id, data] : lines) {
    TorchLineRow& row = rows.emplace_back();
    row.location = id;
    if (const model::SourceLocation* l = index.Find(id); l != nullptr) {
      row.file = p.str(l->file);
      row.line = l->line;
      row.function = p.str(l->function);
    }
    row.totals = data.totals;
    row.backward = data.backward;
    row.top_op = std::string(Top(data.ops));
  }
  std::sort(rows.begin(), rows.end(), [](const TorchLineRow& a, const TorchLineRow& b) {
    if (a.totals.gpu_ns != b.totals.gpu_ns) return a.totals.gpu_ns > b.totals.gpu_ns;
    return a.location < b.location;
  });
  return rows;
}

}  // namespace

TorchSummary SummarizeTorch(const model::Profile& p) {
  return SummarizeTorch(p, AttributeTorch(p));
}

TorchSummary SummarizeTorch(const model::Profile& p, const TorchAttribution& a) {
  TorchSummary out;
  if (!a.any()) return out;
  KernelNameIndex kernel_names(p);
  absl::flat_hash_map<std::pair<std::string_view, bool>, OpData> ops;
  absl::flat_hash_map<model::LocationId, LineData> lines;
  for (size_t k = 0; k < p.kernels.size() && k < a.kernels.size(); ++k) {
    const model::KernelRecord& kernel = p.kernels[k];
    if (!HasValidTimes(kernel)) continue;
    const TorchKernel& t = a.kernels[k];
    const uint64_t ns = kernel.duration_ns();
    const std::string_view op = TorchOpOf(p, t.op);
    const model::LocationId line = TorchLineOf(p, t.line);
    Add(out.all, ns);
    if (t.op != TorchKernel::kNone) Add(out.with_op, ns);
    if (line != model::kNoLocation) Add(out.with_line, ns);
    if (t.backward()) Add(out.backward, ns);
    if (t.backward() && line != model::kNoLocation) Add(out.backward_with_line, ns);
    if (t.inherited) Add(out.inherited, ns);
    OpData& o = ops[{op, t.backward()}];
    Add(o.totals, ns);
    model::AddTo(o.kernels[kernel_names.Id(kernel)], ns);
    LineData& l = lines[line];
    Add(l.totals, ns);
    if (t.backward()) Add(l.backward, ns);
    model::AddTo(l.ops[op], ns);
  }
  for (auto& [key, data] : ops) {
    TorchOpRow& row = out.by_op.emplace_back();
    row.op = std::string(key.first);
    row.backward = key.second;
    row.totals = data.totals;
    row.top_kernel = data.kernels.empty() ? std::string() : kernel_names.Name(Top(data.kernels));
  }
  std::sort(out.by_op.begin(), out.by_op.end(), [](const TorchOpRow& x, const TorchOpRow& y) {
    if (x.totals.gpu_ns != y.totals.gpu_ns) return x.totals.gpu_ns > y.totals.gpu_ns;
    return std::tie(x.op, x.backward) < std::tie(y.op, y.backward);
  });
  out.by_line = LineRows(p, lines);
  return out;
}

}  // namespace cuscope::analysis
