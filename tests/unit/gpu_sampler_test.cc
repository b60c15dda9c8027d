// The GPU sampler (lib/collect/gpu_sampler.h) with the fake PM sampling
// (tests/fake_cupti/fake_pm_sampling.h) linked instead of libcupti: which metrics it
// samples, its thread setting devices up and decoding images of 1,000 samples
// until the buffer is empty, the sample cap, and what it says when a chip fails.
#include "lib/collect/gpu_sampler.h"

#include <chrono>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/model/metrics.h"
#include "tests/fake_cupti/fake_pm_sampling.h"

namespace cuscope::collect {
namespace {

using ::testing::HasSubstr;

void Dispatch(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

// The context-created callback for device `index` (fake contexts are index + 1).
void ContextCreated(GpuSampler& s, uint32_t index) {
  CUpti_ResourceData data{};
  data.context = reinterpret_cast<CUcontext>(uintptr_t{index} + 1);
  s.OnCallback(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &data);
}

// Waits (up to 5 s) until the sampler's notes say something of `note`.
bool WaitNote(GpuSampler& s, model::NoteText model::RunNotes::*note) {
  for (int i = 0; i < 500 && (s.Notes().*note).empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return !(s.Notes().*note).empty();
}

// Waits (up to 5 s) until device `index` samples.
bool WaitSampling(uint32_t index) {
  for (int i = 0; i < 500 && !fake_pm::Sampling(index); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return fake_pm::Sampling(index);
}

class GpuSamplerTest : public ::testing::Test {
 protected:
  void SetUp() override { fake_pm::Reset(); }
  CallbackSubscription callbacks_{&Dispatch, nullptr};
};

TEST_F(GpuSamplerTest, SamplesEveryDeviceUntilStopAndDrainsThem) {
  fake_pm::Refuse(metrics::kSampledL2Bytes);
  fake_pm::SetMetricsPerPass(5);  // 7 accepted, the last 2 left out
  GpuSampler s(&callbacks_);
  SamplingOptions o;
  o.interval_ns = 2000;
  ASSERT_TRUE(s.Start(o).ok());
  ContextCreated(s, 1);
  ASSERT_TRUE(WaitSampling(1));
  EXPECT_FALSE(fake_pm::Sampling(0));
  // More than an image holds: decoded in rounds.
  ASSERT_EQ(fake_pm::Produce(1, 45000, 1000000, 2000), 45000u);
  std::this_thread::sleep_for(std::chrono::milliseconds(2 * GpuSampler::kDecodePeriodMs));
  ASSERT_EQ(fake_pm::Produce(1, 5000, 91000000, 2000), 5000u);  // decoded at Stop
  s.Stop();
  EXPECT_FALSE(fake_pm::Sampling(1));
  const fake_pm::Calls calls = fake_pm::GetCalls();
  EXPECT_EQ(calls.enables, 1);
  EXPECT_EQ(calls.starts, 1);
  EXPECT_EQ(calls.stops, 1);
  EXPECT_EQ(calls.disables, 0);  // disabling would finalize CUPTI

  model::Profile batch;
  s.Drain(&batch);
  ASSERT_EQ(batch.sample_configs.size(), 1u);
  const model::GpuSampleConfig& c = batch.sample_configs[0];
  EXPECT_EQ(c.device_id, 1u);
  EXPECT_EQ(c.interval_ns, 2000u);
  ASSERT_EQ(c.metrics.size(), 5u);
  for (size_t j = 0; j < 5; ++j) {
    EXPECT_EQ(batch.str(c.metrics[j]), metrics::DefaultSampledMetrics()[j]);
  }
  ASSERT_EQ(batch.samples.size(), 50000u);
  for (size_t i = 0; i < batch.samples.size(); ++i) {
    const model::GpuSample& g = batch.samples[i];
    ASSERT_EQ(g.device_id, 1u);
    ASSERT_EQ(g.duration_ns(), 2000u);
    ASSERT_EQ(g.values.size(), 5u);
    ASSERT_EQ(g.values[2], double((i + 1) * 10 + 2)) << i;  // in order, none lost
  }
  EXPECT_EQ(batch.samples[45000].start_ns, 91000000u);
  const auto notes = s.Notes();
  EXPECT_EQ(notes.gpu_metrics_samples, 50000);
  EXPECT_THAT(notes.gpu_metrics_metrics, HasSubstr(metrics::kSampledSmCyclesElapsed));
  EXPECT_THAT(notes.gpu_metrics_left_out, HasSubstr(metrics::kSampledL2Bytes));
  EXPECT_THAT(notes.gpu_metrics_left_out, HasSubstr("does not fit one pass"));
  EXPECT_EQ(notes.gpu_metrics_status, "");
  EXPECT_FALSE(notes.gpu_metrics_decode_ms.empty());
  // Drained once.
  model::Profile again;
  s.Drain(&again);
  EXPECT_TRUE(again.samples.empty());
  EXPECT_TRUE(again.sample_configs.empty());
}

TEST_F(GpuSamplerTest, TwoDevicesEachWithItsConfigurationAndSamples) {
  GpuSampler s(&callbacks_);
  ASSERT_TRUE(s.Start(SamplingOptions()).ok());
  ContextCreated(s, 0);
  ContextCreated(s, 1);
  ContextCreated(s, 1);  // a second context on device 1: set up once
  ASSERT_TRUE(WaitSampling(0) && WaitSampling(1));
  fake_pm::Produce(0, 300, 1000, 10000);
  fake_pm::Produce(1, 200, 1000, 10000);
  s.Stop();
  EXPECT_EQ(fake_pm::GetCalls().enables, 2);
  model::Profile batch;
  s.Drain(&batch);
  ASSERT_EQ(batch.sample_configs.size(), 2u);
  size_t on[2] = {0, 0};
  for (const model::GpuSample& g : batch.samples) ++on[g.device_id];
  EXPECT_EQ(on[0], 300u);
  EXPECT_EQ(on[1], 200u);
  EXPECT_EQ(s.Notes().gpu_metrics_samples, 500);
}

TEST_F(GpuSamplerTest, KeepsAtMostMaxSamplesAndSaysHowManyWereDropped) {
  GpuSampler s(&callbacks_);
  SamplingOptions o;
  o.max_samples = 1000;
  ASSERT_TRUE(s.Start(o).ok());
  ContextCreated(s, 0);
  ASSERT_TRUE(WaitSampling(0));
  fake_pm::Produce(0, 3000, 1000, 10000);
  // The cap is reached at the next decode: sampling stops there.
  for (int i = 0; i < 500 && fake_pm::Sampling(0); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(fake_pm::Sampling(0));
  EXPECT_EQ(fake_pm::Produce(0, 10, 40000000, 10000), 0u);  // nothing more is made
  s.Stop();
  model::Profile batch;
  s.Drain(&batch);
  EXPECT_EQ(batch.samples.size(), 1000u);
  EXPECT_EQ(batch.samples.back().values[0], 1000.0 * 10);  // the first 1000
  EXPECT_EQ(s.Notes().gpu_metrics_samples, 1000);
  EXPECT_THAT(s.Notes().gpu_metrics_lost, HasSubstr("2000 samples after the first 1000"));
  EXPECT_EQ(fake_pm::GetCalls().stops, 1);  // at the cap, not again at Stop
}

TEST_F(GpuSamplerTest, AChipThatFailsIsANoteAndStopStillEnds) {
  fake_pm::SetChip("");
  GpuSampler s(&callbacks_);
  ASSERT_TRUE(s.Start(SamplingOptions()).ok());
  ContextCreated(s, 0);
  EXPECT_TRUE(WaitNote(s, &model::RunNotes::gpu_metrics_status));
  s.Stop();
  model::Profile batch;
  s.Drain(&batch);
  EXPECT_TRUE(batch.sample_configs.empty());
  EXPECT_TRUE(batch.samples.empty());
  EXPECT_THAT(s.Notes().gpu_metrics_status, HasSubstr("cuptiDeviceGetChipName failed"));
  EXPECT_EQ(fake_pm::GetCalls().enables, 0);
}

TEST_F(GpuSamplerTest, NoMetricSampledIsANote) {
  for (const std::string& m : metrics::DefaultSampledMetrics()) fake_pm::Refuse(m);
  GpuSampler s(&callbacks_);
  ASSERT_TRUE(s.Start(SamplingOptions()).ok());
  ContextCreated(s, 0);
  EXPECT_TRUE(WaitNote(s, &model::RunNotes::gpu_metrics_status));
  s.Stop();
  EXPECT_THAT(s.Notes().gpu_metrics_status,
              HasSubstr("none of the metrics to sample can be sampled on GH100"));
  EXPECT_EQ(fake_pm::GetCalls().enables, 0);
}

// A second session in the same process (start, stop, start): the device set up by the
// first is resumed, not enabled again, and its configuration and new samples reach
// the second session's batches; the first session's counts and notes do not.
TEST_F(GpuSamplerTest, ASecondSessionResumesTheDevices) {
  GpuSampler s(&callbacks_);
  ASSERT_TRUE(s.Start(SamplingOptions()).ok());
  ContextCreated(s, 0);
  ASSERT_TRUE(WaitSampling(0));
  fake_pm::Produce(0, 100, 1000, 10000);
  s.Stop();
  model::Profile first;
  s.Drain(&first);
  EXPECT_EQ(first.samples.size(), 100u);
  EXPECT_FALSE(fake_pm::Sampling(0));

  SamplingOptions o;
  o.interval_ns = 20000;
  ASSERT_TRUE(s.Start(o).ok());
  ASSERT_TRUE(WaitSampling(0));
  fake_pm::Produce(0, 30, 5000000, 20000);
  s.Stop();
  model::Profile second;
  s.Drain(&second);
  EXPECT_EQ(fake_pm::GetCalls().enables, 1);
  EXPECT_EQ(fake_pm::GetCalls().starts, 2);
  ASSERT_EQ(second.sample_configs.size(), 1u);
  EXPECT_EQ(second.sample_configs[0].interval_ns, 20000u);
  EXPECT_EQ(second.samples.size(), 30u);
  EXPECT_EQ(s.Notes().gpu_metrics_samples, 30);
}

// An evaluation that fails: the image's samples are not handed on, the image is reset
// (no sample is read twice), and the next decode goes on; a sample that ends before it
// starts is dropped and counted.
TEST_F(GpuSamplerTest, AFailedDecodeReadsNoSampleTwiceAndBadTimesAreDropped) {
  GpuSampler s(&callbacks_);
  ASSERT_TRUE(s.Start(SamplingOptions()).ok());
  ContextCreated(s, 0);
  ASSERT_TRUE(WaitSampling(0));
  fake_pm::FailEvaluations(1);
  fake_pm::Produce(0, 50, 1000, 10000);  // decoded, then the first evaluation fails
  EXPECT_TRUE(WaitNote(s, &model::RunNotes::gpu_metrics_status));
  fake_pm::Produce(0, 40, 2000000, 10000);
  fake_pm::ProduceBackwards(0, 3000000);
  s.Stop();
  model::Profile batch;
  s.Drain(&batch);
  ASSERT_EQ(batch.samples.size(), 40u);  // the 50 of the failed image are lost, not repeated
  EXPECT_EQ(batch.samples.front().values[0], 51.0 * 10);
  EXPECT_THAT(s.Notes().gpu_metrics_status, HasSubstr("EvaluateToGpuValues"));
  EXPECT_THAT(s.Notes().gpu_metrics_bad_times, HasSubstr("1 samples dropped"));
}

// Bursts: the device is stopped at the end of each burst, its samples decoded, and
// started again (configured again, its configuration not stored twice); what each
// burst sampled reaches the batches, and the notes say how long the GPU was sampled.
TEST_F(GpuSamplerTest, BurstsStopDecodeAndStartAgain) {
  GpuSampler s(&callbacks_);
  SamplingOptions o;
  o.burst_samples = 100;  // 1 ms at 10 us: bursts of the shortest wait, 10 ms
  ASSERT_TRUE(s.Start(o).ok());
  ContextCreated(s, 0);
  uint64_t produced = 0;
  for (int burst = 0; burst < 3; ++burst) {
    const int starts = fake_pm::GetCalls().starts;
    // The device may stop between the wait and Produce (the end of a burst): again.
    for (uint64_t made = 0; made == 0;) {
      ASSERT_TRUE(WaitSampling(0));
      made = fake_pm::Produce(0, 20, 1000000 * (burst + 1), 10000);
      produced += made;
    }
    for (int i = 0; i < 500 && fake_pm::GetCalls().starts == starts; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  s.Stop();
  model::Profile batch;
  s.Drain(&batch);
  EXPECT_GE(fake_pm::GetCalls().starts, 3);  // set up, then started again after 2 bursts
  EXPECT_EQ(fake_pm::GetCalls().stops, fake_pm::GetCalls().starts);
  EXPECT_EQ(fake_pm::GetCalls().enables, 1);
  EXPECT_EQ(batch.sample_configs.size(), 1u);
  EXPECT_EQ(batch.samples.size(), produced);
  EXPECT_EQ(produced, 60u);
  EXPECT_THAT(s.Notes().gpu_metrics_bursts, HasSubstr("bursts of 10 ms"));
  EXPECT_FALSE(s.Notes().gpu_metrics_sampled_ms.empty());
  EXPECT_THAT(s.Notes().gpu_metrics_setup_ms, HasSubstr("GPU 0: "));
}

// A sample over 10 intervals long (the first after a start can begin seconds before
// it) is dropped and counted; the others are kept.
TEST_F(GpuSamplerTest, SamplesOverTenIntervalsAreDropped) {
  GpuSampler s(&callbacks_);
  ASSERT_TRUE(s.Start(SamplingOptions()).ok());  // every 10 us
  ContextCreated(s, 0);
  ASSERT_TRUE(WaitSampling(0));
  fake_pm::Produce(0, 1, 1000, 2000000);    // 2 ms
  fake_pm::Produce(0, 5, 2001000, 100000);  // 10 intervals: kept
  fake_pm::Produce(0, 3, 3000000, 100001);  // just over: dropped
  s.Stop();
  model::Profile batch;
  s.Drain(&batch);
  EXPECT_EQ(batch.samples.size(), 5u);
  EXPECT_THAT(s.Notes().gpu_metrics_long, HasSubstr("4 samples dropped"));
}

// Continuous sampling: a decode while the GPU samples reads at most kMaxRounds images
// (the rest wait, and a note says decoding fell behind); once stopped, the buffer is
// decoded to its end.
TEST_F(GpuSamplerTest, AStoppedDeviceIsDecodedToTheEnd) {
  GpuSampler s(&callbacks_);
  ASSERT_TRUE(s.Start(SamplingOptions()).ok());
  ContextCreated(s, 0);
  ASSERT_TRUE(WaitSampling(0));
  const uint64_t n = uint64_t{PmDevice::kImageSamples} * (PmDevice::kMaxRounds + 6);
  ASSERT_EQ(fake_pm::Produce(0, n, 1000, 10000), n);
  std::this_thread::sleep_for(std::chrono::milliseconds(2 * GpuSampler::kDecodePeriodMs));
  s.Stop();
  model::Profile batch;
  s.Drain(&batch);
  EXPECT_EQ(batch.samples.size(), n);
  EXPECT_THAT(s.Notes().gpu_metrics_behind, HasSubstr("fell behind"));
}

// Stop from two threads at once (the exit handler's and the session's): one stops, the
// other waits for it and returns; nothing aborts.
TEST_F(GpuSamplerTest, TwoStopsAtOnce) {
  for (int i = 0; i < 20; ++i) {
    GpuSampler s(&callbacks_);
    ASSERT_TRUE(s.Start(SamplingOptions()).ok());
    ContextCreated(s, 0);
    if (i % 2 == 0) WaitSampling(0);
    std::thread other([&] { s.Stop(); });
    s.Stop();
    other.join();
    EXPECT_FALSE(fake_pm::Sampling(0));
    fake_pm::Reset();
  }
}

// A CUPTI stop that blocks (as one did at a Python program's exit on the H200): Stop
// waits kStopWaitMs, then leaves the thread, says so, and the sampler starts no more.
TEST_F(GpuSamplerTest, AStopThatBlocksIsLeftAfterTheWait) {
  // Never destroyed (the thread left running still uses it, as in the injected library,
  // whose session lives on) and held by a static, so not a leak.
  static GpuSampler* s = nullptr;
  s = new GpuSampler(&callbacks_);
  ASSERT_TRUE(s->Start(SamplingOptions()).ok());
  ContextCreated(*s, 0);
  ASSERT_TRUE(WaitSampling(0));
  fake_pm::SetStopDelayMs(GpuSampler::kStopWaitMs + 700);
  const auto t0 = std::chrono::steady_clock::now();
  s->Stop();
  const double waited_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(waited_s, GpuSampler::kStopWaitMs / 1000.0 - 0.05);
  EXPECT_LT(waited_s, GpuSampler::kStopWaitMs / 1000.0 + 0.5);
  EXPECT_THAT(s->Notes().gpu_metrics_status, HasSubstr("did not stop within 2 s"));
  EXPECT_FALSE(s->Start(SamplingOptions()).ok());
  EXPECT_EQ(s->Notes(), model::RunNotes());  // the earlier session's notes are not the new run's
  // Once the fake's stop returns, the thread left behind ends without another CUPTI
  // call (the process may be exiting); it is over before the next test resets the fake.
  const int decodes = fake_pm::GetCalls().decodes;
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_EQ(fake_pm::GetCalls().decodes, decodes);
  EXPECT_EQ(fake_pm::GetCalls().stops, 1);
}

}  // namespace
}  // namespace cuscope::collect
