// The counter image's ranges shared by consecutive rotate sets (lib/collect/image_ranges.h).
#include "lib/collect/image_ranges.h"

#include "gtest/gtest.h"

namespace cuscope::collect {
namespace {

TEST(ImageRanges, UnknownUntilInitialized) {
  ImageRanges image(2048);
  EXPECT_TRUE(image.NeedsReset(1));
  image.Reset();
  EXPECT_FALSE(image.NeedsReset(2048));
  EXPECT_TRUE(image.NeedsReset(2049));
}

// Three sets of 581 ranges fit in 2,048; the fourth needs a fresh image. Each set
// reads its ranges from where it began.
TEST(ImageRanges, SetsAppendUntilTheNextMightNotFit) {
  ImageRanges image(2048);
  image.Reset();
  for (size_t set = 0; set < 3; ++set) {
    ASSERT_FALSE(image.NeedsReset(581)) << set;
    EXPECT_EQ(image.Decoded(581 * (set + 1), 581, 581), std::optional<size_t>(581));
    EXPECT_EQ(image.first(), 581 * set);
  }
  EXPECT_EQ(image.next(), 1743u);
  EXPECT_FALSE(image.NeedsReset(305));
  EXPECT_TRUE(image.NeedsReset(306));
  image.Reset();
  EXPECT_EQ(image.Decoded(4, 4, 4), std::optional<size_t>(4));
  EXPECT_EQ(image.first(), 0u);
}

// The sequence measured on the H200 (image_size_probe, "cut"): sets of 4+4, 4+0, 4+2,
// 0+0, 3+3 and 6+6 launches (first pass + later passes) left 4, 8, 8, 8, 9 and 15
// ranges in the image; the 3+3 set's values were at ranges 6, 7 and 8.
TEST(ImageRanges, CutSetsAsMeasured) {
  ImageRanges image(64);
  image.Reset();
  struct Step {
    size_t first_pass, last_pass, total, first;
  };
  const Step steps[] = {{4, 4, 4, 0}, {4, 0, 8, 4}, {4, 2, 8, 4},
                        {0, 0, 8, 6}, {3, 3, 9, 6}, {6, 6, 15, 9}};
  for (const Step& s : steps) {
    std::optional<size_t> ranges = image.Decoded(s.total, s.first_pass, s.last_pass);
    ASSERT_TRUE(ranges.has_value()) << s.first_pass << "+" << s.last_pass;
    EXPECT_EQ(*ranges, s.first_pass);
    EXPECT_EQ(image.first(), s.first);
  }
  EXPECT_EQ(image.next(), 15u);
}

// A count the placement does not predict (the first attempt appended after the
// highest range; the 1+1 set after a 2+0 one read CUPTI's total of 3 as no new range):
// nothing is read and the image is re-initialized.
TEST(ImageRanges, AnUnexpectedCountForcesAReset) {
  ImageRanges image(64);
  image.Reset();
  ASSERT_TRUE(image.Decoded(1, 1, 1));
  ASSERT_TRUE(image.Decoded(3, 2, 0));
  EXPECT_FALSE(image.Decoded(4, 1, 1)) << "CUPTI writes at range 1, not 3";
  EXPECT_TRUE(image.NeedsReset(1));
  image.Reset();
  EXPECT_EQ(image.Decoded(1, 1, 1), std::optional<size_t>(1));
}

TEST(ImageRanges, AFailedDecodeForcesAReset) {
  ImageRanges image(64);
  image.Reset();
  ASSERT_TRUE(image.Decoded(4, 4, 4));
  image.Invalidate();
  EXPECT_TRUE(image.NeedsReset(1));
  EXPECT_FALSE(image.Decoded(8, 4, 4)) << "unknown until re-initialized";
  image.Reset();
  EXPECT_FALSE(image.NeedsReset(64));
}

}  // namespace
}  // namespace cuscope::collect
