// The collector's threads together, without a GPU: the activity tracer (activity.cc)
// and user scopes (scopes.cc) driven by a fake CUPTI (tests/fake_cupti, linked
// instead of libcupti). CUPTI's threads make records and hand buffers back, a flush
// thread flushes as the session's background thread does (PeriodicFlush), and 64
// application threads push and pop scopes, all at once. Run in the normal build and
// under ThreadSanitizer (scripts/tsan.sh).
#include <cupti.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "lib/collect/activity.h"
#include "lib/collect/scopes.h"
#include "tests/fake_cupti/fake_cupti.h"

namespace cuscope::collect {
namespace {

using fake_cupti::Kind;

class ScopesDrain final : public DrainSource {
 public:
  void Drain(model::Profile* batch) override { scopes::Drain(batch); }
};
ScopesDrain g_scopes_drain;  // outlives every tracer (they are never destroyed)

// What reached the sink. The sink runs under the tracer's batch lock; the counts
// are read by the test thread, hence their own lock.
struct Received {
  std::mutex mu;
  uint64_t made[fake_cupti::kKinds] = {};
  uint64_t scopes = 0;
  uint64_t duplicates = 0;            // a record delivered twice
  std::vector<uint8_t> seen_kernels;  // by correlation id

  void Count(const model::Profile& batch) {
    std::lock_guard<std::mutex> lock(mu);
    made[int(Kind::kKernel)] += batch.kernels.size();
    made[int(Kind::kMemcpy)] += batch.memcpys.size();
    made[int(Kind::kRuntimeApi)] += batch.api_calls.size();
    for (const model::RangeRecord& r : batch.ranges) {
      if (r.source == model::RangeSource::kScope) ++scopes;
    }
    for (const model::KernelRecord& k : batch.kernels) {
      if (k.correlation_id >= seen_kernels.size()) seen_kernels.resize(k.correlation_id + 1);
      if (seen_kernels[k.correlation_id]++ != 0) ++duplicates;
    }
  }
  uint64_t Total() {
    std::lock_guard<std::mutex> lock(mu);
    return made[0] + made[1] + made[2];
  }
};

uint64_t Total(const fake_cupti::Totals& t) { return t.made[0] + t.made[1] + t.made[2]; }

constexpr int kScopeThreads = 64;
constexpr int kScopesPerThread = 200;  // each an outer and an inner scope

// One run: a tracer, CUPTI's threads, the flush thread and the scope threads.
class CollectorThreadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_cupti::Reset();
    scopes::ResetStats();
    model::Profile leftover;
    scopes::Drain(&leftover);
    // The tracer is never destroyed (CUPTI's callbacks reach it through a
    // process-wide pointer until the process ends).
    tracer_ = new ActivityTracer({&g_scopes_drain}, nullptr);
  }

  void Start(uint64_t buffer_bytes, int max_buffers) {
    CollectOptions options;
    options.trace.buffer_bytes = buffer_bytes;
    options.trace.max_buffers = max_buffers;
    ASSERT_TRUE(
        tracer_
            ->Start(options, [this](const model::Profile& batch, bool) { received_.Count(batch); })
            .ok());
    scopes::SetRecording(true, scopes::Clock::kCupti);
  }

  // CUPTI's threads: records of every kind, unique correlation ids, until told.
  void StartProducers(int threads, uint64_t records_each) {
    for (int i = 0; i < threads; ++i) {
      producers_.emplace_back([this, records_each] {
        for (uint64_t n = 0; n < records_each && !stop_producers_.load(); ++n) {
          fake_cupti::Emit(static_cast<Kind>(n % fake_cupti::kKinds), next_correlation_++);
        }
      });
    }
  }

  // As the session's background thread: a periodic flush every millisecond.
  void StartFlushThread() {
    flusher_ = std::thread([this] {
      while (!stop_flusher_.load()) {
        tracer_->PeriodicFlush(/*even_if_held=*/false);
        ++flushes_;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }

  // Application threads: nested scopes; some of them hold the periodic flush off
  // for a moment, as region counters do around a measured region instance.
  void StartScopeThreads(bool hold_flushes) {
    for (int t = 0; t < kScopeThreads; ++t) {
      app_threads_.emplace_back([this, t, hold_flushes] {
        for (int i = 0; i < kScopesPerThread; ++i) {
          const bool hold = hold_flushes && t % 16 == 0 && i % 20 == 0;
          scopes::Push("outer scope of an application thread");
          if (hold) tracer_->HoldPeriodicFlush(true);
          scopes::Push("inner");
          scopes::Pop();
          if (hold) tracer_->HoldPeriodicFlush(false);
          scopes::Pop();
        }
      });
    }
  }

  // `stop`: producers stop now, else when they have made their records.
  void JoinProducersAndScopes(bool stop = false) {
    stop_producers_.store(stop);
    for (std::thread& t : producers_) t.join();
    for (std::thread& t : app_threads_) t.join();
    producers_.clear();
    app_threads_.clear();
  }

  void JoinFlusher() {
    stop_flusher_.store(true);
    if (flusher_.joinable()) flusher_.join();
  }

  // The session's stop (lib/inject/session.cc): scopes off, the caller's open ones
  // closed, then the tracer's Stop.
  void StopAsTheSession() {
    uint64_t end = 0;
    cuptiGetTimestamp(&end);
    scopes::SetRecording(false);
    scopes::CloseOpenScopes(end);
    tracer_->Stop(end);
  }

  // Hands back what the fake still holds (records made while Stop ran) and waits
  // until no completion is in progress.
  void FlushLeftovers() {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    fake_cupti::WaitIdle();
  }

  void ExpectEveryRecordDeliveredOrDropped() {
    const fake_cupti::Totals made = fake_cupti::GetTotals();
    std::lock_guard<std::mutex> lock(received_.mu);
    EXPECT_EQ(received_.duplicates, 0u);
    uint64_t received = 0;
    for (int k = 0; k < fake_cupti::kKinds; ++k) received += received_.made[k];
    EXPECT_EQ(received + made.dropped, Total(made))
        << "received " << received << ", dropped " << made.dropped;
    if (made.dropped == 0) {
      for (int k = 0; k < fake_cupti::kKinds; ++k) {
        EXPECT_EQ(received_.made[k], made.made[k]) << "kind " << k;
      }
    }
  }

  ActivityTracer* tracer_ = nullptr;
  Received received_;
  std::atomic<uint32_t> next_correlation_{1};
  std::atomic<bool> stop_producers_{false}, stop_flusher_{false};
  std::atomic<uint64_t> flushes_{0};
  std::vector<std::thread> producers_, app_threads_;
  std::thread flusher_;
};

// Buffers filled and handed back by CUPTI's threads while the flush thread flushes
// and 64 threads push and pop scopes: every record and every scope arrives once.
TEST_F(CollectorThreadsTest, NothingLostWithAnAmplePool) {
  // 64 buffers of 256 KB hold every record even if none came back: none is dropped.
  Start(256 << 10, 64);
  StartFlushThread();
  StartScopeThreads(/*hold_flushes=*/true);
  StartProducers(2, 15000);
  JoinProducersAndScopes();
  StopAsTheSession();
  JoinFlusher();

  const fake_cupti::Totals made = fake_cupti::GetTotals();
  EXPECT_EQ(Total(made), 30000u);
  EXPECT_EQ(made.dropped, 0u);
  EXPECT_GT(made.completed, 10u) << "buffers filled up and came back";
  EXPECT_GT(flushes_.load(), 0u);
  ExpectEveryRecordDeliveredOrDropped();

  const ActivityStats stats = tracer_->stats();
  EXPECT_EQ(stats.records, 30000u);
  EXPECT_EQ(stats.dropped_records, 0u);
  EXPECT_EQ(stats.buffers_refused, 0u);
  EXPECT_EQ(stats.buffers_outstanding, 0u);
  EXPECT_EQ(stats.buffers_completed, made.completed);

  const scopes::Stats scope_stats = scopes::GetStats();
  const uint64_t scopes_made = uint64_t{kScopeThreads} * kScopesPerThread * 2;
  EXPECT_EQ(received_.scopes, scopes_made);
  EXPECT_EQ(scope_stats.recorded, scopes_made);
  EXPECT_EQ(scope_stats.dropped_open + scope_stats.dropped_overflow, 0u);
  EXPECT_EQ(scopes::PendingCount(), 0u);
}

// --buffer_size=64K --max_buffers=2: records that find no buffer are dropped, and
// every one is counted (CUPTI's count, the tracer's refusals).
TEST_F(CollectorThreadsTest, TinyPoolCountsEveryDroppedRecord) {
  Start(64 << 10, 2);
  // First nothing comes back: both buffers fill, the rest of the burst is dropped.
  fake_cupti::PauseWorker(true);
  for (int n = 0; n < 3000; ++n) fake_cupti::Emit(Kind::kKernel, next_correlation_++);
  const fake_cupti::Totals burst = fake_cupti::GetTotals();
  EXPECT_GT(burst.dropped, 0u);
  EXPECT_LT(burst.dropped, 3000u);
  fake_cupti::PauseWorker(false);
  // Then everything at once.
  StartFlushThread();
  StartScopeThreads(/*hold_flushes=*/false);
  StartProducers(2, 10000);
  JoinProducersAndScopes();
  StopAsTheSession();
  JoinFlusher();
  FlushLeftovers();

  const fake_cupti::Totals made = fake_cupti::GetTotals();
  EXPECT_EQ(Total(made), 23000u);
  ExpectEveryRecordDeliveredOrDropped();
  const ActivityStats stats = tracer_->stats();
  EXPECT_EQ(stats.dropped_records, made.dropped);
  EXPECT_EQ(stats.buffers_refused, made.refused);
  EXPECT_EQ(stats.buffers_allocated, 2u);
  EXPECT_EQ(stats.records + made.dropped, 23000u);
  EXPECT_EQ(received_.scopes, uint64_t{kScopeThreads} * kScopesPerThread * 2);
}

// Stop while CUPTI's threads still make records, the flush thread flushes and scopes
// are pushed: Stop returns with every record made before it began; what was made
// while it ran comes with the next flush; no scope is counted twice or lost.
TEST_F(CollectorThreadsTest, StopWhileRecordsAreInFlight) {
  Start(64 << 10, 16);
  StartFlushThread();
  StartScopeThreads(/*hold_flushes=*/false);
  StartProducers(2, 1u << 30);  // until stopped
  while (Total(fake_cupti::GetTotals()) < 5000) std::this_thread::yield();
  const fake_cupti::Totals before = fake_cupti::GetTotals();
  StopAsTheSession();
  EXPECT_GE(received_.Total(), Total(before) - before.dropped)
      << "Stop returned before the records made before it arrived";
  EXPECT_FALSE(tracer_->running());
  JoinProducersAndScopes(/*stop=*/true);
  // Stop disabled the kinds: nothing more is made.
  EXPECT_FALSE(fake_cupti::Emit(Kind::kKernel, next_correlation_++));
  FlushLeftovers();
  JoinFlusher();
  ExpectEveryRecordDeliveredOrDropped();

  const scopes::Stats scope_stats = scopes::GetStats();
  {
    std::lock_guard<std::mutex> lock(received_.mu);
    EXPECT_EQ(received_.scopes + scopes::PendingCount(), scope_stats.recorded);
  }
  EXPECT_LE(scope_stats.recorded, uint64_t{kScopeThreads} * kScopesPerThread * 2);
}

// Capture windows and region counters switch the GPU-side kinds from application
// threads (PauseGpuKinds / ResumeGpuKinds / HoldGpuKinds) and may still do so while
// the session stops: after Stop no kind is left enabled.
TEST_F(CollectorThreadsTest, StopWhileGpuKindsAreSwitched) {
  Start(256 << 10, 16);
  StartFlushThread();
  StartProducers(1, 1u << 30);  // until stopped
  std::atomic<bool> stop_switching{false};
  std::vector<std::thread> switchers;
  for (int t = 0; t < 4; ++t) {
    switchers.emplace_back([&, t] {
      while (!stop_switching.load()) {
        if (t % 2 == 0) {
          tracer_->PauseGpuKinds();
          tracer_->ResumeGpuKinds();
        } else {
          tracer_->HoldGpuKinds(true);
          tracer_->HoldGpuKinds(false);
        }
      }
    });
  }
  while (Total(fake_cupti::GetTotals()) < 2000) std::this_thread::yield();
  StopAsTheSession();
  stop_switching.store(true);
  for (std::thread& t : switchers) t.join();
  JoinProducersAndScopes(/*stop=*/true);
  EXPECT_FALSE(fake_cupti::Emit(Kind::kKernel, next_correlation_++)) << "kernels left enabled";
  EXPECT_FALSE(fake_cupti::Emit(Kind::kMemcpy, next_correlation_++)) << "copies left enabled";
  EXPECT_FALSE(fake_cupti::Emit(Kind::kRuntimeApi, next_correlation_++));
  FlushLeftovers();
  JoinFlusher();
  ExpectEveryRecordDeliveredOrDropped();
}

// The same, made to happen every time: a capture window opens (ResumeGpuKinds) on an
// application thread, which is inside cuptiActivityEnable when the session stops.
// Stop must not disable the kinds under that thread's feet and leave the ones it
// enables next switched on after the run.
TEST_F(CollectorThreadsTest, StopWaitsForAGpuKindSwitchInProgress) {
  Start(256 << 10, 16);
  tracer_->PauseGpuKinds();
  std::atomic<bool> entered{false};
  std::atomic<bool> armed{true};
  fake_cupti::SetEnableHook([&](CUpti_ActivityKind) {
    if (!armed.exchange(false)) return;
    entered.store(true);
    // Wait for Stop to disable the kinds (or, when Stop waits for this switch,
    // give up after a while).
    const uint64_t before = fake_cupti::Disables();
    for (int i = 0; i < 300 && fake_cupti::Disables() == before; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  std::thread window([&] { tracer_->ResumeGpuKinds(); });
  while (!entered.load()) std::this_thread::yield();
  StopAsTheSession();
  window.join();
  fake_cupti::SetEnableHook(nullptr);
  EXPECT_FALSE(fake_cupti::Emit(Kind::kKernel, next_correlation_++)) << "kernels left enabled";
  EXPECT_FALSE(fake_cupti::Emit(Kind::kMemcpy, next_correlation_++)) << "copies left enabled";
  FlushLeftovers();
}

}  // namespace
}  // namespace cuscope::collect
