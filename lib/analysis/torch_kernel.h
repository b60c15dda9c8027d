// One kernel's PyTorch attribution (torch_attribution.h computes it), apart so that
// the parts of the attribution can share it.
#ifndef CUSCOPE_LIB_ANALYSIS_TORCH_KERNEL_H_
#define CUSCOPE_LIB_ANALYSIS_TORCH_KERNEL_H_

#include <cstdint>

namespace cuscope::analysis {

// One kernel's attribution; fields are indices into profile.ranges.
struct TorchKernel {
  static constexpr uint32_t kNone = 0xffffffffu;
  uint32_t op = kNone;         // the innermost op range around its launch
  uint32_t node = kNone;       // the backward node it belongs to (backward kernels)
  uint32_t forward = kNone;    // the forward op that made that node
  uint32_t line = kNone;       // the Python line range that gives its line
  bool engine = false;         // launched inside the engine's evaluate_function range
  bool backward_call = false;  // `line` is the backward() call's, on another thread
  // Taken from the same launch of an earlier, attributed step (torch_inherit.h): the
  // ranges are that launch's.
  bool inherited = false;
  // Launched by autograd's backward: in a node, or in the engine's work around one.
  bool backward() const { return node != kNone || engine; }
};

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_TORCH_KERNEL_H_
