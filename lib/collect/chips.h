// The chips CUPTI's Range Profiler supports (CUDA 13): their names as
// cuptiDeviceGetChipName gives them and the Profiler Host API accepts them, with
// their architecture and a few GPUs of each.
#ifndef CUSCOPE_LIB_COLLECT_CHIPS_H_
#define CUSCOPE_LIB_COLLECT_CHIPS_H_

#include <string>
#include <vector>

namespace cuscope::collect {

struct Chip {
  const char* name;          // "GH100"
  const char* architecture;  // "Hopper"
  const char* gpus;          // "H100, H200, GH200"; "" where not known here
};

// Every supported chip, oldest architecture first.
const std::vector<Chip>& SupportedChips();
// The chip of that name, or nullptr.
const Chip* FindChip(const std::string& name);
// The chip used when no GPU is visible and none is named.
inline constexpr char kDefaultChip[] = "GH100";

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_CHIPS_H_
