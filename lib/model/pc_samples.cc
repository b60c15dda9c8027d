#include "lib/model/pc_samples.h"

#include <tuple>

namespace cuscope::model {

bool SampledFunction::operator==(const SampledFunction& o) const {
  return std::tie(id, device_id, cubin_crc, name) ==
         std::tie(o.id, o.device_id, o.cubin_crc, o.name);
}

bool PcSampleCount::operator==(const PcSampleCount& o) const {
  return std::tie(function_id, pc_offset, stall, samples) ==
         std::tie(o.function_id, o.pc_offset, o.stall, o.samples);
}

bool PcLine::operator==(const PcLine& o) const {
  return std::tie(function_id, pc_offset, file, line) ==
         std::tie(o.function_id, o.pc_offset, o.file, o.line);
}

bool SourceText::operator==(const SourceText& o) const {
  return std::tie(file, line, text) == std::tie(o.file, o.line, o.text);
}

namespace {

struct KindName {
  StallKind kind;
  const char* key;  // CUPTI's suffix after "stalled_"
};

// Longer keys first where one is a prefix of another ("not_selected" / "selected"
// are matched whole, so order only matters for readability).
constexpr KindName kKinds[] = {
    {StallKind::kSelected, "selected"},
    {StallKind::kNotSelected, "not_selected"},
    {StallKind::kLongScoreboard, "long_scoreboard"},
    {StallKind::kShortScoreboard, "short_scoreboard"},
    {StallKind::kWait, "wait"},
    {StallKind::kMathPipeThrottle, "math_pipe_throttle"},
    {StallKind::kMioThrottle, "mio_throttle"},
    {StallKind::kLgThrottle, "lg_throttle"},
    {StallKind::kTexThrottle, "tex_throttle"},
    {StallKind::kBarrier, "barrier"},
    {StallKind::kMembar, "membar"},
    {StallKind::kBranchResolving, "branch_resolving"},
    {StallKind::kNoInstruction, "no_instructions"},
    {StallKind::kDispatchStall, "dispatch_stall"},
    {StallKind::kDrain, "drain"},
    {StallKind::kSleeping, "sleeping"},
    {StallKind::kImcMiss, "imc_miss"},
    {StallKind::kMisc, "misc"},
    {StallKind::kTensor, "tensor"},
};

constexpr std::string_view kNotIssued = "_not_issued";

// The reason's suffix: after the last "stalled_" (or "issue_" for "selected"),
// without "_not_issued".
std::string_view Suffix(std::string_view name) {
  if (name.size() >= kNotIssued.size() &&
      name.substr(name.size() - kNotIssued.size()) == kNotIssued) {
    name.remove_suffix(kNotIssued.size());
  }
  for (std::string_view marker : {std::string_view("stalled_"), std::string_view("issue_")}) {
    if (size_t at = name.rfind(marker); at != std::string_view::npos) {
      return name.substr(at + marker.size());
    }
  }
  return name;
}

}  // namespace

StallKind StallKindOf(std::string_view cupti_name) {
  const std::string_view suffix = Suffix(cupti_name);
  for (const KindName& k : kKinds) {
    if (suffix == k.key) return k.kind;
  }
  // Hopper names its tensor pipe waits by the unit (gmma, hmma, ...).
  if (suffix.find("mma") != std::string_view::npos) return StallKind::kTensor;
  return StallKind::kOther;
}

bool IsNotIssuedStall(std::string_view cupti_name) {
  return cupti_name.size() >= kNotIssued.size() &&
         cupti_name.substr(cupti_name.size() - kNotIssued.size()) == kNotIssued;
}

const char* StallKindKey(StallKind kind) {
  for (const KindName& k : kKinds) {
    if (k.kind == kind) return k.key;
  }
  return "other";
}

// lint: table
const char* StallWords(StallKind kind) {
  switch (kind) {
    case StallKind::kSelected:
      return "issuing (not stalled)";
    case StallKind::kNotSelected:
      return "ready, another warp issued";
    case StallKind::kLongScoreboard:
      return "waiting on global/local memory";
    case StallKind::kShortScoreboard:
      return "waiting on shared memory or MIO";
    case StallKind::kWait:
      return "fixed-latency dependency (math result)";
    case StallKind::kMathPipeThrottle:
      return "math pipe busy";
    case StallKind::kMioThrottle:
      return "MIO queue full (shared memory, special math)";
    case StallKind::kLgThrottle:
      return "global/local memory queue full";
    case StallKind::kTexThrottle:
      return "texture queue full";
    case StallKind::kBarrier:
      return "waiting at a barrier (__syncthreads)";
    case StallKind::kMembar:
      return "waiting at a memory barrier";
    case StallKind::kBranchResolving:
      return "resolving a branch";
    case StallKind::kNoInstruction:
      return "no instruction (instruction cache)";
    case StallKind::kDispatchStall:
      return "dispatch stall";
    case StallKind::kDrain:
      return "draining stores at exit";
    case StallKind::kSleeping:
      return "sleeping";
    case StallKind::kImcMiss:
      return "constant cache miss";
    case StallKind::kMisc:
      return "miscellaneous";
    case StallKind::kTensor:
      return "waiting on the tensor cores";
    case StallKind::kOther:
      return "other";
  }
  return "other";
}

}  // namespace cuscope::model
