// Kernels measured by kernel replay get their times back when the profile is closed
// (lib/store/measured_times.h): a GEMM run recorded on the H200, where CUPTI wrote 0
// as the start and end of the 20 measured launches, saved again by the writer.
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "lib/model/metrics.h"
#include "lib/store/reader.h"
#include "lib/store/writer.h"
#include "tests/test_util.h"

namespace cuscope::store {
namespace {

const std::string kRecorded =
    std::string(CUSCOPE_TEST_DATA_DIR) + "/real/h200-gemm-roofline.sqlite";

TEST(MeasuredTimes, KernelReplayLaunchesArePlacedAtTheEndOfTheirApiCall) {
  auto before = LoadProfile(kRecorded);
  ASSERT_TRUE(before.ok()) << before.status();
  int untimed = 0;
  for (const model::KernelRecord& k : before->kernels) untimed += k.start_ns == 0;
  ASSERT_EQ(untimed, 20);  // as recorded: every measured launch lost its times

  const std::string path = testing_util::TempPath("measured_times.sqlite");
  ASSERT_TRUE(SaveProfile(*before, path).ok());
  auto after = LoadProfile(path);
  ASSERT_TRUE(after.ok()) << after.status();

  std::map<uint32_t, std::pair<uint64_t, uint64_t>> api;  // correlation id -> span
  for (const model::ApiRecord& a : after->api_calls) api[a.correlation_id] = {a.start_ns, a.end_ns};
  std::map<uint32_t, double> duration;  // correlation id -> gpu__time_duration.sum
  for (const model::CounterSet& s : after->counters) {
    for (uint32_t id : s.correlation_ids) {
      duration[id] = s.value(after->strings, metrics::kDuration, -1);
    }
  }
  int placed = 0;
  for (const model::KernelRecord& k : after->kernels) {
    EXPECT_NE(k.start_ns, 0u);
    if (!(k.flags & model::kKernelTimePlaced)) continue;
    ++placed;
    EXPECT_TRUE(k.flags & model::kKernelCountersMeasured);
    ASSERT_TRUE(api.count(k.correlation_id));
    EXPECT_EQ(k.end_ns, api[k.correlation_id].second);
    EXPECT_GE(k.start_ns, api[k.correlation_id].first);
    ASSERT_TRUE(duration.count(k.correlation_id));
    EXPECT_NEAR(static_cast<double>(k.duration_ns()), duration[k.correlation_id], 1.0);
  }
  EXPECT_EQ(placed, 20);
  // Timed kernels keep their own times.
  for (size_t i = 0; i < before->kernels.size(); ++i) {
    if (before->kernels[i].start_ns == 0) continue;
    EXPECT_EQ(after->kernels[i].start_ns, before->kernels[i].start_ns);
    EXPECT_FALSE(after->kernels[i].flags & model::kKernelTimePlaced);
  }
}

}  // namespace
}  // namespace cuscope::store
