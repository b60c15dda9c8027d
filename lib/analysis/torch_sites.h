// Where each kernel came from in a PyTorch program (a profile of `cuscope run
// --pytorch`): the Python line and op under which a kernel name spent the most GPU time,
// so that a finding about a kernel can name the line to change. Pure.
#ifndef CUSCOPE_LIB_ANALYSIS_TORCH_SITES_H_
#define CUSCOPE_LIB_ANALYSIS_TORCH_SITES_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "lib/analysis/torch_attribution.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

struct KernelSite {
  model::LocationId line = model::kNoLocation;  // the Python line range's location
  std::string op;                               // "aten::mm"; "" when none
  double share = 0;  // of the kernel name's GPU time spent under this line, 0..1
};

// By kernel name as the kernel records name it (their name and their mangled name both
// map to the site); kernels with no Python line are left out. Empty without attribution.
absl::flat_hash_map<std::string, KernelSite> KernelSites(const model::Profile& p,
                                                         const TorchAttribution& a);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_TORCH_SITES_H_
