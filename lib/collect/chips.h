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
// The chip of that name in any case ("gh100"), or of a GPU its list names ("H200",
// "rtx 4090": case, spaces and dashes aside); nullptr when none (or "").
const Chip* FindChip(const std::string& name);
// The GPUs a chip's list names, each as a name FindChip takes: "GB10 (DGX Spark)"
// gives "GB10" and "DGX Spark".
std::vector<std::string> ChipGpus(const Chip& chip);
// What FindChip accepts, for an error line: every chip's name, then a few GPUs.
std::string AcceptedChipNames();
// The chip used when no GPU is visible and none is named.
inline constexpr char kDefaultChip[] = "GH100";

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_CHIPS_H_
