// The counter sampler's held spans cut into phases (lib/collect/held_phases.h).
#include "lib/collect/held_phases.h"

#include "gtest/gtest.h"
#include "lib/model/profile.h"

namespace cuscope::collect {
namespace {

std::string Describe(const std::vector<HeldSpan>& spans) {
  std::string out;
  for (const HeldSpan& s : spans) {
    out += std::string(HeldPhaseKind(s.phase)) + " " + std::to_string(s.start_ns) + "-" +
           std::to_string(s.end_ns) + "; ";
  }
  return out;
}

TEST(HeldPhases, NoPhaseIsOneSpanOfPlainSamplerTime) {
  EXPECT_EQ(Describe(SplitHeld(100, 200, {})), "cuscope counters 100-200; ");
  EXPECT_TRUE(SplitHeld(200, 200, {}).empty());
}

// A rotate set's last Stop, its decode, the next set's image: the held span covered
// exactly, the gaps left as sampler time.
TEST(HeldPhases, PhasesAndGapsCoverTheSpan) {
  const std::vector<HeldSpan> phases = {
      {HeldPhase::kPass, 110, 150}, {HeldPhase::kRead, 150, 160}, {HeldPhase::kImage, 170, 190}};
  EXPECT_EQ(Describe(SplitHeld(100, 200, phases)),
            "cuscope counters 100-110; cuscope counters: measure 110-150; "
            "cuscope counters: decode 150-160; cuscope counters 160-170; "
            "cuscope counters: counter image 170-190; cuscope counters 190-200; ");
}

// A context's setup initializes its first image: the inner phase names its part. A
// phase begun before the callback (kernel replay's, timed from the launch's entry) is
// clipped to it.
TEST(HeldPhases, InnerPhasesWinAndOuterOnesAreClipped) {
  const std::vector<HeldSpan> phases = {
      {HeldPhase::kImage, 120, 150}, {HeldPhase::kSetup, 110, 180}, {HeldPhase::kPass, 50, 105}};
  EXPECT_EQ(Describe(SplitHeld(100, 200, phases)),
            "cuscope counters: measure 100-105; cuscope counters 105-110; "
            "cuscope counters: setup 110-120; cuscope counters: counter image 120-150; "
            "cuscope counters: setup 150-180; cuscope counters 180-200; ");
}

// An inner phase begun in the same nanosecond as the one around it (a coarse clock)
// still names its part: it is listed first, having ended first.
TEST(HeldPhases, InnerPhaseBegunTogetherStillWins) {
  const std::vector<HeldSpan> phases = {{HeldPhase::kImage, 110, 150},
                                        {HeldPhase::kSetup, 110, 180}};
  EXPECT_EQ(Describe(SplitHeld(100, 200, phases)),
            "cuscope counters 100-110; cuscope counters: counter image 110-150; "
            "cuscope counters: setup 150-180; cuscope counters 180-200; ");
}

// Slivers of plain sampler time between phases (a microsecond between a pass's Stop
// and the decode) join the phase before them; a long one stays.
TEST(HeldPhases, ShortPlainTimeJoinsItsNeighbour) {
  const std::vector<HeldSpan> phases = {
      {HeldPhase::kPass, 101, 150}, {HeldPhase::kRead, 151, 160}, {HeldPhase::kImage, 170, 190}};
  EXPECT_EQ(Describe(SplitHeld(100, 200, phases, /*fold_other_ns=*/2)),
            "cuscope counters: measure 100-151; cuscope counters: decode 151-160; "
            "cuscope counters 160-170; cuscope counters: counter image 170-190; "
            "cuscope counters 190-200; ");
  EXPECT_EQ(Describe(SplitHeld(100, 101, {}, 2)), "cuscope counters 100-101; ");
}

TEST(HeldPhases, EveryKindCountsAsTheSamplersOverhead) {
  for (HeldPhase p : {HeldPhase::kOther, HeldPhase::kSetup, HeldPhase::kImage, HeldPhase::kPass,
                      HeldPhase::kRead}) {
    EXPECT_TRUE(model::IsCountersOverhead(HeldPhaseKind(p))) << HeldPhaseKind(p);
  }
  EXPECT_FALSE(model::IsCountersOverhead(model::kOverheadBufferFlush));
  EXPECT_FALSE(model::IsCountersOverhead("cuscope"));
}

}  // namespace
}  // namespace cuscope::collect
