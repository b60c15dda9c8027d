// Rules on kernels with hardware counters (lib/analysis/kernel_counters.h), one
// KernelCounters per signature: a rule fires only when its metrics were measured.
// Gains are GPU time: the signature's total kernel time x the share the fix could
// save, each estimate as docs/advisor.md gives it.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "lib/analysis/advise_rules.h"
#include "lib/analysis/ceilings.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/verdict.h"
#include "lib/model/metrics.h"

namespace cuscope::analysis::advise {
namespace {

using model::Finding;

// The share of time not covered by throughput: 1 - max(SM %, memory %) when speed
// of light was measured, else 1 - the busiest measured unit's %, else 1. Latency
// problems (occupancy, stalls) can only win back this share.
double LatencyShare(const KernelCounters& k) {
  double busiest = 0;
  if (k.verdict.sm_pct || k.verdict.memory_pct) {
    busiest = std::max(k.verdict.sm_pct.value_or(0), k.verdict.memory_pct.value_or(0));
  } else if (!k.verdict.units.empty()) {
    busiest = k.verdict.units.front().percent;
  }
  return std::clamp(1.0 - busiest / 100.0, 0.0, 1.0);
}

// What a stall reason usually means, and what helps.
const char* StallMeaning(const std::string& reason) {
  static const std::pair<const char*, const char*> kMeanings[] = {
      {"long_scoreboard",
       "waiting on global or local memory: improve locality and coalescing, stage reused data "
       "in shared memory, or keep more loads in flight"},
      {"barrier", "waiting at __syncthreads: balance the work between warps of a block"},
      {"mio_throttle",
       "the shared-memory / special-function queue is full: fewer or wider shared-memory "
       "instructions, fewer bank conflicts"},
      {"short_scoreboard",
       "waiting on shared memory or special functions: bank conflicts, MUFU-heavy code"},
      {"wait", "fixed-latency dependencies: more independent instructions (ILP) per warp"},
      {"math_pipe_throttle",
       "a math pipe is saturated: move work to another pipe or to tensor cores"},
      {"lg_throttle",
       "the global/local memory queue is full: fewer, wider (vectorized) memory instructions"},
      {"not_selected", "warps are ready but another was picked: the SM is issue-bound"},
      {"selected", "issuing: the kernel is instruction-bound"},
      {"no_instruction",
       "instruction cache misses or branch targets: smaller or less unrolled code"},
      {"dispatch_stall", "the dispatcher could not issue: pipeline conflicts"},
      {"branch_resolving", "branch targets being computed: fewer divergent branches"},
      {"membar", "memory fences: fewer __threadfence / atomics with fences"},
      {"drain", "stores draining at exit: usually small"},
      {"sleeping", "warps sleeping (nanosleep, cooperative groups)"},
      {"tex_throttle", "the texture unit's queue is full"},
      {"imc_miss", "constant cache misses: uniform, small constant data"},
      {"gmma", "waiting on warpgroup MMA (wgmma) results: the tensor cores set the pace"},
      {"misc", "miscellaneous hardware reasons"},
  };
  for (const auto& [r, meaning] : kMeanings) {
    if (reason == r) return meaning;
  }
  return "see the CUDA profiler's stall reasons";
}

Finding ForKernel(const Context& c, const KernelCounters& k, const char* rule, double gain) {
  Finding f = c.Make(rule, gain, model::GainBasis::kGpu);
  f.kernel = k.name;
  f.device_id = k.device_id;
  return f;
}

void Grid(const KernelCounters& k, Finding& f) {
  f.evidence.emplace_back("grid_blocks", static_cast<double>(k.grid.volume()));
  f.evidence.emplace_back("block_threads", static_cast<double>(k.block.volume()));
  f.evidence.emplace_back("kernel_time_ns", static_cast<double>(k.total_time_ns));
}

bool BankConflicts(const Context& c, const KernelCounters& k, std::vector<Finding>& out) {
  if (!k.memory || !k.has(metrics::kSharedLdInst)) return false;
  const double ratio =
      std::max(k.memory->shared_ld_conflicts_per_inst, k.memory->shared_st_conflicts_per_inst);
  if (ratio < c.t.bank_conflicts) return false;
  // ncu's estimate: the extra wavefronts' share x how busy L1/shared memory is.
  const double l1 = k.pct_l1                 ? *k.pct_l1 / 100.0
                    : k.sol && k.sol->has_l1 ? k.sol->l1_pct / 100.0
                                             : 1.0;
  const double share = ratio / (1.0 + ratio) * std::clamp(l1, 0.0, 1.0);
  Finding f =
      ForKernel(c, k, "shared_bank_conflicts", static_cast<double>(k.total_time_ns) * share);
  if (!c.Keeps(f)) return false;
  f.summary = absl::StrFormat(
      "%.1f shared-memory bank conflicts per shared instruction (loads %.1f, stores %.1f): "
      "each access is replayed %.0f times",
      ratio, k.memory->shared_ld_conflicts_per_inst, k.memory->shared_st_conflicts_per_inst,
      1 + ratio);
  f.advice =
      "Threads of a warp hit the same bank: pad shared arrays by one element per row "
      "(tile[32][33] for a 32x32 float tile), or swizzle the index, so that a column access "
      "spreads over the 32 banks.";
  f.evidence = {{"conflicts_per_shared_ld", k.memory->shared_ld_conflicts_per_inst},
                {"conflicts_per_shared_st", k.memory->shared_st_conflicts_per_inst},
                {"l1_busy_pct", l1 * 100}};
  Grid(k, f);
  out.push_back(std::move(f));
  return true;
}

bool Uncoalesced(const Context& c, const KernelCounters& k, std::vector<Finding>& out) {
  if (!k.memory || !k.has(metrics::kGlobalLdRequests)) return false;
  const double s =
      std::max(k.memory->global_ld_sectors_per_request, k.memory->global_st_sectors_per_request);
  if (s < c.t.sectors_per_request) return false;
  // 4 sectors per request is a warp reading 32 consecutive 4-byte words.
  const double memory = k.verdict.memory_pct ? *k.verdict.memory_pct / 100.0
                        : k.pct_dram         ? *k.pct_dram / 100.0
                                             : 1.0;
  const double share = (1.0 - 4.0 / s) * std::clamp(memory, 0.0, 1.0);
  Finding f = ForKernel(c, k, "uncoalesced_access", static_cast<double>(k.total_time_ns) * share);
  if (!c.Keeps(f)) return false;
  f.summary = absl::StrFormat(
      "%.1f global-memory sectors per request (loads %.1f, stores %.1f; 4 when a warp reads "
      "consecutive 4-byte words): most of each 32-byte sector fetched goes unused",
      s, k.memory->global_ld_sectors_per_request, k.memory->global_st_sectors_per_request);
  f.advice =
      "Make consecutive threads access consecutive addresses: index with threadIdx.x in the "
      "fastest-moving dimension, use a structure of arrays, or stage strided data through "
      "shared memory.";
  f.evidence = {{"sectors_per_ld_request", k.memory->global_ld_sectors_per_request},
                {"sectors_per_st_request", k.memory->global_st_sectors_per_request},
                {"memory_busy_pct", memory * 100}};
  Grid(k, f);
  out.push_back(std::move(f));
  return true;
}

bool LowOccupancy(const Context& c, const KernelCounters& k, std::vector<Finding>& out) {
  // Only where latency limits the kernel: a throughput-bound kernel (a tensor-core
  // GEMM at 12% occupancy) gains nothing from more warps.
  if (!k.theoretical.valid && !k.achieved_occupancy) return false;
  if (k.verdict.bound != Bound::kLatency && k.verdict.bound != Bound::kUnknown) return false;
  // Unknown for want of its tensor precision's counters: most likely a tensor-core
  // GEMM, whose low occupancy is by design.
  if (k.verdict.bound == Bound::kUnknown && !k.verdict.unmeasured_tensor.empty()) return false;
  const double occ = k.achieved_occupancy ? k.achieved_occupancy->percent : k.theoretical.percent;
  if (occ >= c.t.low_occupancy_pct || c.t.low_occupancy_pct <= 0) return false;
  const double share = (1.0 - occ / c.t.low_occupancy_pct) * LatencyShare(k);
  Finding f = ForKernel(c, k, "low_occupancy", static_cast<double>(k.total_time_ns) * share);
  if (!c.Keeps(f)) return false;
  const std::string limiter = k.theoretical.valid ? k.theoretical.limiter : "unknown";
  f.summary = k.achieved_occupancy
                  ? absl::StrFormat(
                        "Occupancy %s (achieved; theoretical %s, limited by %s): too few warps "
                        "to hide latency",
                        Pct(occ), Pct(k.theoretical.percent), limiter)
                  : absl::StrFormat(
                        "Occupancy %s (theoretical, limited by %s): too few warps to hide latency",
                        Pct(occ), limiter);
  f.advice = limiter == "registers"       ? "Registers limit the resident warps: cap them "
                                            "(__launch_bounds__, -maxrregcount) or simplify the kernel."
             : limiter == "shared memory" ? "Shared memory limits the resident blocks: use smaller "
                                            "tiles or fewer buffers per block."
             : limiter == "blocks" ? "The per-SM block limit caps the warps: use larger blocks "
                                     "(more threads per block)."
                                   : "Launch more warps per SM: larger blocks or more blocks, "
                                     "fewer registers and less shared memory per block.";
  f.evidence = {
      {"occupancy_pct", occ},
      {"theoretical_pct", k.theoretical.percent},
      {"blocks_per_sm", static_cast<double>(k.theoretical.blocks_per_sm)},
      {"registers_per_thread",
       k.launch_config ? static_cast<double>(k.launch_config->registers_per_thread) : 0},
      {"shared_bytes_per_block",
       k.launch_config ? static_cast<double>(k.launch_config->shared_bytes_per_block) : 0}};
  Grid(k, f);
  out.push_back(std::move(f));
  return true;
}

bool Waves(const Context& c, const KernelCounters& k, std::vector<Finding>& out) {
  const uint64_t grid = k.grid.volume();
  if (k.wave_blocks == 0 || grid == 0) return false;
  const double waves = static_cast<double>(grid) / static_cast<double>(k.wave_blocks);
  const double full = static_cast<double>(grid / k.wave_blocks);
  const double last = waves - full;  // the last wave's fill, 0 when it is full
  const double rounds = full + (last > 0 ? 1 : 0);
  const double idle = waves < 1 ? 1.0 - waves : last > 0 ? (1.0 - last) / rounds : 0.0;
  if (100.0 * idle < c.t.tail_pct) return false;
  Finding f = ForKernel(c, k, waves < 1 ? "small_grid" : "tail_wave",
                        static_cast<double>(k.total_time_ns) * idle);
  if (!c.Keeps(f)) return false;
  f.summary = waves < 1
                  ? absl::StrFormat("%d blocks fill %s of one wave (%d blocks): most SMs stay idle",
                                    grid, Pct(100 * waves), k.wave_blocks)
                  : absl::StrFormat(
                        "%.2f waves of %d blocks: the last wave runs %s full, leaving the GPU "
                        "%s idle over the kernel",
                        waves, k.wave_blocks, Pct(100 * last), Pct(100 * idle));
  f.advice = waves < 1 ? "Give the GPU more parallel work: more, smaller blocks (split the "
                         "problem further, split-K for a GEMM), or run independent kernels "
                         "concurrently on streams."
                       : "Size the grid to a multiple of the wave (SMs x blocks per SM), or "
                         "change the tile size so the last wave is full.";
  f.evidence = {{"waves", waves},
                {"wave_blocks", static_cast<double>(k.wave_blocks)},
                {"idle_pct", 100 * idle}};
  Grid(k, f);
  out.push_back(std::move(f));
  return true;
}

bool Fp32Gemm(const Context& c, const KernelCounters& k, const std::vector<Ceilings>& ceilings,
              std::vector<Finding>& out) {
  if (!k.flops_of(Precision::kFp32).measured || k.tensor_flops > 0 || k.total_flops <= 0 ||
      k.fp32_flops < 0.9 * k.total_flops || k.pct_fp32 < c.t.fp32_gemm_pct) {
    return false;
  }
  double ratio = 0;  // FP32 roof / TF32 tensor roof
  for (const Ceilings& ce : ceilings) {
    if (ce.device_id == k.device_id && PeakFlops(ce, Precision::kTensorTf32) > 0) {
      ratio = PeakFlops(ce, Precision::kFp32) / PeakFlops(ce, Precision::kTensorTf32);
    }
  }
  const double share = k.pct_fp32 / 100.0 * (1.0 - std::clamp(ratio, 0.0, 1.0));
  Finding f =
      ForKernel(c, k, "fp32_without_tensor_cores", static_cast<double>(k.total_time_ns) * share);
  if (!c.Keeps(f)) return false;
  f.summary = absl::StrFormat(
      "FP32 math at %s of the FP32 roof and no tensor-core operation: a float32 GEMM-like "
      "kernel on CUDA cores%s",
      Pct(k.pct_fp32),
      ratio > 0 ? absl::StrFormat(" (the TF32 tensor roof is %.1fx higher)", 1 / ratio) : "");
  f.advice =
      "Use tensor cores: allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True, "
      "torch.set_float32_matmul_precision(\"high\"), CUBLAS_TF32_TENSOR_OP_MATH) or compute in "
      "bf16/fp16 (autocast).";
  f.evidence = {{"fp32_pct_of_peak", k.pct_fp32},
                {"fp32_flops", k.fp32_flops},
                {"tf32_roof_ratio", ratio > 0 ? 1 / ratio : 0}};
  Grid(k, f);
  out.push_back(std::move(f));
  return true;
}

bool Fp64(const Context& c, const KernelCounters& k, double program_fp32, double program_fp64,
          std::vector<Finding>& out) {
  if (!k.flops_of(Precision::kFp64).measured || k.total_flops <= 0 || k.fp64_flops <= 0)
    return false;
  const double share = 100.0 * k.fp64_flops / k.total_flops;
  if (share < c.t.fp64_pct || program_fp32 < program_fp64) return false;
  const double pipe = k.sol && k.sol->fp64_pipe_pct > 0 ? k.sol->fp64_pipe_pct / 100.0
                      : k.pct_fp64 > 0                  ? k.pct_fp64 / 100.0
                                                        : share / 100.0;
  Finding f = ForKernel(c, k, "fp64_in_fp32_program",
                        static_cast<double>(k.total_time_ns) * std::clamp(pipe, 0.0, 1.0));
  if (!c.Keeps(f)) return false;
  f.summary = absl::StrFormat(
      "%s of this kernel's FLOPs are FP64 (FP64 pipe at %s) in a program that computes mostly "
      "in FP32",
      Pct(share), Pct(100 * pipe));
  f.advice =
      "Double precision runs at a fraction of FP32's rate: write float literals with an f "
      "(1.0f), call the float functions (sqrtf, expf), and keep accumulators in float unless "
      "the result needs double.";
  f.evidence = {
      {"fp64_share_pct", share}, {"fp64_flops", k.fp64_flops}, {"fp64_pipe_pct", 100 * pipe}};
  Grid(k, f);
  out.push_back(std::move(f));
  return true;
}

void TopStall(const Context& c, const KernelCounters& k, std::vector<Finding>& out) {
  if (k.stalls.empty() || k.stalls.front().percent < c.t.stall_pct) return;
  // Only a latency-bound kernel (or one without a verdict): where a unit is busy enough
  // to bound the kernel (ncu's 60% line), warps stall because of it, and the unit is
  // what to work on.
  if (k.verdict.bound != Bound::kLatency && k.verdict.bound != Bound::kUnknown) return;
  const StallShare& top = k.stalls.front();
  const double share = top.percent / 100.0 * LatencyShare(k);
  Finding f = ForKernel(c, k, "dominant_stall", static_cast<double>(k.total_time_ns) * share);
  if (!c.Keeps(f)) return;
  f.summary = absl::StrFormat("Warps stall on %s %s of their cycles: %s", top.reason,
                              Pct(top.percent), StallMeaning(top.reason));
  f.advice = absl::StrFormat("Address the %s stall: %s.", top.reason, StallMeaning(top.reason));
  f.evidence = {{"stall_pct", top.percent}};
  if (k.stalls.size() > 1) f.evidence.emplace_back("second_stall_pct", k.stalls[1].percent);
  Grid(k, f);
  out.push_back(std::move(f));
}

}  // namespace

void KernelRules(const Context& c, std::vector<Finding>& out) {
  if (c.profile.counters.empty()) return;
  const std::vector<Ceilings> ceilings = ComputeAllCeilings(c.profile);
  const std::vector<KernelCounters> kernels = AnalyzeCounters(c.profile, ceilings, nullptr);
  double fp32 = 0, fp64 = 0;
  for (const KernelCounters& k : kernels) {
    const double launches = static_cast<double>(std::max<uint64_t>(k.launches, 1));
    fp32 += (k.fp32_flops + k.tensor_flops) * launches;
    fp64 += k.fp64_flops * launches;
  }
  const std::vector<AlignedBest> aligned = BestAlignedGemms(kernels);
  for (const KernelCounters& k : kernels) {
    if (k.region || k.total_time_ns == 0) continue;
    bool explained = MisalignedGemm(c, k, aligned, out);
    explained |= BankConflicts(c, k, out);
    explained |= Uncoalesced(c, k, out);
    explained |= Fp32Gemm(c, k, ceilings, out);
    explained |= Fp64(c, k, fp32, fp64, out);
    explained |= LowOccupancy(c, k, out);
    explained |= Waves(c, k, out);
    // The dominant stall only when no specific rule explains the kernel.
    if (!explained) TopStall(c, k, out);
  }
}

}  // namespace cuscope::analysis::advise
