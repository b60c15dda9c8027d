// The chip of the GPU a program would run on (CUDA device 0 under the current
// CUDA_VISIBLE_DEVICES), through the driver and CUPTI, for checks made before a
// program starts.
#ifndef CUSCOPE_LIB_COLLECT_VISIBLE_CHIP_H_
#define CUSCOPE_LIB_COLLECT_VISIBLE_CHIP_H_

#include <string>

#include "absl/status/statusor.h"

namespace cuscope::collect {

// "GH100"; NotFound (saying why: no driver, no GPU) when none is visible; another
// error when CUPTI cannot name it. Loads and initializes the CUDA driver in this
// process (cuInit): call it in a process that does not profile itself.
absl::StatusOr<std::string> VisibleChip();

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_VISIBLE_CHIP_H_
