// cuscope's own intervals as the collector records them (lib/collect/own_spans.h):
// timed on the monotonic clock, put on CUPTI's (the records'), on the calling thread;
// a counter strategy's go through the outbox into the batch with their context and
// launches. CUPTI's clock works without a GPU.
#include "lib/collect/own_spans.h"

#include <cupti.h>

#include <vector>

#include "gtest/gtest.h"
#include "lib/collect/counter_outbox.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/scopes.h"

namespace cuscope::collect {
namespace {

constexpr uint64_t kMs = 1000 * 1000;

TEST(OwnSpans, FromAMonotonicStartToNowOnCuptisClock) {
  uint64_t before = 0, after = 0;
  ASSERT_EQ(cuptiGetTimestamp(&before), CUPTI_SUCCESS);
  const uint64_t start = MonotonicNs() - 5 * kMs;  // 5 ms ago
  const auto o = OwnSpanUntilNow(model::OwnKind::kFlush, start, 1 * kMs);
  ASSERT_EQ(cuptiGetTimestamp(&after), CUPTI_SUCCESS);
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->kind, model::OwnKind::kFlush);
  EXPECT_GE(o->duration_ns(), 5 * kMs);
  EXPECT_LT(o->duration_ns(), 5 * kMs + (after - before) + 1 * kMs);
  EXPECT_GE(o->end_ns, before);
  EXPECT_LE(o->end_ns, after);
  EXPECT_EQ(o->thread_id, scopes::CallingThreadId());
  EXPECT_EQ(o->device_id, model::kNoDevice);
}

TEST(OwnSpans, ShorterThanTheMinimumOrWithoutAStartIsNotRecorded) {
  EXPECT_FALSE(OwnSpanUntilNow(model::OwnKind::kPmDecode, MonotonicNs(), 10 * kMs).has_value());
  EXPECT_FALSE(OwnSpanUntilNow(model::OwnKind::kPmDecode, 0, 0).has_value());
}

TEST(OwnSpans, ACounterSpanReachesTheBatchWithItsContextAndLaunches) {
  CounterOutbox outbox;
  ProfiledContext c;
  c.device_id = 2;
  c.context_uid = 9;
  std::vector<Launch> window(3);
  window[0].correlation_id = 40;
  window[1].correlation_id = 43;
  window[2].correlation_id = 47;
  RecordCounterSpan(outbox, model::OwnKind::kRotateWindow, MonotonicNs() - 1 * kMs, c, window);
  // Shorter than kRecordedOwnNs: not recorded.
  RecordCounterSpan(outbox, model::OwnKind::kRegionCounters, MonotonicNs(), c, {});
  model::Profile batch;
  outbox.Drain(&batch);
  ASSERT_EQ(batch.own_time.size(), 1u);
  const model::OwnInterval& o = batch.own_time[0];
  EXPECT_EQ(o.kind, model::OwnKind::kRotateWindow);
  EXPECT_GE(o.duration_ns(), 1 * kMs);
  EXPECT_EQ(o.device_id, 2u);
  EXPECT_EQ(o.context_id, 9u);
  EXPECT_EQ(o.first_correlation_id, 40u);
  EXPECT_EQ(o.last_correlation_id, 47u);
  EXPECT_EQ(o.launches, 3u);
  model::Profile again;
  outbox.Drain(&again);
  EXPECT_TRUE(again.own_time.empty());
}

}  // namespace
}  // namespace cuscope::collect
