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
// Tensor-core operations (bf16 inputs, fp32 accumulate), warpgroup (Hopper wgmma)
// and warp (mma) paths. Counted as operations (FLOPs).
inline constexpr const char kTensorBf16Gmma[] = "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum";
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
inline constexpr const char kFfmaPeak[] = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained";
inline constexpr const char kDfmaPeak[] = "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained";
inline constexpr const char kHfmaPeak[] = "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained";
inline constexpr const char kTensorBf16Peak[] =
    "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum.peak_sustained";

// Speed of light (each several passes).
inline constexpr const char kSmThroughputPct[] = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kMemThroughputPct[] =
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kDramThroughputPct[] = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kL2ThroughputPct[] = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kL1ThroughputPct[] = "l1tex__throughput.avg.pct_of_peak_sustained_active";
inline constexpr const char kTensorPipePct[] = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kFmaPipePct[] = "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active";

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

// The named sets: "roofline", "sol", "occupancy", "stalls", "memory", "full".
const std::vector<std::string>& SetNames();
// The metrics of a named set (empty if the name is not a set).
std::vector<std::string> SetMetrics(const std::string& set);
// A requested list (named sets and raw metric names) as metric names: sets
// expanded, raw names kept, each name once, in first-seen order.
std::vector<std::string> ExpandMetrics(const std::vector<std::string>& requested);

}  // namespace cuscope::metrics

#endif  // CUSCOPE_LIB_MODEL_METRICS_H_
