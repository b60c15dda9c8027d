// Kernels and GPU time by PyTorch operator and by Python line (torch_attribution.h):
// what `cuscope report --by=op|line` prints. Pure; no English.
#ifndef CUSCOPE_LIB_ANALYSIS_TORCH_SUMMARY_H_
#define CUSCOPE_LIB_ANALYSIS_TORCH_SUMMARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/analysis/torch_attribution.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

struct TorchTotals {
  uint64_t kernels = 0;
  uint64_t gpu_ns = 0;
};

// One operator: its kernels launched in forward (or outside autograd) or in backward.
struct TorchOpRow {
  std::string op;         // "aten::addmm"; "" for kernels launched in no op
  bool backward = false;  // launched inside an autograd node
  TorchTotals totals;
  std::string top_kernel;  // the kernel name with the most GPU time in it
};

// One Python line: the kernels of the ops it called, backward ones included.
struct TorchLineRow {
  model::LocationId location = model::kNoLocation;  // kNoLocation: no line
  std::string file;                                 // as the frame named it
  uint32_t line = 0;
  std::string function;
  TorchTotals totals;
  TorchTotals backward;  // of totals: kernels of the backward of its ops
  std::string top_op;    // the op with the most GPU time under it
};

struct TorchSummary {
  TorchTotals all;        // kernels with usable times
  TorchTotals with_op;    // of those: carrying an op
  TorchTotals with_line;  // carrying a Python line
  TorchTotals backward;   // launched inside an autograd node
  TorchTotals backward_with_line;
  TorchTotals inherited;          // attributed from an earlier step's launches (torch_inherit.h)
  std::vector<TorchOpRow> by_op;  // by GPU time, descending
  std::vector<TorchLineRow> by_line;  // by GPU time, descending
  bool empty() const { return by_op.empty() && by_line.empty(); }
};

// Empty (no rows) when the profile has no op and no Python line ranges.
TorchSummary SummarizeTorch(const model::Profile& p, const TorchAttribution& a);
TorchSummary SummarizeTorch(const model::Profile& p);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_TORCH_SUMMARY_H_
