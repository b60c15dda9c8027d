// The record batch (lib/collect/record_batch.h) fed by the fake CUPTI
// (tests/fake_cupti) through a buffer pool: completed buffers converted, the drains
// run in order into every batch, the sink sees the records once, and nothing is taken
// before the first Reset.
#include "lib/collect/record_batch.h"

#include <cupti.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/collect/buffer_pool.h"
#include "tests/fake_cupti/fake_cupti.h"

namespace cuscope::collect {
namespace {

using fake_cupti::Kind;

// Adds one scope-like range to each batch it drains (when armed) and logs its name.
class NamedDrain final : public DrainSource {
 public:
  NamedDrain(std::string name, std::vector<std::string>* log) : name_(std::move(name)), log_(log) {}
  void Drain(model::Profile* batch) override {
    log_->push_back(name_);
    if (!armed) return;
    model::RangeRecord r;
    r.name = batch->strings.Intern(name_);
    batch->ranges.push_back(r);
    armed = false;
  }
  bool armed = false;

 private:
  std::string name_;
  std::vector<std::string>* log_;
};

BufferPool* g_pool = nullptr;
RecordBatch* g_batch = nullptr;

void CUPTIAPI Requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  *buffer = g_pool->Lend(size);
}
void CUPTIAPI Completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_size) {
  g_batch->AddBuffer(buffer, valid_size);
  g_pool->Return(buffer);
}

struct Received {
  int batches = 0;
  size_t kernels = 0, ranges = 0;
};

class RecordBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_cupti::Reset();
    pool_.Configure(64 << 10, 8);
    g_pool = &pool_;
    g_batch = &batch_;
    ASSERT_EQ(cuptiActivityRegisterCallbacks(Requested, Completed), CUPTI_SUCCESS);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  }
  void TearDown() override {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    fake_cupti::WaitIdle();
    fake_cupti::Reset();
  }
  RecordBatch::Sink Sink() {
    return [this](const model::Profile& batch, bool) {
      ++received_.batches;
      received_.kernels += batch.kernels.size();
      received_.ranges += batch.ranges.size();
    };
  }
  void EmitKernels(int n) {
    for (int i = 0; i < n; ++i) fake_cupti::Emit(Kind::kKernel, next_++);
  }
  void FlushForced() {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    fake_cupti::WaitIdle();
  }

  std::vector<std::string> log_;
  NamedDrain first_{"first", &log_}, second_{"second", &log_};
  BufferPool pool_;
  RecordBatch batch_{{&first_, &second_}, nullptr};
  Received received_;
  uint32_t next_ = 1;
};

TEST_F(RecordBatchTest, BuffersAreConvertedAndDrainedInOrder) {
  batch_.Reset(Sink(), /*counters_enabled=*/false);
  EmitKernels(1000);
  FlushForced();
  EXPECT_EQ(received_.kernels, 1000u);
  EXPECT_EQ(batch_.stats().records, 1000u);
  ASSERT_GE(log_.size(), 2u);
  for (size_t i = 0; i < log_.size(); ++i) EXPECT_EQ(log_[i], i % 2 == 0 ? "first" : "second");
  EXPECT_EQ(size_t(received_.batches), log_.size() / 2) << "one sink call per buffer";
}

TEST_F(RecordBatchTest, NothingIsTakenBeforeTheFirstReset) {
  EmitKernels(10);
  FlushForced();
  EXPECT_EQ(received_.batches, 0);
  EXPECT_TRUE(log_.empty());
  EXPECT_EQ(batch_.stats().records, 0u);
  EXPECT_FALSE(batch_.MarkProbes(0).has_value());
  EXPECT_FALSE(batch_.ProbesAtLeast(0));
}

// A flush with no buffer still carries what the drains finished, only while running.
TEST_F(RecordBatchTest, EmitIfRunningCarriesDrainedRecords) {
  batch_.Reset(Sink(), false);
  std::atomic<bool> running{false};
  first_.armed = true;
  batch_.EmitIfRunning(running);
  EXPECT_TRUE(log_.empty()) << "drained while not running";
  running.store(true);
  batch_.EmitIfRunning(running);
  EXPECT_EQ(received_.batches, 1);
  EXPECT_EQ(received_.ranges, 1u);
  batch_.EmitIfRunning(running);
  EXPECT_EQ(received_.batches, 1) << "an empty batch reached the sink";
}

TEST_F(RecordBatchTest, CloseAndEmitDrainsTheRest) {
  batch_.Reset(Sink(), false);
  second_.armed = true;
  batch_.CloseAndEmit(123);
  EXPECT_EQ(received_.ranges, 1u);
  EXPECT_EQ(log_, (std::vector<std::string>{"first", "second"}));
}

TEST_F(RecordBatchTest, ProbeCountsStartAtZero) {
  batch_.Reset(Sink(), false);
  EXPECT_EQ(batch_.MarkProbes(1), std::optional<uint64_t>(0));
  EXPECT_TRUE(batch_.ProbesAtLeast(0));
  EXPECT_FALSE(batch_.ProbesAtLeast(1));
}

}  // namespace
}  // namespace cuscope::collect
