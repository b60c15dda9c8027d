#include "lib/analysis/torch_attribution.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "lib/analysis/range_nesting.h"
#include "lib/analysis/summary.h"
#include "lib/analysis/torch_inherit.h"

namespace cuscope::analysis {
namespace {

constexpr uint32_t kNone = TorchKernel::kNone;

// Op ranges that forward ops may be: by sequence number, in start order.
class ForwardOps {
 public:
  void Add(int64_t seq, uint64_t start, uint32_t range) { by_seq_[seq].emplace_back(start, range); }
  void Sort() {
    for (auto& [seq, v] : by_seq_) std::sort(v.begin(), v.end());
  }
  // The last one with `seq` that started before `before`, or kNone.
  uint32_t Before(int64_t seq, uint64_t before) const {
    auto it = by_seq_.find(seq);
    if (it == by_seq_.end()) return kNone;
    const auto& v = it->second;
    auto pos = std::lower_bound(v.begin(), v.end(), std::make_pair(before, uint32_t{0}));
    return pos == v.begin() ? kNone : std::prev(pos)->second;
  }

 private:
  absl::flat_hash_map<int64_t, std::vector<std::pair<uint64_t, uint32_t>>> by_seq_;
};

// Parsed op messages, once per distinct name.
class OpNames {
 public:
  explicit OpNames(const model::Profile& p) : p_(p) {}
  const TorchOpName& Of(uint32_t range) {
    const model::StringId id = p_.ranges[range].name;
    auto [it, inserted] = cache_.try_emplace(id);
    if (inserted) it->second = ParseTorchOpName(p_.str(id)).value_or(TorchOpName{});
    return it->second;
  }

 private:
  const model::Profile& p_;
  absl::flat_hash_map<model::StringId, TorchOpName> cache_;
};

// Whether op range `r` is an autograd node (its parent op range is `parent`).
bool IsNode(OpNames& names, uint32_t r, uint32_t parent) {
  const TorchOpName& n = names.Of(r);
  if (n.seq < 0) return false;
  if (IsBackwardNodeName(n.name)) return true;
  return parent != kNone && IsEvaluateFunctionName(names.Of(parent).name);
}

}  // namespace

TorchAttribution AttributeTorch(const model::Profile& p) {
  return AttributeTorch(p, ApiByCorrelation(p));
}

TorchAttribution AttributeTorch(const model::Profile& p, const ApiByCorrelation& apis) {
  TorchAttribution out;
  out.roles = ClassifyRanges(p);
  for (RangeRole role : out.roles) {
    out.any_op |= role == RangeRole::kOp;
    out.any_line |= role == RangeRole::kPython;
  }
  if (!out.any()) return out;  // no kernel entries: a profile without PyTorch ranges
  out.kernels.assign(p.kernels.size(), TorchKernel{});
  const auto& roles = out.roles;
  RangeNesting ops(p.ranges, [&](uint32_t i) { return roles[i] == RangeRole::kOp; });
  RangeNesting lines(p.ranges, [&](uint32_t i) { return roles[i] == RangeRole::kPython; });
  OpNames names(p);
  ForwardOps forward;
  // The node each evaluate_function range ran: kernels of the engine's own work
  // around the node (casting or accumulating its gradients) belong to it too.
  absl::flat_hash_map<uint32_t, uint32_t> node_of_evaluate;
  for (uint32_t i = 0; i < p.ranges.size(); ++i) {
    if (roles[i] != RangeRole::kOp || !HasValidTimes(p.ranges[i])) continue;
    const int64_t seq = names.Of(i).seq;
    const uint32_t parent = ops.Parent(i);
    if (IsNode(names, i, parent)) {
      if (parent != kNone && IsEvaluateFunctionName(names.Of(parent).name)) {
        node_of_evaluate.try_emplace(parent, i);
      }
    } else if (seq >= 0) {
      forward.Add(seq, p.ranges[i].start_ns, i);
    }
  }
  forward.Sort();

  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const model::KernelRecord& kernel = p.kernels[k];
    if (kernel.correlation_id == 0) continue;
    const uint32_t api_index = apis.Find(kernel.correlation_id);
    if (api_index == ApiByCorrelation::kNone) continue;
    const model::ApiRecord& api = p.api_calls[api_index];
    TorchKernel& t = out.kernels[k];
    t.op = ops.Innermost(api.process_id, api.thread_id, api.start_ns);
    uint32_t evaluate = kNone;
    for (uint32_t r = t.op; r != kNone; r = ops.Parent(r)) {
      if (evaluate == kNone && IsEvaluateFunctionName(names.Of(r).name)) evaluate = r;
      if (t.node != kNone || !IsNode(names, r, ops.Parent(r))) continue;
      t.node = r;
    }
    t.engine = evaluate != kNone;
    if (t.node == kNone && evaluate != kNone) {
      auto it = node_of_evaluate.find(evaluate);
      if (it != node_of_evaluate.end()) t.node = it->second;
    }
    if (t.node != kNone)
      t.forward = forward.Before(names.Of(t.node).seq, p.ranges[t.node].start_ns);
    if (t.forward != kNone) {
      const model::RangeRecord& f = p.ranges[t.forward];
      t.line = lines.Innermost(f.process_id, f.thread_id, f.start_ns);
    }
    if (t.line == kNone) t.line = lines.Innermost(api.process_id, api.thread_id, api.start_ns);
    if (t.line == kNone && t.backward()) {
      t.line = lines.EarliestElsewhere(api.process_id, api.thread_id, api.start_ns);
      t.backward_call = t.line != kNone;
    }
  }
  InheritFromSteps(p, apis, &out.kernels);
  return out;
}

std::string_view TorchOpOf(const model::Profile& p, uint32_t range) {
  if (range >= p.ranges.size()) return {};
  std::optional<TorchOpName> n = ParseTorchOpName(p.str(p.ranges[range].name));
  return n.has_value() ? n->name : std::string_view();
}

std::string_view TorchSizesOf(const model::Profile& p, uint32_t range) {
  if (range >= p.ranges.size()) return {};
  std::optional<TorchOpName> n = ParseTorchOpName(p.str(p.ranges[range].name));
  return n.has_value() ? n->sizes : std::string_view();
}

model::LocationId TorchLineOf(const model::Profile& p, uint32_t range) {
  return range < p.ranges.size() ? p.ranges[range].location : model::kNoLocation;
}

}  // namespace cuscope::analysis
