// PyTorch attribution carried across steps. The hook gives op and line ranges to the
// first CUSCOPE_PYTORCH_STEPS steps only (python/cuscope/torch_hook.py), so that later
// steps run at the trace's cost; a kernel of a later step with neither an op nor a line
// takes the attribution of the same launch in the last attributed step before its
// own: the launch of the same kernel (name, grid, block) with the same occurrence in
// its step, in launch order (the time of the launching API call). A training loop
// launches the same kernels in the same order each step; a launch with no counterpart
// (another kernel, one more occurrence) stays unattributed.
//
// Steps are StepsOf's (steps.h); a step is attributed when more than half of its
// kernels carry an op or a line. Pure.
#ifndef CUSCOPE_LIB_ANALYSIS_TORCH_INHERIT_H_
#define CUSCOPE_LIB_ANALYSIS_TORCH_INHERIT_H_

#include <vector>

#include "lib/analysis/api_index.h"
#include "lib/analysis/torch_kernel.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

// Fills, in `kernels` (one per profile.kernels index), the kernels of unattributed
// steps from their counterparts (TorchKernel::inherited set on each).
void InheritFromSteps(const model::Profile& p, const ApiByCorrelation& apis,
                      std::vector<TorchKernel>* kernels);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_TORCH_INHERIT_H_
