// Theoretical occupancy of a launch configuration on one SM (Hopper rules), like
// ncu's occupancy calculator. Pure functions, no I/O.
#ifndef CUSCOPE_LIB_ANALYSIS_OCCUPANCY_H_
#define CUSCOPE_LIB_ANALYSIS_OCCUPANCY_H_

#include <cstdint>
#include <string>

#include "lib/model/profile.h"

namespace cuscope::analysis {

// The H100 SM count, used when a DeviceInfo gives none.
inline constexpr int kDefaultSmCount = 132;

// Theoretical occupancy of a launch configuration on one SM.
struct Occupancy {
  bool valid = false;  // false when the block cannot launch (too many threads/registers/smem)
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  double percent = 0;   // warps_per_sm / max warps per SM x 100
  std::string limiter;  // "warps", "blocks", "registers", "shared memory" ("" when invalid)
  // Blocks per SM allowed by each limit (a large number when not limiting).
  int limit_warps = 0, limit_blocks = 0, limit_registers = 0, limit_shared = 0;
};

// Hopper (sm_90) rules: warps per block = ceil(threads / warp size); registers are
// allocated per warp in units of 256 (registers per thread rounded up to a multiple
// of 8), at most 255 per thread, each of the 4 SM sub-partitions holding a quarter
// of the register file; shared memory per block = (bytes + 1 KB reserved) rounded
// up to 128 bytes. Limits come from `device`; a field that is 0 falls back to the
// H100 value (64 warps, 32 blocks, 64K registers per SM and per block, 228 KB of
// shared memory per SM, 1024 threads per block, warp size 32).
Occupancy TheoreticalOccupancy(const model::DeviceInfo& device, uint32_t threads_per_block,
                               uint32_t registers_per_thread, uint32_t shared_bytes_per_block);

// The theoretical occupancy of a recorded launch on `device`: its block, registers and
// static plus dynamic shared memory. Not valid for a record made from its launch
// (model::kKernelFromLaunch), which does not know the kernel's registers.
Occupancy LaunchOccupancy(const model::DeviceInfo& device, const model::KernelRecord& k);

// The blocks of one wave: `sm_count` x the theoretical blocks per SM, one per SM when
// `theoretical` is not valid (the launch configuration unknown or impossible).
uint64_t WaveBlocks(int sm_count, const Occupancy& theoretical);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_OCCUPANCY_H_
