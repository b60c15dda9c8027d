// Event waits linked to the cudaEventRecord call they waited for, on synthetic
// profiles: by CUPTI's event sync id when the records carry it, else by the latest
// record of the same event before the wait; and the link in the Kineto-shaped trace.
#include "lib/analysis/event_waits.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/model/profile.h"
#include "lib/report/trace_view.h"

namespace cuscope::analysis {
namespace {

using model::SyncType;

model::SyncRecord Wait(SyncType type, uint32_t correlation, uint32_t event,
                       uint64_t sync_id = model::kNoEventSyncId) {
  model::SyncRecord s;
  s.start_ns = 1000 + correlation;
  s.end_ns = s.start_ns + 10;
  s.type = type;
  s.stream_id = 3;
  s.correlation_id = correlation;
  s.event_id = event;
  s.event_sync_id = sync_id;
  return s;
}

model::CudaEventRecord Record(uint32_t correlation, uint32_t event, uint32_t stream,
                              uint64_t sync_id = model::kNoEventSyncId) {
  model::CudaEventRecord r;
  r.correlation_id = correlation;
  r.stream_id = stream;
  r.event_id = event;
  r.event_sync_id = sync_id;
  return r;
}

TEST(EventWaits, LatestRecordOfTheEventBeforeTheWait) {
  model::Profile p;
  p.event_records = {Record(10, 1, 7), Record(20, 2, 8), Record(30, 1, 9), Record(50, 1, 7)};
  p.syncs = {Wait(SyncType::kStreamWaitEvent, 35, 1),     // 30: the latest before it
             Wait(SyncType::kEventSynchronize, 25, 1),    // 10 (30 came after)
             Wait(SyncType::kStreamWaitEvent, 21, 2),     // 20
             Wait(SyncType::kStreamWaitEvent, 5, 1),      // none yet
             Wait(SyncType::kStreamWaitEvent, 60, 4),     // an event never recorded
             Wait(SyncType::kStreamSynchronize, 60, 1)};  // not an event wait
  p.syncs[5].event_id = 1;
  EXPECT_EQ(LinkEventWaits(p), (std::vector<int32_t>{2, 0, 1, -1, -1, -1}));
}

TEST(EventWaits, EventSyncIdIsExact) {
  model::Profile p;
  // Event 1 recorded twice; the wait's sync id names the first record, although the
  // second came before the wait too (another thread's record, say).
  p.event_records = {Record(10, 1, 7, 900), Record(20, 1, 8, 901)};
  p.syncs = {Wait(SyncType::kStreamWaitEvent, 30, 1, 900),
             Wait(SyncType::kEventSynchronize, 31, 1, 901),
             Wait(SyncType::kEventSynchronize, 32, 1, 555)};  // recorded while not tracing
  EXPECT_EQ(LinkEventWaits(p), (std::vector<int32_t>{0, 1, -1}));
}

TEST(EventWaits, NoRecordsNoLinks) {
  model::Profile p;  // a profile of schema version 2: no event records
  p.syncs = {Wait(SyncType::kStreamWaitEvent, 30, 1)};
  EXPECT_EQ(LinkEventWaits(p), (std::vector<int32_t>{-1}));
}

// The Kineto-shaped sync event names the record call and its stream.
struct SyncArgs : report::TraceSink {
  void Event(const report::TraceEvent& e) override {
    if (std::string_view(e.category) != "cuda_sync") return;
    int64_t corr = -2, stream = -2;
    for (const report::TraceArg& a : e.args) {
      if (a.key == "wait_on_cuda_event_record_corr_id") corr = a.i;
      if (a.key == "wait_on_stream") stream = a.i;
    }
    waits.push_back({corr, stream});
  }
  std::vector<std::pair<int64_t, int64_t>> waits;
};

TEST(EventWaits, TraceNamesTheRecordCall) {
  model::Profile p;
  p.run.start_ns = 1;
  p.event_records = {Record(10, 1, 7)};
  p.syncs = {Wait(SyncType::kStreamWaitEvent, 35, 1), Wait(SyncType::kEventSynchronize, 36, 2)};
  const report::TraceView view(p, {});
  SyncArgs args;
  view.Events(args);
  ASSERT_EQ(args.waits.size(), 2u);
  EXPECT_EQ(args.waits[0], (std::pair<int64_t, int64_t>{10, 7}));
  EXPECT_EQ(args.waits[1], (std::pair<int64_t, int64_t>{-1, -1}));
}

}  // namespace
}  // namespace cuscope::analysis
