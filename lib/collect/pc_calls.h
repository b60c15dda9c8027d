// The CUPTI PC Sampling calls the PC sampler (pc_sampler.h) makes, as plain data in
// and out, so that the sampler's logic runs in tests against a fake (PcCalls) and the
// real calls live in one place (CuptiPcCalls, pc_calls.cc).
#ifndef CUSCOPE_LIB_COLLECT_PC_CALLS_H_
#define CUSCOPE_LIB_COLLECT_PC_CALLS_H_

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cuscope::collect {

// One sampled PC of one drain: its function, its offset, and its samples per stall
// reason (CUPTI's reason index, samples).
struct RawPc {
  uint64_t cubin_crc = 0;
  uint64_t pc_offset = 0;
  std::string function;  // as CUPTI names it
  std::vector<std::pair<uint32_t, uint32_t>> stalls;
};

// What one drain of a context gave.
struct RawPcData {
  std::vector<RawPc> pcs;
  uint64_t total_samples = 0;     // every sample, PCs given or not
  uint64_t dropped_samples = 0;   // the hardware's, by back pressure
  uint64_t non_user_samples = 0;  // of kernels CUPTI gives no PCs for
  bool buffer_full = false;       // the hardware buffer filled: samples were lost
};

// The line of a PC, as the cubin's line table gives it.
struct PcSourceLine {
  std::string file;  // directory and file name joined
  uint32_t line = 0;
};

struct PcConfig {
  uint32_t period = 16;                // log2 of cycles between samples
  size_t scratch_bytes = 16u << 20;    // CUPTI's buffer of decoded PCs
  size_t hardware_bytes = 128u << 20;  // the device's buffer of raw samples
  size_t pcs_per_drain = 10000;        // PCs one GetData call returns at most
};

class PcCalls {
 public:
  virtual ~PcCalls() = default;
  // Enables PC sampling on `ctx`, configures it (continuous mode, `config`, every stall
  // reason, start/stop control) and starts it. Returns the stall reason names by index.
  // On failure PC sampling is left disabled on `ctx`.
  virtual absl::StatusOr<std::map<uint32_t, std::string>> Begin(CUcontext ctx,
                                                                const PcConfig& config) = 0;
  // Moves what CUPTI has decoded for `ctx` into `out` (appending), until none remains.
  virtual absl::Status Collect(CUcontext ctx, RawPcData* out) = 0;
  // Stops sampling on `ctx`, collects what is left, and disables PC sampling on it.
  virtual absl::Status End(CUcontext ctx, RawPcData* out) = 0;
  // The device of `ctx` (0 when CUPTI cannot say), and the calling thread's current
  // context (nullptr for none).
  virtual uint32_t DeviceOf(CUcontext ctx) = 0;
  virtual CUcontext CurrentContext() = 0;
  // CUPTI's CRC of a cubin; nullopt when CUPTI cannot compute it.
  virtual std::optional<uint64_t> CubinCrc(const void* cubin, size_t size) = 0;
  // The line of `pc_offset` in `function` of `cubin`; nullopt without line info.
  virtual std::optional<PcSourceLine> LineOf(const void* cubin, size_t size,
                                             const std::string& function, uint64_t pc_offset) = 0;
};

// The real calls (CUPTI's PC Sampling API).
std::unique_ptr<PcCalls> MakeCuptiPcCalls();

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_PC_CALLS_H_
