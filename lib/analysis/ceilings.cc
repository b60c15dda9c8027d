#include "lib/analysis/ceilings.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "lib/model/metrics.h"

namespace cuscope::analysis {
namespace {

namespace m = ::cuscope::metrics;

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Per device: the value of each of a fixed list of metrics (device_metrics first,
// else the median over the device's CounterSets).
class DeviceValues {
 public:
  DeviceValues(const model::Profile& p, uint32_t device_id,
               const std::vector<const char*>& metrics) {
    for (size_t i = 0; i < metrics.size(); ++i) names_[metrics[i]] = i;
    std::vector<std::vector<double>> samples(metrics.size());
    std::vector<bool> direct(metrics.size(), false);
    values_.assign(metrics.size(), 0);
    found_.assign(metrics.size(), false);
    for (const model::DeviceMetric& d : p.device_metrics) {
      if (d.device_id != device_id) continue;
      auto it = names_.find(absl::string_view(p.str(d.metric)));
      if (it == names_.end()) continue;
      values_[it->second] = d.value;
      found_[it->second] = direct[it->second] = true;
    }
    for (const model::CounterSet& s : p.counters) {
      if (s.device_id != device_id) continue;
      for (const auto& [id, v] : s.values) {
        auto it = names_.find(absl::string_view(p.str(id)));
        if (it == names_.end() || direct[it->second] || !std::isfinite(v)) continue;
        samples[it->second].push_back(v);
      }
    }
    for (size_t i = 0; i < metrics.size(); ++i) {
      if (direct[i] || samples[i].empty()) continue;
      values_[i] = Median(std::move(samples[i]));
      found_[i] = true;
    }
  }
  // 0 when not measured.
  double Get(const char* metric) const {
    auto it = names_.find(metric);
    return it != names_.end() && found_[it->second] ? values_[it->second] : 0;
  }

 private:
  absl::flat_hash_map<absl::string_view, size_t> names_;
  std::vector<double> values_;
  std::vector<bool> found_;
};

// Product of positive factors, 0 when one is missing.
double Peak(double per_cycle, double factor, double clock_hz) {
  if (!(per_cycle > 0) || !(clock_hz > 0) || !std::isfinite(per_cycle) ||
      !std::isfinite(clock_hz)) {
    return 0;
  }
  return per_cycle * factor * clock_hz;
}

}  // namespace

const char* PrecisionName(Precision p) {
  switch (p) {
    case Precision::kFp64:
      return "FP64";
    case Precision::kFp32:
      return "FP32";
    case Precision::kFp16:
      return "FP16";
    case Precision::kTensorFp16:
      return "FP16 tensor";
    case Precision::kTensorBf16:
      return "BF16 tensor";
    case Precision::kTensorTf32:
      return "TF32 tensor";
    case Precision::kTensorFp8:
      return "FP8 tensor";
    case Precision::kTensorInt8:
      return "INT8 tensor";
    case Precision::kTensorFp64:
      return "FP64 tensor";
  }
  return "?";
}

const char* PrecisionKey(Precision p) {
  switch (p) {
    case Precision::kFp64:
      return "fp64";
    case Precision::kFp32:
      return "fp32";
    case Precision::kFp16:
      return "fp16";
    case Precision::kTensorFp16:
      return "tensor_fp16";
    case Precision::kTensorBf16:
      return "tensor_bf16";
    case Precision::kTensorTf32:
      return "tensor_tf32";
    case Precision::kTensorFp8:
      return "tensor_fp8";
    case Precision::kTensorInt8:
      return "tensor_int8";
    case Precision::kTensorFp64:
      return "tensor_fp64";
  }
  return "?";
}

bool IsTensor(Precision p) {
  return static_cast<int>(p) >= static_cast<int>(Precision::kTensorFp16);
}

double PeakFlops(const Ceilings& c, Precision p) { return c.peak_flops[static_cast<size_t>(p)]; }
double PeakFlopsPerCycle(const Ceilings& c, Precision p) {
  return c.flops_per_cycle[static_cast<size_t>(p)];
}

Ceilings ComputeCeilings(const model::Profile& profile, uint32_t device_id) {
  static const std::vector<const char*> kMetrics = {
      m::kSmClock,        m::kDramClock,          m::kL2Clock,
      m::kL1Clock,        m::kDramPeak,           m::kL2Peak,
      m::kL1Peak,         m::kFfmaPeak,           m::kDfmaPeak,
      m::kHfmaPeak,       m::kTensorFp8DensePeak, m::kTensorFp64Peak,
      m::kTensorFp16Peak, m::kTensorBf16Peak};
  const DeviceValues v(profile, device_id, kMetrics);
  Ceilings c;
  c.device_id = device_id;
  c.sm_clock_hz = v.Get(m::kSmClock);
  auto set = [&](Precision p, double per_cycle) {
    if (!(per_cycle > 0) || !std::isfinite(per_cycle)) return;
    c.flops_per_cycle[static_cast<size_t>(p)] = per_cycle;
    c.peak_flops[static_cast<size_t>(p)] = Peak(per_cycle, 1, c.sm_clock_hz);
  };
  set(Precision::kFp32, 2 * v.Get(m::kFfmaPeak));
  set(Precision::kFp64, 2 * v.Get(m::kDfmaPeak));
  set(Precision::kFp16, 4 * v.Get(m::kHfmaPeak));
  // Tensor ops are FLOPs (an FMA = 2 ops: a GEMM's ops are 2mnk). Dense rates: FP8
  // from its sparsity-off path; FP16 and BF16 half of it, TF32 a quarter, INT8 the
  // same (the dense ratios of every generation with FP8). Without it, the FP16 path's
  // peak, which is the 2:4-sparse rate (as the bf16 wgmma path's is), / 2; older
  // profiles have only that bf16 path's peak (docs/validation.md, "Facts the code
  // relies on").
  double fp16_dense = v.Get(m::kTensorFp8DensePeak) / 2;
  if (!(fp16_dense > 0)) fp16_dense = v.Get(m::kTensorFp16Peak) / 2;
  if (!(fp16_dense > 0)) fp16_dense = v.Get(m::kTensorBf16Peak) / 2;
  set(Precision::kTensorFp16, fp16_dense);
  set(Precision::kTensorBf16, fp16_dense);
  set(Precision::kTensorTf32, fp16_dense / 2);
  set(Precision::kTensorInt8, 2 * fp16_dense);
  if (v.Get(m::kTensorFp8DensePeak) > 0) set(Precision::kTensorFp8, 2 * fp16_dense);
  // DMMA has no sparse mode: its peak is the dense rate.
  set(Precision::kTensorFp64, v.Get(m::kTensorFp64Peak));
  c.peak_dram_bytes_per_s = Peak(v.Get(m::kDramPeak), 1, v.Get(m::kDramClock));
  c.peak_l2_bytes_per_s = Peak(v.Get(m::kL2Peak), 1, v.Get(m::kL2Clock));
  c.peak_l1_bytes_per_s = Peak(v.Get(m::kL1Peak), 1, v.Get(m::kL1Clock));
  c.valid = c.peak_dram_bytes_per_s > 0 || c.peak_l2_bytes_per_s > 0 || c.peak_l1_bytes_per_s > 0;
  for (double f : c.flops_per_cycle) c.valid = c.valid || f > 0;
  return c;
}

std::vector<Ceilings> ComputeAllCeilings(const model::Profile& profile) {
  std::set<uint32_t> ids;
  for (const model::CounterSet& s : profile.counters) ids.insert(s.device_id);
  for (const model::DeviceMetric& d : profile.device_metrics) ids.insert(d.device_id);
  std::vector<Ceilings> out;
  for (uint32_t id : ids) out.push_back(ComputeCeilings(profile, id));
  return out;
}

}  // namespace cuscope::analysis
