// GPU sample configurations as rows of gpu_sample_configs (sample_tables.h) and
// back, and the rules that tie samples to their device's configuration: checked on
// load (a file that breaks them is damaged) and before a batch is written (a batch
// that breaks them is refused whole, so that what the writer wrote always loads).
#ifndef CUSCOPE_LIB_STORE_SAMPLE_ROWS_H_
#define CUSCOPE_LIB_STORE_SAMPLE_ROWS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/profile.h"
#include "lib/store/sample_tables.h"

namespace cuscope::store {

// The rows of `configs`, appended to `rows`: each configuration's metrics at
// positions 0..n-1, in order.
void SampleConfigsToRows(const std::vector<model::GpuSampleConfig>& configs,
                         std::vector<GpuSampleConfigRow>& rows);

// The configurations of `rows` (in rowid order), one per device in the order of its
// first row, appended to `out`: "" when the rows make configurations, else what is
// wrong with them (for a "damaged" error): a device whose rows have different
// intervals, or whose positions are not 0..n-1 once each (a device configured twice).
std::string SampleConfigsFromRows(const std::vector<GpuSampleConfigRow>& rows,
                                  std::vector<model::GpuSampleConfig>& out);

// "" when every sample names a device that has a configuration and holds one value
// per metric of it; else what is wrong, naming the gpu_samples row.
std::string CheckLoadedSamples(const std::vector<model::GpuSampleConfig>& configs,
                               const std::vector<model::GpuSample>& samples);

// The metric count of each device whose configuration the writer has written.
using SampleMetricCounts = absl::flat_hash_map<uint32_t, size_t>;

// "" when the configurations and samples of `batch` may be appended to a file that
// has the configurations `written`; else what is wrong, naming the batch's element
// ("sample_configs[1]", "samples[7]"): a configuration with no metrics, of a device id
// above 1023, given twice or already written, or naming a string id outside the
// batch's table; a sample of a device without a configuration, of another number
// of values than its configuration's metrics, or with a value the loader refuses
// (AcceptedMetricValue, meaning.h).
std::string CheckSampleBatch(const model::Profile& batch, const SampleMetricCounts& written);

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_SAMPLE_ROWS_H_
