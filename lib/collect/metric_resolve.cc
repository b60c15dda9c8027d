#include "lib/collect/metric_resolve.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cuscope::collect {
namespace {

// Notes shared by several rows.
constexpr char kNoWarpgroup[] =
    "no warpgroup MMA (wgmma/tcgen05) on this chip: its MMAs are warp-level";
constexpr char kWarpOnly[] = "before Hopper every tensor MMA is warp-level: the path total";
constexpr char kTcgen05[] = "Blackwell's tcgen05 MMA in place of Hopper's wgmma";
constexpr char kByAccumulator[] = "counted per accumulator type on this chip: their sum";

}  // namespace

// One row per known spelling difference; rows for a name are tried in order. Adding
// a metric to lib/model/metrics.h that a chip spells differently: add rows here.
const std::vector<Substitute>& Substitutes() {  // lint: table
  static const auto* rows = new std::vector<Substitute>{
      // bf16 tensor ops (metrics::kTensorBf16Gmma, kTensorBf16Mma, kTensorBf16Peak).
      {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum.peak_sustained",
       {"sm__ops_path_tensor_op_utchmma_src_bf16_dst_fp32.sum.peak_sustained"},
       kTcgen05},
      {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum.peak_sustained",
       {"sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained"},
       "the bf16 tensor peak of the whole tensor path"},
      {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32",
       {"sm__ops_path_tensor_op_utchmma_src_bf16_dst_fp32"},
       kTcgen05},
      {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32", {}, kNoWarpgroup},
      {"sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32",
       {"sm__ops_path_tensor_src_bf16_dst_fp32"},
       kWarpOnly},
      // Other precisions, as Hopper spells them (for the per-precision tensor FLOPs).
      {"sm__ops_path_tensor_src_fp16.sum.peak_sustained",
       {"sm__ops_path_tensor_src_fp16_dst_fp32.sum.peak_sustained"},
       "the fp16 peak with fp32 accumulate"},
      {"sm__ops_path_tensor_src_fp16",
       {"sm__ops_path_tensor_src_fp16_dst_fp16", "sm__ops_path_tensor_src_fp16_dst_fp32"},
       kByAccumulator},
      {"sm__ops_path_tensor_src_fp8.sum.peak_sustained",
       {"sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp32.sum.peak_sustained"},
       "Blackwell's fp4/fp6/fp8 peak with fp32 accumulate"},
      {"sm__ops_path_tensor_src_fp8.sum.peak_sustained",
       {"sm__ops_path_tensor_src_fp8_dst_fp32.sum.peak_sustained"},
       "the fp8 peak with fp32 accumulate"},
      {"sm__ops_path_tensor_src_fp8",
       {"sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp16",
        "sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp32"},
       "Blackwell counts fp4, fp6 and fp8 together, per accumulator type: their sum"},
      {"sm__ops_path_tensor_src_fp8",
       {"sm__ops_path_tensor_src_fp8_dst_fp16", "sm__ops_path_tensor_src_fp8_dst_fp32"},
       kByAccumulator},
      {"sm__ops_path_tensor_op_hgmma_src_fp16",
       {"sm__ops_path_tensor_op_utchmma_src_fp16_dst_fp16",
        "sm__ops_path_tensor_op_utchmma_src_fp16_dst_fp32"},
       kTcgen05},
      {"sm__ops_path_tensor_op_hgmma_src_fp16", {}, kNoWarpgroup},
      {"sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32",
       {"sm__ops_path_tensor_op_utchmma_src_tf32_dst_fp32"},
       kTcgen05},
      {"sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32", {}, kNoWarpgroup},
      {"sm__ops_path_tensor_op_igmma_src_int8",
       {"sm__ops_path_tensor_op_utcimma_src_int8"},
       kTcgen05},
      {"sm__ops_path_tensor_op_igmma_src_int8", {}, kNoWarpgroup},
      {"sm__ops_path_tensor_op_hmma_src_fp16",
       {"sm__ops_path_tensor_src_fp16_dst_fp16", "sm__ops_path_tensor_src_fp16_dst_fp32"},
       kWarpOnly},
      {"sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32",
       {"sm__ops_path_tensor_src_tf32_dst_fp32"},
       kWarpOnly},
      {"sm__ops_path_tensor_op_imma_src_int8", {"sm__ops_path_tensor_src_int8"}, kWarpOnly},
      // Stall reasons of one generation.
      {"smsp__warps_issue_stalled_gmma", {}, "a Hopper stall reason (waiting on wgmma)"},
      // A part of SM % (metrics::SmThroughputParts): the other parts stand for it.
      {"sm__pipe_shared_cycles_active",
       {},
       "a Hopper pipe (FP16 and tensor shared): SM % from the other parts"},
  };
  return *rows;
}

std::string BaseName(const std::string& metric) { return metric.substr(0, metric.find('.')); }

namespace {

bool Has(const std::set<std::string>& base, const std::string& metric) {
  return base.count(BaseName(metric)) > 0;
}

// The row's names for `name`, or false when the row does not match it.
bool Apply(const Substitute& row, const std::string& name, std::vector<std::string>* out) {
  const std::string from = row.from;
  std::string suffix;
  if (name == from && from.find('.') != std::string::npos) {
    suffix = "";
  } else if (from.find('.') == std::string::npos && BaseName(name) == from) {
    suffix = name.substr(from.size());
  } else {
    return false;
  }
  if (row.to.size() > 1 && suffix != ".sum") return false;
  out->clear();
  for (const char* to : row.to) out->push_back(to + suffix);
  return true;
}

}  // namespace

Resolution ResolveMetrics(const std::string& chip, const std::vector<std::string>& requested,
                          const std::vector<std::string>& base_metrics) {
  std::set<std::string> base;
  for (const std::string& m : base_metrics) {
    size_t dot = m.rfind('.');
    base.insert(dot == std::string::npos ? m : m.substr(dot + 1));
  }
  Resolution out;
  out.chip = chip;
  for (const std::string& name : requested) {
    if (Has(base, name)) {
      out.metrics.push_back({name, {name}, nullptr});
      continue;
    }
    bool done = false;
    for (const Substitute& row : Substitutes()) {
      std::vector<std::string> names;
      if (!Apply(row, name, &names)) continue;
      if (!std::all_of(names.begin(), names.end(),
                       [&](const std::string& n) { return Has(base, n); })) {
        continue;
      }
      if (names.empty()) {
        out.dropped.push_back({name, row.note});
      } else {
        out.metrics.push_back({name, std::move(names), row.note});
      }
      done = true;
      break;
    }
    if (!done) out.dropped.push_back({name, nullptr});
  }
  return out;
}

std::vector<std::string> Resolution::CollectedNames() const {
  std::vector<std::string> names;
  for (const ResolvedMetric& m : metrics) {
    for (const std::string& n : m.collect) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  }
  return names;
}

std::vector<std::vector<size_t>> Resolution::Sources() const {
  std::vector<std::string> names = CollectedNames();
  std::vector<std::vector<size_t>> sources;
  for (const ResolvedMetric& m : metrics) {
    std::vector<size_t> idx;
    for (const std::string& n : m.collect) {
      idx.push_back(std::find(names.begin(), names.end(), n) - names.begin());
    }
    sources.push_back(std::move(idx));
  }
  return sources;
}

std::vector<double> Resolution::Fold(const std::vector<double>& collected) const {
  std::vector<double> values;
  for (const std::vector<size_t>& idx : Sources()) {
    double sum = 0;
    for (size_t i : idx) sum += i < collected.size() ? collected[i] : 0.0;
    values.push_back(sum);
  }
  return values;
}

std::string Resolution::DroppedLine() const {
  if (dropped.empty()) return "";
  std::vector<std::string> parts;
  for (const DroppedMetric& d : dropped) {
    parts.push_back(d.note != nullptr ? absl::StrCat(d.name, " (", d.note, ")") : d.name);
  }
  return absl::StrCat(chip, " cannot measure: ", absl::StrJoin(parts, ", "));
}

}  // namespace cuscope::collect
