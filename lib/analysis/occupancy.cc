#include "lib/analysis/occupancy.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace cuscope::analysis {
namespace {

// H100 (sm_90) limits, used when a DeviceInfo field is 0.
constexpr int kH100MaxWarpsPerSm = 64;
constexpr int kH100MaxBlocksPerSm = 32;
constexpr int kH100RegistersPerSm = 65536;
constexpr int kH100RegistersPerBlock = 65536;
constexpr int kH100SharedPerSm = 233472;  // 228 KB
constexpr int kH100ThreadsPerBlock = 1024;
constexpr int kH100WarpSize = 32;
// Hopper allocation rules.
constexpr int kRegisterAllocationUnit = 256;  // registers per warp
constexpr int kMaxRegistersPerThread = 255;
constexpr int kSubPartitions = 4;
constexpr int kSharedAllocationUnit = 128;
constexpr int kSharedReservedPerBlock = 1024;

int Or(int v, int fallback) { return v > 0 ? v : fallback; }

}  // namespace

Occupancy TheoreticalOccupancy(const model::DeviceInfo& device, uint32_t threads_per_block,
                               uint32_t registers_per_thread, uint32_t shared_bytes_per_block) {
  Occupancy o;
  const int warp_size = Or(device.warp_size, kH100WarpSize);
  const int max_warps = Or(device.max_warps_per_sm, kH100MaxWarpsPerSm);
  const int max_blocks = Or(device.max_blocks_per_sm, kH100MaxBlocksPerSm);
  const int regs_per_sm = Or(device.max_registers_per_sm, kH100RegistersPerSm);
  const int regs_per_block = Or(device.max_registers_per_block, kH100RegistersPerBlock);
  const int shared_per_sm = Or(device.max_shared_memory_per_sm, kH100SharedPerSm);
  const int max_threads = Or(device.max_threads_per_block, kH100ThreadsPerBlock);
  if (threads_per_block == 0 || threads_per_block > uint32_t(max_threads) ||
      registers_per_thread > uint32_t(kMaxRegistersPerThread)) {
    return o;
  }
  constexpr int kUnlimited = 1 << 30;
  const int warps_per_block = (int(threads_per_block) + warp_size - 1) / warp_size;
  o.limit_warps = max_warps / warps_per_block;
  o.limit_blocks = max_blocks;
  // Registers: per warp, in allocation units; each sub-partition holds a quarter.
  if (registers_per_thread == 0) {
    o.limit_registers = kUnlimited;
  } else {
    const int regs_per_warp =
        (int(registers_per_thread) * warp_size + kRegisterAllocationUnit - 1) /
        kRegisterAllocationUnit * kRegisterAllocationUnit;
    if (regs_per_warp * warps_per_block > regs_per_block) return o;
    const int warps_per_partition = regs_per_sm / kSubPartitions / regs_per_warp;
    o.limit_registers = warps_per_partition * kSubPartitions / warps_per_block;
  }
  // Shared memory: the reserved 1 KB plus the block's bytes, in allocation units.
  const int64_t shared =
      (int64_t{shared_bytes_per_block} + kSharedReservedPerBlock + kSharedAllocationUnit - 1) /
      kSharedAllocationUnit * kSharedAllocationUnit;
  o.limit_shared = static_cast<int>(std::min<int64_t>(shared_per_sm / shared, kUnlimited));
  // The limiter: the smallest limit; on ties the first of warps, blocks, registers,
  // shared memory.
  const std::pair<int, const char*> limits[] = {{o.limit_warps, "warps"},
                                                {o.limit_blocks, "blocks"},
                                                {o.limit_registers, "registers"},
                                                {o.limit_shared, "shared memory"}};
  o.blocks_per_sm = limits[0].first;
  o.limiter = limits[0].second;
  for (const auto& [n, name] : limits) {
    if (n < o.blocks_per_sm) o.blocks_per_sm = n, o.limiter = name;
  }
  if (o.blocks_per_sm <= 0) {
    o.blocks_per_sm = 0;
    return o;
  }
  o.valid = true;
  o.warps_per_sm = o.blocks_per_sm * warps_per_block;
  o.percent = 100.0 * o.warps_per_sm / max_warps;
  return o;
}

Occupancy LaunchOccupancy(const model::DeviceInfo& device, const model::KernelRecord& k) {
  if (k.flags & model::kKernelFromLaunch) return Occupancy{};
  const uint64_t threads = std::min<uint64_t>(k.block.volume(), UINT32_MAX);
  return TheoreticalOccupancy(device, static_cast<uint32_t>(threads), k.registers_per_thread,
                              k.static_shared_bytes + k.dynamic_shared_bytes);
}

uint64_t WaveBlocks(int sm_count, const Occupancy& theoretical) {
  const int per_sm =
      theoretical.valid && theoretical.blocks_per_sm > 0 ? theoretical.blocks_per_sm : 1;
  return uint64_t(sm_count) * uint64_t(per_sm);
}

}  // namespace cuscope::analysis
