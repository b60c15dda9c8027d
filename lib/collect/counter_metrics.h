// A session's metric configuration: the chip, NVIDIA's metrics library for it, the
// names the Range Profiler collects (the requested metrics as this chip has them,
// metric_resolve.h) and the configuration image. Made once per session, at the first
// context measured.
//
// Not thread-safe: used under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_COUNTER_METRICS_H_
#define CUSCOPE_LIB_COLLECT_COUNTER_METRICS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/collect/counter_notes.h"
#include "lib/collect/counter_outbox.h"
#include "lib/collect/metric_host.h"
#include "lib/collect/metric_resolve.h"
#include "lib/collect/options.h"
#include "lib/collect/planner.h"

namespace cuscope::collect {

class CounterMetrics {
 public:
  // The configuration for the chip of `device_id`: the planner learns the passes, the
  // outbox the names of the values, the notes the chip, passes and strategy. False
  // (the counters_status note says why) when the chip cannot measure what is asked.
  bool SetUp(uint32_t device_id, const CollectOptions& options, Planner& planner,
             CounterNotes& notes, CounterOutbox& outbox);
  bool ready() const { return host_ != nullptr; }

  const std::vector<std::string>& names() const { return names_; }  // as collected
  const MetricHost::Config& config() const { return config_; }
  MetricHost& host() { return *host_; }
  // Set when a requested name is collected through a substitute: folds the chip's
  // values into the requested names.
  const std::optional<Resolution>& resolution() const { return resolution_; }

 private:
  // The requested metrics as this chip collects them: what a named set needs and the
  // chip lacks is dropped, in one line; a raw name the chip lacks is refused with the
  // nearest valid names.
  std::optional<Resolution> ResolveForChip(const CounterOptions& options, CounterNotes& notes);

  std::string chip_;
  std::unique_ptr<MetricHost> host_;
  std::vector<std::string> names_;
  MetricHost::Config config_;
  std::optional<Resolution> resolution_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_COUNTER_METRICS_H_
