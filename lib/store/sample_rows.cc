#include "lib/store/sample_rows.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "lib/store/meaning.h"

namespace cuscope::store {

using model::GpuSample;
using model::GpuSampleConfig;

void SampleConfigsToRows(const std::vector<GpuSampleConfig>& configs,
                         std::vector<GpuSampleConfigRow>& rows) {
  for (const GpuSampleConfig& c : configs) {
    for (size_t i = 0; i < c.metrics.size(); ++i) {
      rows.push_back({c.device_id, c.interval_ns, static_cast<uint32_t>(i), c.metrics[i]});
    }
  }
}

std::string SampleConfigsFromRows(const std::vector<GpuSampleConfigRow>& rows,
                                  std::vector<GpuSampleConfig>& out) {
  // First the devices, their intervals and metric counts; then each row at its place.
  absl::flat_hash_map<uint32_t, size_t> index;  // device -> its config's index in `configs`
  std::vector<GpuSampleConfig> configs;
  std::vector<size_t> first_row;            // of each config, from 1
  std::vector<std::vector<size_t>> row_at;  // of each config and position, from 1; 0: none
  for (size_t i = 0; i < rows.size(); ++i) {
    const GpuSampleConfigRow& r = rows[i];
    auto [it, inserted] = index.try_emplace(r.device_id, configs.size());
    if (inserted) {
      GpuSampleConfig& c = configs.emplace_back();
      c.device_id = r.device_id;
      c.interval_ns = r.interval_ns;
      first_row.push_back(i + 1);
      row_at.emplace_back();
    } else if (r.interval_ns != configs[it->second].interval_ns) {
      return absl::StrFormat(
          "gpu_sample_configs row %d: column interval_ns holds %d, expected %d (device %d's "
          "interval, from row %d): a device has one configuration",
          i + 1, r.interval_ns, configs[it->second].interval_ns, r.device_id,
          first_row[it->second]);
    }
    row_at[it->second].push_back(0);  // its size: the device's metric count
  }
  for (size_t k = 0; k < configs.size(); ++k) {
    configs[k].metrics.assign(row_at[k].size(), model::kEmptyString);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const GpuSampleConfigRow& r = rows[i];
    const size_t k = index.at(r.device_id);
    std::vector<size_t>& rows_of = row_at[k];
    if (r.position >= rows_of.size()) {
      return absl::StrFormat(
          "gpu_sample_configs row %d: column position holds %d, expected a position in "
          "[0, %d] (device %d has %d rows): positions are 0..n-1",
          i + 1, r.position, rows_of.size() - 1, r.device_id, rows_of.size());
    }
    if (rows_of[r.position] != 0) {
      return absl::StrFormat(
          "gpu_sample_configs row %d: column position holds %d, expected a position no other "
          "row of device %d has (row %d has it): a device has one configuration, its "
          "positions 0..n-1 once each",
          i + 1, r.position, r.device_id, rows_of[r.position]);
    }
    rows_of[r.position] = i + 1;
    configs[k].metrics[r.position] = r.metric;
  }
  out.insert(out.end(), configs.begin(), configs.end());
  return "";
}

std::string CheckLoadedSamples(const std::vector<GpuSampleConfig>& configs,
                               const std::vector<GpuSample>& samples) {
  absl::flat_hash_map<uint32_t, size_t> metrics;  // device -> metric count
  for (const GpuSampleConfig& c : configs) metrics[c.device_id] = c.metrics.size();
  // Samples come in runs of one device: look a device up when it changes.
  const GpuSample* previous = nullptr;
  size_t n = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const GpuSample& s = samples[i];
    if (previous == nullptr || s.device_id != previous->device_id) {
      auto it = metrics.find(s.device_id);
      if (it == metrics.end()) {
        return absl::StrFormat(
            "gpu_samples row %d: column device_id holds %d, expected a device that "
            "gpu_sample_configs configures",
            i + 1, s.device_id);
      }
      n = it->second;
    }
    previous = &s;
    if (s.values.size() != n) {
      return absl::StrFormat(
          "gpu_samples row %d: column metric_values holds a BLOB of %d bytes, expected 8 x %d "
          "= %d bytes (device %d's %d metrics, as little-endian float64)",
          i + 1, s.values.size() * 8, n, n * 8, s.device_id, n);
    }
  }
  return "";
}

namespace {

std::string CheckBatchConfigs(const model::Profile& batch, const SampleMetricCounts& written,
                              SampleMetricCounts& all) {
  all = written;
  for (size_t i = 0; i < batch.sample_configs.size(); ++i) {
    const GpuSampleConfig& c = batch.sample_configs[i];
    const std::string name = absl::StrFormat("sample_configs[%d] (device %d)", i, c.device_id);
    if (c.device_id > kMaxDeviceId) {
      return absl::StrFormat("%s: device ids are 0 to %d", name, kMaxDeviceId);
    }
    if (c.metrics.empty()) return absl::StrFormat("%s has no metrics", name);
    for (size_t j = 0; j < c.metrics.size(); ++j) {
      if (c.metrics[j] >= batch.strings.size()) {
        return absl::StrFormat(
            "string id out of range: %s.metrics[%d] is %d but the batch has %d strings", name, j,
            c.metrics[j], batch.strings.size());
      }
    }
    if (!all.try_emplace(c.device_id, c.metrics.size()).second) {
      return absl::StrFormat(
          "%s: the device has a configuration already (%s)", name,
          written.contains(c.device_id) ? "written by an earlier batch" : "earlier in this batch");
    }
  }
  return "";
}

}  // namespace

std::string CheckSampleBatch(const model::Profile& batch, const SampleMetricCounts& written) {
  SampleMetricCounts all;
  if (std::string e = CheckBatchConfigs(batch, written, all); !e.empty()) return e;
  const GpuSample* previous = nullptr;
  size_t n = 0;
  for (size_t i = 0; i < batch.samples.size(); ++i) {
    const GpuSample& s = batch.samples[i];
    if (previous == nullptr || s.device_id != previous->device_id) {
      auto it = all.find(s.device_id);
      if (it == all.end()) {
        return absl::StrFormat("samples[%d] (device %d): the device has no sample configuration", i,
                               s.device_id);
      }
      n = it->second;
    }
    previous = &s;
    if (s.values.size() != n) {
      return absl::StrFormat(
          "samples[%d] (device %d) has %d values, but its configuration has %d metrics", i,
          s.device_id, s.values.size(), n);
    }
    for (size_t j = 0; j < n; ++j) {
      if (!AcceptedMetricValue(s.values[j])) {
        return absl::StrFormat(
            "samples[%d] (device %d).values[%d] is %g, expected NaN or a finite number in [0, %g]",
            i, s.device_id, j, s.values[j], kMaxCounterValue);
      }
    }
  }
  return "";
}

}  // namespace cuscope::store
