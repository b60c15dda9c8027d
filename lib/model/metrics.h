// Names of the hardware metrics cuscope collects, by what they mean, and the
// metric sets users ask for (--metrics roofline,sol,...). Plain strings: collection
// configures CUPTI with them, analysis reads CounterSet values by them.
// Names are those of CUPTI's Profiler Host API on Hopper (GH100); not every `ncu`
// name exists there.
#ifndef CUSCOPE_LIB_MODEL_METRICS_H_
#define CUSCOPE_LIB_MODEL_METRICS_H_

#include <string>
#include <vector>

namespace cuscope::metrics {

// Duration of the measured range (ns).
inline constexpr const char kDuration[] = "gpu__time_duration.sum";

// SASS thread-instruction counts by precision (an fma counts 2 FLOPs; FP16
// instructions work on half2 pairs: `ncu` counts 2 FLOPs per hadd/hmul, 4 per hfma).
inline constexpr const char kFadd[] = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum";
inline constexpr const char kFmul[] = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum";
inline constexpr const char kFfma[] = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum";
inline constexpr const char kDadd[] = "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum";
inline constexpr const char kDmul[] = "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum";
inline constexpr const char kDfma[] = "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum";
inline constexpr const char kHadd[] = "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum";
inline constexpr const char kHmul[] = "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum";
inline constexpr const char kHfma[] = "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum";
// Tensor-core operations by source precision, every path (Hopper wgmma and the
// warp-level mma.sync / dmma): counted as operations = FLOPs (an FMA is 2), so a
// GEMM's count is 2mnk (docs/validation.md, "Facts the code relies on").
inline constexpr const char kTensorFp16[] = "sm__ops_path_tensor_src_fp16.sum";
inline constexpr const char kTensorBf16[] = "sm__ops_path_tensor_src_bf16_dst_fp32.sum";
inline constexpr const char kTensorTf32[] = "sm__ops_path_tensor_src_tf32_dst_fp32.sum";
inline constexpr const char kTensorFp8[] = "sm__ops_path_tensor_src_fp8.sum";
inline constexpr const char kTensorInt8[] = "sm__ops_path_tensor_src_int8.sum";
inline constexpr const char kTensorFp64[] = "sm__ops_path_tensor_src_fp64.sum";
// Recorded by earlier versions (bf16 only, by path): read when kTensorBf16 is absent.
inline constexpr const char kTensorBf16Gmma[] =
    "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum";
inline constexpr const char kTensorBf16Mma[] = "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum";

// Bytes moved at each level of the memory hierarchy.
inline constexpr const char kDramBytes[] = "dram__bytes.sum";
inline constexpr const char kL2Bytes[] = "lts__t_bytes.sum";
inline constexpr const char kL1Bytes[] = "l1tex__t_bytes.sum";
// The same as % of the unit's peak over the range.
inline constexpr const char kDramPct[] = "dram__bytes.sum.pct_of_peak_sustained_elapsed";
inline constexpr const char kL2Pct[] = "lts__t_bytes.sum.pct_of_peak_sustained_elapsed";
inline constexpr const char kL1Pct[] = "l1tex__t_bytes.sum.pct_of_peak_sustained_elapsed";
// L1 data-pipe wavefronts as % of peak: the L1 limiter of uncoalesced or
// broadcast-heavy access (naive SGEMM), which bytes alone understate.
inline constexpr const char kL1WavefrontsPct[] =
    "l1tex__data_pipe_lsu_wavefronts.sum.pct_of_peak_sustained_elapsed";

// Clocks (Hz) and per-cycle peaks: the ceilings come from these, not from tables.
inline constexpr const char kSmClock[] = "sm__cycles_elapsed.avg.per_second";
inline constexpr const char kDramClock[] = "dram__cycles_elapsed.avg.per_second";
inline constexpr const char kL2Clock[] = "lts__cycles_elapsed.avg.per_second";
inline constexpr const char kL1Clock[] = "l1tex__cycles_elapsed.avg.per_second";
inline constexpr const char kDramPeak[] = "dram__bytes.sum.peak_sustained";
inline constexpr const char kL2Peak[] = "lts__t_bytes.sum.peak_sustained";
inline constexpr const char kL1Peak[] = "l1tex__t_bytes.sum.peak_sustained";
inline constexpr const char kFfmaPeak[] =
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained";
inline constexpr const char kDfmaPeak[] =
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained";
inline constexpr const char kHfmaPeak[] =
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained";
// Dense tensor peaks (docs/counters.md, "Ceilings"): FP8 from its sparsity-off path;
// FP16/BF16 = FP8 / 2, TF32 = FP8 / 4, INT8 = FP8. FP64 (dmma) has no sparse mode:
// its own peak. Without the FP8 peak (before Ada), the FP16 path's peak, which is the
// 2:4-sparse rate, / 2.
inline constexpr const char kTensorFp8DensePeak[] =
    "sm__ops_path_tensor_src_fp8_sparsity_off.sum.peak_sustained";
inline constexpr const char kTensorFp64Peak[] = "sm__ops_path_tensor_src_fp64.sum.peak_sustained";
inline constexpr const char kTensorFp16Peak[] = "sm__ops_path_tensor_src_fp16.sum.peak_sustained";
// Recorded by earlier versions: the bf16 wgmma path's peak (the 2:4-sparse rate).
inline constexpr const char kTensorBf16Peak[] =
    "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum.peak_sustained";
// Elapsed SM cycles of the range: with the per-cycle peaks, % of roof per cycle
// (clock-independent); with the duration, the kernel's own clock.
inline constexpr const char kSmCyclesElapsed[] = "sm__cycles_elapsed.max";

// Speed of light, as ncu's SpeedOfLight section: SM % and memory % (the max of
// their breakdowns), each % of peak sustained over the range's elapsed cycles.
inline constexpr const char kSmThroughputPct[] = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kMemThroughputPct[] =
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
// Per unit, % of peak over elapsed cycles: memory levels, then the SM's pipes and issue.
inline constexpr const char kDramThroughputPct[] =
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kL2ThroughputPct[] =
    "lts__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kL1ThroughputPct[] =
    "l1tex__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kTensorPipePct[] =
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kFmaPipePct[] =
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kFp64PipePct[] =
    "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kIssuePct[] = "sm__issue_active.avg.pct_of_peak_sustained_elapsed";
// Speed of light from its parts, in one pass on GH100 (the `verdict` set): members of
// ncu's breakdown of SM % and memory % whose busiest gives ncu's class on at least 98% of
// a training step's GPU time (docs/counters.md, "The verdict set"). Where SM % or
// memory % itself was not measured, analysis takes the busiest part measured.
inline constexpr const char kSharedPipePct[] =
    "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kInstExecutedPct[] =
    "sm__inst_executed.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kDramCyclesActivePct[] =
    "dram__cycles_active.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kL1LsuWavefrontsPct[] =
    "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kL2ToXbarPct[] =
    "lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kXbarToL2Pct[] =
    "lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed";
// The members of each breakdown cuscope may measure: SM % is at least the busiest of
// the first, memory % of the second (ncu computes each as the max of its breakdown).
const std::vector<std::string>& SmThroughputParts();
const std::vector<std::string>& MemoryThroughputParts();
// Recorded by earlier versions of the sol set (read when the above are absent).
inline constexpr const char kLegacyDramThroughputPct[] =
    "dram__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kLegacyL1ThroughputPct[] =
    "l1tex__throughput.avg.pct_of_peak_sustained_active";
inline constexpr const char kLegacyFmaPipePct[] =
    "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active";

// Occupancy.
inline constexpr const char kWarpsActivePct[] = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char kWarpsActivePerCycle[] = "sm__warps_active.avg.per_cycle_active";

// Warp stalls: smsp__warps_issue_stalled_<reason>.avg over smsp__warps_active.avg
// is the share of active warp-cycles stalled for that reason.
inline constexpr const char kWarpsActive[] = "smsp__warps_active.avg";
inline constexpr const char kStallPrefix[] = "smsp__warps_issue_stalled_";
const std::vector<std::string>& StallReasons();  // "long_scoreboard", "barrier", ...

// Memory access quality.
inline constexpr const char kSharedLdBankConflicts[] =
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
inline constexpr const char kSharedStBankConflicts[] =
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
inline constexpr const char kSharedLdInst[] = "smsp__inst_executed_op_shared_ld.sum";
inline constexpr const char kSharedStInst[] = "smsp__inst_executed_op_shared_st.sum";
inline constexpr const char kGlobalLdSectors[] = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char kGlobalLdRequests[] = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char kGlobalStSectors[] = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
inline constexpr const char kGlobalStRequests[] = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";

// GPU metrics sampling (CUPTI PM sampling; model::GpuSample): counters read every
// interval of GPU time, for every kernel at once. One-pass metrics only; each is a
// count over the sample (additive in time) unless it is a rate (IsSampledRate).
inline constexpr const char kSampledSmCyclesElapsed[] = "sm__cycles_elapsed.avg";
inline constexpr const char kSampledSmCyclesActive[] = "sm__cycles_active.avg";
inline constexpr const char kSampledInstExecuted[] = "sm__inst_executed.sum";
inline constexpr const char kSampledTensorPct[] =
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kSampledDramPct[] =
    "dram__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kSampledDramRead[] = "dram__bytes_read.sum";
inline constexpr const char kSampledDramWrite[] = "dram__bytes_write.sum";
inline constexpr const char kSampledL2Bytes[] = "lts__t_bytes.sum";
// Asked for by default, most wanted first: when a chip cannot sample them all in one
// pass, the last ones are left out.
const std::vector<std::string>& DefaultSampledMetrics();
// True for a metric that is a rate over the sample (a percentage, per second, per
// cycle, a ratio): averaged over time, not summed.
bool IsSampledRate(const std::string& metric);

// The named sets: "verdict", "roofline", "sol", "occupancy", "stalls", "memory", "full".
const std::vector<std::string>& SetNames();
// The metrics of a named set (empty if the name is not a set).
std::vector<std::string> SetMetrics(const std::string& set);
// A requested list (named sets and raw metric names) as metric names: sets
// expanded, raw names kept, each name once, in first-seen order.
std::vector<std::string> ExpandMetrics(const std::vector<std::string>& requested);

}  // namespace cuscope::metrics

#endif  // CUSCOPE_LIB_MODEL_METRICS_H_
