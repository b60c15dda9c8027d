// The session (lib/inject/session.h) with its own threads, without a GPU: the fake
// CUPTI (tests/fake_cupti, linked instead of libcupti) makes records and hands
// buffers back on its threads, the session's background thread flushes them into
// the profile every millisecond, and 64 application threads push and pop scopes
// through the C ABI (cuscope_range_push/pop), opening capture windows. The profile
// read back holds every record made, less the dropped ones, which are counted. Run
// in the normal build and under ThreadSanitizer (scripts/tsan.sh).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cuscope/cuscope_c.h"
#include "gtest/gtest.h"
#include "lib/config/setting.h"
#include "lib/inject/gpu_metrics.h"
#include "lib/inject/session.h"
#include "lib/store/reader.h"
#include "lib/store/writer.h"
#include "tests/fake_cupti/fake_cupti.h"
#include "tests/fake_cupti/fake_pm_sampling.h"

namespace cuscope::inject {
namespace {

using fake_cupti::Kind;

constexpr int kScopeThreads = 64;
constexpr int kScopesPerThread = 100;  // each an outer and an inner scope

class SessionThreadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_cupti::Reset();
    path_ = ::testing::TempDir() + "session_threads_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".cuscope";
    std::remove(path_.c_str());
    env_ = {
        {"CUSCOPE_OUTPUT", path_}, {"CUSCOPE_REPORT", "none"}, {"CUSCOPE_FLUSH_PERIOD_MS", "1"}};
  }

  void StartSession() {
    absl::Status st = TheSession().Start([this](const char* name) -> const char* {
      auto it = env_.find(name);
      return it == env_.end() ? nullptr : it->second.c_str();
    });
    ASSERT_TRUE(st.ok()) << st;
  }

  void StartProducers(int threads, uint64_t records_each) {
    for (int i = 0; i < threads; ++i) {
      threads_.emplace_back([this, records_each] {
        for (uint64_t n = 0; n < records_each && !stop_.load(); ++n) {
          fake_cupti::Emit(static_cast<Kind>(n % fake_cupti::kKinds), next_correlation_++);
        }
      });
    }
  }

  void StartScopeThreads() {
    for (int t = 0; t < kScopeThreads; ++t) {
      threads_.emplace_back([] {
        for (int i = 0; i < kScopesPerThread; ++i) {
          cuscope_range_push("outer");
          cuscope_range_push("inner");
          cuscope_range_pop();
          cuscope_range_pop();
        }
      });
    }
  }

  void JoinAll(bool stop) {
    stop_.store(stop);
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

  model::Profile StopAndLoad() {
    EXPECT_TRUE(TheSession().Stop(StopReason::StopCall()).ok());
    // Nothing is left in the fake: Stop's forced flush took it all.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    absl::StatusOr<model::Profile> p = store::LoadProfile(path_);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *std::move(p) : model::Profile();
  }

  // Every record made is in the profile or counted as dropped.
  void ExpectEveryRecordKept(const model::Profile& p) {
    const fake_cupti::Totals made = fake_cupti::GetTotals();
    EXPECT_EQ(p.kernels.size() + p.memcpys.size() + p.api_calls.size() + made.dropped,
              made.made[0] + made.made[1] + made.made[2]);
    EXPECT_EQ(p.run.dropped_records, made.dropped);
    EXPECT_EQ(p.run.buffers_refused, made.refused);
    if (made.dropped == 0) {
      EXPECT_EQ(p.kernels.size(), made.made[int(Kind::kKernel)]);
      EXPECT_EQ(p.memcpys.size(), made.made[int(Kind::kMemcpy)]);
      EXPECT_EQ(p.api_calls.size(), made.made[int(Kind::kRuntimeApi)]);
    }
  }

  static uint64_t Scopes(const model::Profile& p) {
    uint64_t n = 0;
    for (const model::RangeRecord& r : p.ranges) n += r.source == model::RangeSource::kScope;
    return n;
  }

  std::string path_;
  std::map<std::string, std::string> env_;
  std::atomic<uint32_t> next_correlation_{1};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

TEST_F(SessionThreadsTest, EveryRecordAndScopeReachesTheProfile) {
  env_["CUSCOPE_BUFFER_SIZE"] = "256K";
  env_["CUSCOPE_MAX_BUFFERS"] = "64";  // holds every record: none dropped
  StartSession();
  StartScopeThreads();
  StartProducers(2, 10000);
  JoinAll(/*stop=*/false);
  model::Profile p = StopAndLoad();
  EXPECT_EQ(fake_cupti::GetTotals().dropped, 0u);
  ExpectEveryRecordKept(p);
  EXPECT_EQ(p.kernels.size() + p.memcpys.size() + p.api_calls.size(), 20000u);
  EXPECT_EQ(Scopes(p), uint64_t{kScopeThreads} * kScopesPerThread * 2);
  EXPECT_EQ(p.run.notes.scopes_recorded, static_cast<int64_t>(Scopes(p)));
}

// CUSCOPE_BUFFER_SIZE=64K CUSCOPE_MAX_BUFFERS=2 (--buffer_size=64K --max_buffers=2):
// records are dropped, and the profile counts every one.
TEST_F(SessionThreadsTest, TinyBuffersCountEveryDroppedRecord) {
  env_["CUSCOPE_BUFFER_SIZE"] = "64K";
  env_["CUSCOPE_MAX_BUFFERS"] = "2";
  env_["CUSCOPE_FLUSH_PERIOD_MS"] = "50";
  StartSession();
  // CUPTI's thread hands nothing back by itself at first: only the flushes do.
  fake_cupti::PauseWorker(true);
  StartProducers(1, 20000);
  JoinAll(/*stop=*/false);
  fake_cupti::PauseWorker(false);
  StartScopeThreads();
  StartProducers(2, 5000);
  JoinAll(/*stop=*/false);
  model::Profile p = StopAndLoad();
  EXPECT_GT(fake_cupti::GetTotals().dropped, 0u);
  ExpectEveryRecordKept(p);
  EXPECT_EQ(Scopes(p), uint64_t{kScopeThreads} * kScopesPerThread * 2);
  // The run's settings are in its notes, every setting in the table's order.
  std::map<std::string, std::string> settings(p.run.notes.settings.begin(),
                                              p.run.notes.settings.end());
  EXPECT_EQ(settings.size(), p.run.notes.settings.size());
  EXPECT_EQ(settings["buffer_size"], "64K");
  EXPECT_EQ(settings["max_buffers"], "2");
  EXPECT_EQ(settings["flush_period_ms"], "50");
  ASSERT_EQ(p.run.notes.settings.size(), config::Settings().size());
  for (size_t i = 0; i < config::Settings().size(); ++i) {
    EXPECT_EQ(p.run.notes.settings[i].first, config::Settings()[i].flag);
  }
}

// Capture windows opened and closed by scopes on 64 threads (the GPU kinds switched
// from application threads) while records are made, and the session stopped while
// all of it goes on.
TEST_F(SessionThreadsTest, StopWhileWindowsSwitchAndRecordsAreInFlight) {
  env_["CUSCOPE_BUFFER_SIZE"] = "64K";
  env_["CUSCOPE_MAX_BUFFERS"] = "16";
  env_["CUSCOPE_CAPTURE"] = "range:^outer$";
  StartSession();
  StartScopeThreads();
  StartProducers(2, 1u << 30);  // until stopped
  while (fake_cupti::GetTotals().made[int(Kind::kRuntimeApi)] < 3000) std::this_thread::yield();
  model::Profile p = StopAndLoad();
  JoinAll(/*stop=*/true);
  // Stop disabled every kind: nothing more is made.
  EXPECT_FALSE(fake_cupti::Emit(Kind::kKernel, next_correlation_++));
  EXPECT_FALSE(fake_cupti::Emit(Kind::kRuntimeApi, next_correlation_++));
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  ExpectEveryRecordKept(p);
  EXPECT_GT(p.run.notes.capture_windows.value_or(0), 0);
}

// GPU metrics (CUSCOPE_GPU_METRICS=1): a context created after the start is sampled,
// and every sample reaches the profile with its configuration, beside the activity
// records; the session stops sampling at its end.
TEST_F(SessionThreadsTest, GpuMetricSamplesReachTheProfile) {
  // The session's sampler lives as long as the process (and so the devices it set up
  // in an earlier repetition of this test: they are resumed).
  fake_pm::Reset(/*keep_objects=*/true);
  env_["CUSCOPE_GPU_METRICS"] = "1";
  StartSession();
  ASSERT_TRUE(fake_pm::ContextCreated(0));
  for (int i = 0; i < 500 && !fake_pm::Sampling(0); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(fake_pm::Sampling(0));
  StartProducers(2, 2000);
  uint64_t now = 0;
  ASSERT_EQ(cuptiGetTimestamp(&now), CUPTI_SUCCESS);  // the fake clock of the records
  ASSERT_EQ(fake_pm::Produce(0, 20000, now, 5000), 20000u);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));  // a decode on the way
  // The burst is over: sampling resumes once it is decoded (slower under TSan on a
  // loaded machine than the 150 ms above: this waited for it once).
  for (int i = 0; i < 500 && !fake_pm::Sampling(0); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(fake_pm::Produce(0, 10000, now + 100000000, 5000), 10000u);
  JoinAll(/*stop=*/false);
  model::Profile p = StopAndLoad();
  ExpectEveryRecordKept(p);
  EXPECT_FALSE(fake_pm::Sampling(0));
  ASSERT_EQ(p.sample_configs.size(), 1u);
  EXPECT_EQ(p.sample_configs[0].interval_ns, 10000u);  // the default, 10 us
  EXPECT_EQ(p.sample_configs[0].metrics.size(), 6u);   // the fake's one pass
  ASSERT_EQ(p.samples.size(), 30000u);
  EXPECT_EQ(p.samples[29999].start_ns, now + 100000000 + 9999 * 5000);
  EXPECT_EQ(p.run.notes.gpu_metrics_samples, 30000);
  EXPECT_EQ(p.run.notes.gpu_metrics_status, "");
}

// A batch the writer refuses for its GPU samples (here: a sample of a device with no
// configuration) keeps its other records: only the samples are lost, and it is said.
TEST(AppendBatchTest, RefusedSamplesCostNoOtherRecord) {
  const std::string path = ::testing::TempDir() + "append_batch.sqlite";
  auto writer = store::ProfileWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  model::RunInfo run;
  run.start_ns = 1000;
  ASSERT_TRUE((*writer)->WriteRunInfo(run).ok());
  model::Profile batch;
  model::KernelRecord k;
  k.name = batch.strings.Intern("k");
  k.start_ns = 2000;
  k.end_ns = 3000;
  batch.kernels.push_back(k);
  model::GpuSample sample;
  sample.start_ns = 2000;
  sample.end_ns = 3000;
  sample.values = {1.0};
  batch.samples.push_back(sample);
  std::vector<std::string> warned;
  static std::vector<std::string>* sink = nullptr;
  sink = &warned;
  absl::Status st = AppendBatch(**writer, batch, [](const std::string& m) { sink->push_back(m); });
  EXPECT_TRUE(st.ok()) << st;
  ASSERT_EQ(warned.size(), 1u);
  EXPECT_NE(warned[0].find("a batch of samples was not written"), std::string::npos);
  ASSERT_TRUE((*writer)->Close().ok());
  absl::StatusOr<model::Profile> p = store::LoadProfile(path);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->kernels.size(), 1u);
  EXPECT_TRUE(p->samples.empty());
}

}  // namespace
}  // namespace cuscope::inject
