// When the counter sampler's launch callbacks may go off and what they give up
// (lib/collect/idle_policy.h). The switches themselves run on the GPU
// (tests/gpu/gpu_test.cc, IdleLaunchCallbacksWakeForANewSignature).
#include "lib/collect/idle_policy.h"

#include <string>

#include "gtest/gtest.h"

namespace cuscope::collect {
namespace {

// Signatures by name (one block of 128 threads); `grid` blocks.
Signature Sig(const std::string& name, uint32_t grid = 1) {
  return {name, {grid, 1, 1}, {128, 1, 1}};
}

TEST(IdlePolicy, ARunOfSettledLaunchesWithNoSetBusy) {
  IdlePolicy p;
  p.Reset(3, /*enabled=*/true);
  EXPECT_FALSE(p.Launch(Sig("A"), /*settled=*/true, /*busy=*/false, 0));
  EXPECT_FALSE(p.Launch(Sig("A"), true, false, 0));
  EXPECT_FALSE(p.Launch(Sig("B"), /*settled=*/false, false, 0));  // still to sample: again
  EXPECT_FALSE(p.Launch(Sig("A"), true, false, 0));
  EXPECT_FALSE(p.Launch(Sig("A"), true, /*busy=*/true, 0));  // a set in progress: again
  EXPECT_FALSE(p.Launch(Sig("A"), true, false, 0));
  EXPECT_FALSE(p.Launch(Sig("A"), true, false, 0));
  EXPECT_TRUE(p.Launch(Sig("A"), true, false, 0));
  EXPECT_TRUE(p.Ready(0));
  EXPECT_FALSE(p.Ready(2));  // a period of 2: three periods are 6 launches
  EXPECT_EQ(p.Threshold(2), 6u);
  EXPECT_EQ(p.Threshold(1000), 3000u);
  EXPECT_FALSE(p.off());
}

TEST(IdlePolicy, OffWhenDisabledOrZeroNever) {
  IdlePolicy off;
  off.Reset(3, /*enabled=*/false);  // no kernel records to wake them
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(off.Launch(Sig("A"), true, false, 0));
  EXPECT_FALSE(off.Ready(0));
  IdlePolicy zero;
  zero.Reset(0, /*enabled=*/true);
  EXPECT_FALSE(zero.enabled());
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(zero.Launch(Sig("A"), true, false, 0));
}

TEST(IdlePolicy, WhileOffLaunchesCountNothingAndTheRunRestartsWhenBackOn) {
  IdlePolicy p;
  p.Reset(2, true);
  p.Launch(Sig("A"), true, false, 0);
  EXPECT_TRUE(p.Launch(Sig("A"), true, false, 0));
  SettledSignatures s;
  s.spent.insert(Sig("A"));
  SettledSignatures kept = p.Off(s);
  EXPECT_TRUE(p.off());
  EXPECT_TRUE(kept.Contains(Sig("A")));
  EXPECT_FALSE(kept.Contains(Sig("B")));
  EXPECT_FALSE(p.Launch(Sig("A"), true, false, 0));  // a callback in flight
  p.On(Sig("B"));
  EXPECT_FALSE(p.off());
  EXPECT_EQ(p.run(), 0u);
  EXPECT_FALSE(p.Ready(0));
}

// A signature the callbacks never see (a launch call they do not follow) wakes them
// twice, then is settled; one they see after a wake stays to be sampled.
TEST(IdlePolicy, ASignatureUnseenAfterTwoWakesIsGivenUp) {
  IdlePolicy p;
  p.Reset(1, true);
  SettledSignatures none;
  p.Launch(Sig("A"), true, false, 0);
  p.Off(none);
  p.On(Sig("coop"));  // first wake
  p.Launch(Sig("A"), true, false, 0);
  EXPECT_FALSE(p.Off(none).Contains(Sig("coop")));  // one wake: not given up
  p.On(Sig("coop"));                                // its next record, second wake
  p.Launch(Sig("A"), true, false, 0);
  SettledSignatures kept = p.Off(none);
  EXPECT_TRUE(kept.Contains(Sig("coop")));
  EXPECT_FALSE(kept.Contains(Sig("coop", 2)));  // another grid: its own signature
  // Given up for the rest of the session.
  p.On(Sig("late"));
  p.Launch(Sig("A"), true, false, 0);
  EXPECT_TRUE(p.Off(none).Contains(Sig("coop")));

  IdlePolicy seen;
  seen.Reset(1, true);
  seen.Launch(Sig("A"), true, false, 0);
  seen.Off(none);
  seen.On(Sig("eval"));
  seen.Launch(Sig("eval"), /*settled=*/false, false, 0);  // launched while on
  seen.Launch(Sig("A"), true, false, 0);
  seen.Off(none);
  seen.On(Sig("eval"));  // woke again (not yet sampled): a first wake again
  seen.Launch(Sig("A"), true, false, 0);
  EXPECT_FALSE(seen.Off(none).Contains(Sig("eval")));
}

TEST(IdlePolicy, DisabledForGoodWhenRecordsStopComing) {
  IdlePolicy p;
  p.Reset(1, true);
  p.Launch(Sig("A"), true, false, 0);
  p.Off(SettledSignatures());
  p.Disable();
  EXPECT_FALSE(p.off());
  EXPECT_FALSE(p.enabled());
  EXPECT_FALSE(p.Launch(Sig("A"), true, false, 0));
  EXPECT_FALSE(p.Ready(0));
}

}  // namespace
}  // namespace cuscope::collect
