// GPU samples' tables (since schema version 4), declared for Table<Rec>::Visit
// (table.h) like every record table. A GpuSampleConfig holds a list of metrics, so
// it is saved as rows of gpu_sample_configs, one per (device, position), the way a
// CounterSet is saved as rows (sample_rows.h flattens and rebuilds them). A
// GpuSample is one row of gpu_samples whose values are one BLOB (float64_blob.h):
// millions of samples stay millions of rows, not one row per value.
#ifndef CUSCOPE_LIB_STORE_SAMPLE_TABLES_H_
#define CUSCOPE_LIB_STORE_SAMPLE_TABLES_H_

#include <cstdint>

#include "lib/model/profile.h"
#include "lib/store/table.h"

namespace cuscope::store {

// One metric of a device's sample configuration: the metric at `position` of
// GpuSampleConfig::metrics (and of each GpuSample::values of that device).
struct GpuSampleConfigRow {
  uint32_t device_id = 0;
  uint64_t interval_ns = 0;  // the same in every row of a device
  uint32_t position = 0;
  model::StringId metric = model::kEmptyString;
};

template <>
struct Table<GpuSampleConfigRow> {
  static constexpr char kName[] = "gpu_sample_configs";
  static constexpr char kDoc[] =
      "GPU metrics sampled at a fixed interval of GPU time (CUPTI PM sampling; since version "
      "4): one configuration per device (`GpuSampleConfig`) naming the metrics, and the "
      "samples (`gpu_samples`), each holding one value per metric of its device. One row per "
      "metric of a device's configuration; the device's metrics are its rows ordered by "
      "`position`. `(device_id, position)` is `UNIQUE`. A device has at most one "
      "configuration, of at least one metric, written in the batch of its first samples (or "
      "earlier). The view `gpu_sample_configs_named` names each row's metric.";
  static constexpr char kConstraints[] = "UNIQUE (device_id, position)";
  template <typename R, typename V>
  static void Visit(R& c, V& v) {
    v.Int("device_id", c.device_id, "`devices.id`");
    v.Int("interval_ns", c.interval_ns,
          {"ns", "the sampling interval asked for; the same in every row of a device"});
    v.Int("position", c.position,
          "the metric's place in `GpuSampleConfig::metrics` and in each sample's values: 0 to "
          "n - 1, once each, for a device of n metrics");
    v.StrId("metric_id", c.metric, "the metric name");
  }
};

template <>
struct Table<model::GpuSample> {
  static constexpr char kName[] = "gpu_samples";
  static constexpr char kDoc[] =
      "One row per sample (`GpuSample`), in the order written (`ORDER BY device_id, start_ns` "
      "for each device's time series). The values are one `BLOB` per sample, not one row per "
      "value, so that millions of samples of ~10 metrics stay millions of compact rows (about "
      "90 bytes each for 8 metrics). Unlike a `REAL` column, the `BLOB` keeps a NaN (a value "
      "not measured) bit for bit. Value `i` of a sample is bytes `8i` to `8i + 7`: in the "
      "shell, `substr(metric_values, 8 * i + 1, 8)`; in Python, `struct.unpack(f\"<{len(blob) "
      "// 8}d\", blob)`; with NumPy, `numpy.frombuffer(blob, dtype=\"<f8\")`.";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& s, V& v) {
    v.Int("device_id", s.device_id, "`devices.id`; a device with a configuration");
    v.Int("start_ns", s.start_ns,
          {"ns, CUPTI clock", "start of the interval the values cover, on the kernels' clock"});
    v.Int("end_ns", s.end_ns, {"ns, CUPTI clock", "end of the interval the values cover"});
    v.Blob("metric_values", s.values,
           {"the metrics'",
            "8 x n bytes: the n values in `position` order, each an IEEE 754 binary64 (C++ "
            "`double`), little-endian"});
  }
};

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_SAMPLE_TABLES_H_
