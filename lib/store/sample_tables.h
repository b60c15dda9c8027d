// GPU samples' tables (since schema version 4), described for Table<Rec>::Visit
// (schema.h) like every record table. A GpuSampleConfig holds a list of metrics, so
// it is saved as rows of gpu_sample_configs, one per (device, position), the way a
// CounterSet is saved as rows (sample_rows.h flattens and rebuilds them). A
// GpuSample is one row of gpu_samples whose values are one BLOB (float64_blob.h):
// millions of samples stay millions of rows, not one row per value.
#ifndef CUSCOPE_LIB_STORE_SAMPLE_TABLES_H_
#define CUSCOPE_LIB_STORE_SAMPLE_TABLES_H_

#include <cstdint>

#include "lib/model/profile.h"

namespace cuscope::store {

template <typename Rec>
struct Table;  // schema.h

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
  static constexpr char kConstraints[] = "UNIQUE (device_id, position)";
  template <typename R, typename V>
  static void Visit(R& c, V& v) {
    v.Int("device_id", c.device_id);
    v.Int("interval_ns", c.interval_ns);
    v.Int("position", c.position);
    v.StrId("metric_id", c.metric);
  }
};

template <>
struct Table<model::GpuSample> {
  static constexpr char kName[] = "gpu_samples";
  template <typename R, typename V>
  static void Visit(R& s, V& v) {
    v.Int("device_id", s.device_id);
    v.Int("start_ns", s.start_ns);
    v.Int("end_ns", s.end_ns);
    v.Blob("metric_values", s.values);  // 8 bytes per metric, in position order
  }
};

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_SAMPLE_TABLES_H_
