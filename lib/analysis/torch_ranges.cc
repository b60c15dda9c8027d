#include "lib/analysis/torch_ranges.h"

#include <charconv>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace cuscope::analysis {
namespace {

constexpr std::string_view kSeq = ", seq = ";
constexpr std::string_view kStashedSeq = ", stashed seq = ";
constexpr std::string_view kOpId = ", op_id = ";
constexpr std::string_view kSizes = ", sizes = ";
constexpr std::string_view kInputOpIds = ", input_op_ids = ";

// The decimal number at the start of `s` (an optional '-'), or nullopt.
std::optional<int64_t> LeadingInt(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  return v;
}

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

std::optional<TorchOpName> ParseTorchOpName(std::string_view message) {
  const size_t op_id = message.find(kOpId);
  if (op_id == std::string_view::npos) return std::nullopt;
  const std::string_view after_id = message.substr(op_id + kOpId.size());
  std::optional<int64_t> id = LeadingInt(after_id);
  if (!id.has_value() || *id <= 0) return std::nullopt;
  TorchOpName out;
  std::string_view head = message.substr(0, op_id);  // NAME[, seq = N]
  size_t seq = head.rfind(kSeq);
  size_t seq_len = kSeq.size();
  if (size_t stashed = head.rfind(kStashedSeq); stashed != std::string_view::npos) {
    seq = stashed;
    seq_len = kStashedSeq.size();
  }
  if (seq != std::string_view::npos && IsDigits(head.substr(seq + seq_len))) {
    out.seq = LeadingInt(head.substr(seq + seq_len)).value_or(-1);
    head = head.substr(0, seq);
  }
  out.name = head;
  if (size_t sizes = after_id.find(kSizes); sizes != std::string_view::npos) {
    std::string_view rest = after_id.substr(sizes + kSizes.size());
    out.sizes = rest.substr(0, rest.find(kInputOpIds));
  }
  return out;
}

bool IsBackwardNodeName(std::string_view name) {
  while (!name.empty() && name.back() >= '0' && name.back() <= '9') name.remove_suffix(1);
  constexpr std::string_view kBackward = "Backward";
  if (name.size() >= kBackward.size() && name.substr(name.size() - kBackward.size()) == kBackward) {
    return true;
  }
  constexpr std::string_view kEngineNode = "torch::autograd::";
  return name.substr(0, kEngineNode.size()) == kEngineNode;
}

bool IsEvaluateFunctionName(std::string_view name) {
  constexpr std::string_view kEvaluate = "autograd::engine::evaluate_function:";
  return name.substr(0, kEvaluate.size()) == kEvaluate;
}

std::vector<RangeRole> ClassifyRanges(const model::Profile& p) {
  std::vector<RangeRole> roles(p.ranges.size(), RangeRole::kOther);
  absl::flat_hash_set<model::LocationId> python;
  for (const model::SourceLocation& l : p.source_locations) {
    if (l.kind == model::SourceLocationKind::kPython) python.insert(l.id);
  }
  absl::flat_hash_map<model::StringId, bool> is_op;  // by message
  for (size_t i = 0; i < p.ranges.size(); ++i) {
    const model::RangeRecord& r = p.ranges[i];
    if (r.source == model::RangeSource::kScope) {
      if (r.location != model::kNoLocation && python.contains(r.location)) {
        roles[i] = RangeRole::kPython;
      }
      continue;
    }
    if (r.source != model::RangeSource::kNvtxPushPop || r.domain != model::kEmptyString) continue;
    auto [it, inserted] = is_op.try_emplace(r.name, false);
    if (inserted) it->second = ParseTorchOpName(p.str(r.name)).has_value();
    if (it->second) roles[i] = RangeRole::kOp;
  }
  return roles;
}

}  // namespace cuscope::analysis
