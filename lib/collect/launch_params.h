// Kernel launches as CUPTI's API callbacks show them: which callbacks are launches,
// and the launch shape a launch callback carries.
#ifndef CUSCOPE_LIB_COLLECT_LAUNCH_PARAMS_H_
#define CUSCOPE_LIB_COLLECT_LAUNCH_PARAMS_H_

#include <cupti.h>

#include <utility>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope::collect {

// The runtime and driver callbacks of kernel and graph launches (domain, id).
const std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>>& LaunchCallbacks();

// Grid and block of a kernel launch callback; false for anything else.
bool DescribeLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                    const CUpti_CallbackData* cb, model::Dim3* grid, model::Dim3* block);

// cudaGraphLaunch / cuGraphLaunch: the graph's kernels are not seen one by one.
bool IsGraphLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_LAUNCH_PARAMS_H_
