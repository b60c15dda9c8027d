// The records probe (lib/collect/records_probe.h) without a GPU: no driver is loaded,
// so no probe record is made and a takeover shows only as a buffer the pool never
// lent. Checks the periodic flush's hold, its running check, Stop's order of steps and
// the takeover decision.
#include "lib/collect/records_probe.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace cuscope::collect {
namespace {

class RecordsProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pool_.Configure(1024, 4);
    batch_.Reset(nullptr, false);
    probe_.Reset(ApiRecords::kDefault);
  }
  // Another client's buffer delivered to cuscope.
  void ForeignBufferComes() { pool_.Return(theirs_.data()); }

  std::vector<uint8_t> theirs_ = std::vector<uint8_t>(1024);
  BufferPool pool_;
  RecordBatch batch_{{}, nullptr};
  RecordsProbe probe_{&pool_, &batch_};
  std::atomic<bool> running_{true};
  int flushes_ = 0;
};

TEST_F(RecordsProbeTest, PeriodicFlushFlushesWhileRunning) {
  EXPECT_TRUE(probe_.PeriodicFlush(false, running_, [&] { ++flushes_; }));
  EXPECT_EQ(flushes_, 1);
  EXPECT_FALSE(probe_.records_taken());
  running_.store(false);
  EXPECT_TRUE(probe_.PeriodicFlush(false, running_, [&] { ++flushes_; }));
  EXPECT_EQ(flushes_, 1) << "flushed after the tracer stopped";
}

TEST_F(RecordsProbeTest, HeldPeriodicFlushDoesNothingUnlessForced) {
  probe_.HoldPeriodicFlush(true);
  EXPECT_FALSE(probe_.PeriodicFlush(false, running_, [&] { ++flushes_; }));
  EXPECT_EQ(flushes_, 0);
  EXPECT_TRUE(probe_.PeriodicFlush(/*even_if_held=*/true, running_, [&] { ++flushes_; }));
  EXPECT_EQ(flushes_, 1);
  probe_.HoldPeriodicFlush(false);
  EXPECT_TRUE(probe_.PeriodicFlush(false, running_, [&] { ++flushes_; }));
  EXPECT_EQ(flushes_, 2);
}

TEST_F(RecordsProbeTest, ForeignBufferDuringAFlushIsATakeover) {
  EXPECT_TRUE(probe_.PeriodicFlush(false, running_, [&] { ForeignBufferComes(); }));
  EXPECT_TRUE(probe_.records_taken());
  probe_.Reset(ApiRecords::kDefault);
  EXPECT_FALSE(probe_.records_taken()) << "a new session starts untaken";
}

TEST_F(RecordsProbeTest, StopRunsItsStepsInOrder) {
  std::vector<std::string> steps;
  probe_.Stop([&] { steps.push_back("take back"); }, [&] { steps.push_back("stop and flush"); },
              [&] { steps.push_back("finish"); });
  EXPECT_EQ(steps, (std::vector<std::string>{"take back", "stop and flush", "finish"}));
  EXPECT_FALSE(probe_.records_taken());
}

TEST_F(RecordsProbeTest, ForeignBufferAtStopIsATakeover) {
  probe_.Stop([] {}, [&] { ForeignBufferComes(); }, [] {});
  EXPECT_TRUE(probe_.records_taken());
}

TEST_F(RecordsProbeTest, NoProbeWithoutApiRecords) {
  EXPECT_FALSE(RecordsProbe::MakesProbes(ApiRecords::kNone));
  EXPECT_TRUE(RecordsProbe::MakesProbes(ApiRecords::kDefault));
  EXPECT_TRUE(RecordsProbe::MakesProbes(ApiRecords::kAll));
  // Without probes a takeover still shows as a buffer the pool never lent.
  probe_.Reset(ApiRecords::kNone);
  probe_.Stop([] {}, [] {}, [] {});
  EXPECT_FALSE(probe_.records_taken());
  probe_.Reset(ApiRecords::kNone);
  probe_.Stop([] {}, [&] { ForeignBufferComes(); }, [] {});
  EXPECT_TRUE(probe_.records_taken());
}

}  // namespace
}  // namespace cuscope::collect
