// PC samples (the `source` setting): where in each kernel function the GPU's warps
// were when the SMs sampled them, and why they did not issue (the stall reason), as
// plain data. Continuous PC sampling has no launch: samples belong to kernel
// functions, each named once (SampledFunction). A PC maps to a source line through the
// line table kept for the sampled PCs only (PcLine), and the text of those lines is
// kept as it was read while the program ran (SourceText): reports need neither the
// GPU, nor the binary, nor the source files.
//
// Counts are additive: the collector writes the counts of each drain as new rows, so a
// (function, PC, reason) may have several rows; readers add them up.
#ifndef CUSCOPE_LIB_MODEL_PC_SAMPLES_H_
#define CUSCOPE_LIB_MODEL_PC_SAMPLES_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace cuscope::model {

using StringId = uint32_t;  // as profile.h: an id in Profile::strings

// A kernel function PC sampling saw, named once per (cubin, name).
struct SampledFunction {
  uint32_t id = 0;         // unique in a profile, not 0
  uint32_t device_id = 0;  // the device of the context it was first sampled on
  uint64_t cubin_crc = 0;  // CUPTI's CRC of the module's cubin
  StringId name = 0;       // as CUPTI names it (mangled for C++)
  bool operator==(const SampledFunction& o) const;
};

// Samples of one PC of a function with one stall reason.
struct PcSampleCount {
  uint32_t function_id = 0;  // SampledFunction::id
  uint64_t pc_offset = 0;    // from the function's start, bytes
  StringId stall = 0;        // CUPTI's stall reason name (smsp__pcsamp_warps_issue_stalled_*)
  uint64_t samples = 0;
  bool operator==(const PcSampleCount& o) const;
};

// The source line of one sampled PC, once per (function, PC). PCs without line info
// have none. `file` is the path as the line table gives it (directory joined).
struct PcLine {
  uint32_t function_id = 0;
  uint64_t pc_offset = 0;
  StringId file = 0;
  uint32_t line = 0;  // 1-based
  bool operator==(const PcLine& o) const;
};

// The text of one source line of a sampled PC, read when the file was readable while
// the program ran; once per (file, line). Lines longer than kMaxSourceTextBytes are cut.
struct SourceText {
  StringId file = 0;
  uint32_t line = 0;
  std::string text;
  bool operator==(const SourceText& o) const;
};
inline constexpr size_t kMaxSourceTextBytes = 400;

// CUPTI's stall reasons, by what the warp waited for. Stored as CUPTI's names; this is
// how readers group them. Add kinds at the end.
enum class StallKind : uint8_t {
  kOther = 0,         // a name this table does not know
  kSelected,          // issuing: not a stall
  kNotSelected,       // eligible, another warp issued
  kLongScoreboard,    // waiting on a global/local memory (L1TEX) result
  kShortScoreboard,   // waiting on shared memory or an MIO result
  kWait,              // a fixed-latency dependency
  kMathPipeThrottle,  // the math pipe is busy
  kMioThrottle,       // the MIO queue (shared memory, special math) is full
  kLgThrottle,        // the local/global memory queue is full
  kTexThrottle,       // the texture queue is full
  kBarrier,           // waiting at __syncthreads
  kMembar,            // waiting at a memory barrier
  kBranchResolving,   // waiting for a branch target
  kNoInstruction,     // instruction cache miss
  kDispatchStall,     // the dispatcher stalled
  kDrain,             // draining memory stores at exit
  kSleeping,          // __nanosleep or a yield
  kImcMiss,           // constant cache miss
  kMisc,              // CUPTI's miscellaneous
  kTensor,            // waiting on the tensor core (GMMA/HMMA) pipe
};

// The kind of a CUPTI stall reason name ("smsp__pcsamp_warps_issue_stalled_long_scoreboard"
// or the name's suffix alone); kOther for a name not known.
StallKind StallKindOf(std::string_view cupti_name);
// Whether the name is a "_not_issued" companion counter: samples also counted by its
// base reason (readers leave them out of totals).
bool IsNotIssuedStall(std::string_view cupti_name);
// What a kind means, in a few words: "waiting on global/local memory", ...
const char* StallWords(StallKind kind);
// A short stable key of a kind: "long_scoreboard", "math_pipe_throttle", ... ("other").
const char* StallKindKey(StallKind kind);

}  // namespace cuscope::model

#endif  // CUSCOPE_LIB_MODEL_PC_SAMPLES_H_
