// PyTorch's ranges in a profile: the NVTX ranges torch emits per operator
// (torch.autograd.profiler.emit_nvtx, or the PyTorch hook of `cuscope run --pytorch`)
// and the Python line ranges the hook opens around each torch call made from Python.
// Neither is a region: regions, steps and the region report leave them out.
//
// torch's message (torch/csrc/profiler/util.cpp, getNvtxStr) is
//   NAME[, seq = N][, op_id = H][, sizes = [[d, ...], ...]][, input_op_ids = ...]
// with `op_id` always present when the observer asks for ids (nvtx_observer.cpp does);
// older releases wrote ", stashed seq = N" on backward nodes. A range is an op range
// when it is an NVTX push/pop range of the default domain whose message has ", op_id = ".
#ifndef CUSCOPE_LIB_ANALYSIS_TORCH_RANGES_H_
#define CUSCOPE_LIB_ANALYSIS_TORCH_RANGES_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope::analysis {

// One op range's message, its parts as views into the message.
struct TorchOpName {
  std::string_view name;   // "aten::addmm", "MmBackward0", ...
  int64_t seq = -1;        // autograd sequence number; -1 when the message has none
  std::string_view sizes;  // "[[8, 512], [512, 768]]"; "" without record_shapes
};

// The parts of torch's op-range message, or nullopt when `message` is not one.
std::optional<TorchOpName> ParseTorchOpName(std::string_view message);

// Whether an op named `name` is an autograd backward node: "MmBackward0",
// "MyFunctionBackward", "torch::autograd::CopySlices" (what the engine runs).
bool IsBackwardNodeName(std::string_view name);
// The engine's wrapper around a node: "autograd::engine::evaluate_function: MmBackward0".
bool IsEvaluateFunctionName(std::string_view name);

enum class RangeRole : uint8_t {
  kOther = 0,   // a region, a mark, or a range of no use
  kOp = 1,      // torch's op range
  kPython = 2,  // a Python line range: a scope at a kPython source location
};

// The role of every range of `p` (per profile.ranges index). Messages are parsed once
// per distinct name.
std::vector<RangeRole> ClassifyRanges(const model::Profile& p);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_TORCH_RANGES_H_
