// PyTorch attribution: each kernel tied to the torch operator that launched it and
// the Python line that called the operator (torch_ranges.h says which ranges those
// are). Pure; computed once per view from the profile.
//
// A kernel's launch is the API call with its correlation id (thread, start time).
//  - Its op: the innermost op range enclosing the launch on the launching thread.
//  - Backward: when an op range enclosing the launch (the innermost first) is an
//    autograd node (IsBackwardNodeName, or directly inside the engine's
//    evaluate_function range) with a sequence number N, the kernel is a backward
//    kernel. Its forward op is the last op range with seq N, not a node, that started
//    before the node on any thread: the op whose call made the node (autograd numbers
//    nodes per forward thread; ops after the one that made node N carry N + 1). A
//    kernel of the engine's own work in an evaluate_function range but outside its
//    node's range (casting or accumulating the node's gradients) belongs to that node.
//  - Its Python line: the innermost Python line range enclosing the launch on the
//    launching thread; for a backward kernel, the one enclosing its forward op (else,
//    as for others, the one around its launch); for a backward kernel with neither
//    (gradient accumulation, nodes made by no recorded forward op), the line of the
//    backward() call: the line range open on another thread of the process when it
//    was launched (the earliest-started one, when several threads have one open).
// Graph replays: the profile does not link a graph's kernels to the launches made
// while the graph was captured, so a replayed kernel carries no op or line.
// Steps run without op and line ranges take them from an earlier step's same launches
// (torch_inherit.h).
#ifndef CUSCOPE_LIB_ANALYSIS_TORCH_ATTRIBUTION_H_
#define CUSCOPE_LIB_ANALYSIS_TORCH_ATTRIBUTION_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "lib/analysis/api_index.h"
#include "lib/analysis/torch_kernel.h"
#include "lib/analysis/torch_ranges.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

struct TorchAttribution {
  std::vector<RangeRole> roles;  // per profile.ranges index
  // Per profile.kernels index; empty when the profile has neither op nor line ranges.
  std::vector<TorchKernel> kernels;
  bool any() const { return any_op || any_line; }
  bool any_op = false;    // the profile has op ranges
  bool any_line = false;  // the profile has Python line ranges
};

TorchAttribution AttributeTorch(const model::Profile& p, const ApiByCorrelation& apis);
TorchAttribution AttributeTorch(const model::Profile& p);

// The op name of op range `range` ("aten::addmm"); "" for kNone or a range that is not one.
std::string_view TorchOpOf(const model::Profile& p, uint32_t range);
// The sizes part of op range `range` ("[[8, 512], [512, 768]]"); "" when none.
std::string_view TorchSizesOf(const model::Profile& p, uint32_t range);
// The source location of Python line range `range`; kNoLocation for kNone.
model::LocationId TorchLineOf(const model::Profile& p, uint32_t range);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_TORCH_ATTRIBUTION_H_
