// The counter image's ranges shared by consecutive rotate sets (lib/collect/image_ranges.h).
#include "lib/collect/image_ranges.h"

#include <string>
#include <vector>

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

// Measured on the H200 (image_size_probe, "uneven"): after a set of 4 launches in 8
// passes and 2 in the 9th, a set of 3 other launches went to ranges 2, 3, 4 and the
// image held 5.
TEST(ImageRanges, ACutLastPassPlacesTheNextSetAfterIt) {
  ImageRanges image(64);
  image.Reset();
  ASSERT_EQ(image.Decoded(4, 4, 2), std::optional<size_t>(4));
  EXPECT_EQ(image.next(), 2u);
  EXPECT_FALSE(image.NeedsReset(3));
  ASSERT_EQ(image.Decoded(5, 3, 3), std::optional<size_t>(3));
  EXPECT_EQ(image.first(), 2u);
}

// Also measured: after sets whose last passes were empty (4, 4, 2, 0...; 4, 0...;
// 4, 3, 2, 1, 0...), the next set's values were not its own. The cut set's own ranges
// are read; then the image is re-initialized.
TEST(ImageRanges, AnEmptyLastPassForcesAResetAfterTheSetIsRead) {
  ImageRanges image(64);
  image.Reset();
  ASSERT_EQ(image.Decoded(4, 4, 4), std::optional<size_t>(4));
  std::optional<size_t> ranges = image.Decoded(8, 4, 0);
  ASSERT_TRUE(ranges.has_value());
  EXPECT_EQ(*ranges, 4u);
  EXPECT_EQ(image.first(), 4u);
  EXPECT_TRUE(image.NeedsReset(1));
}

// A set cut before its first launch (every pass empty) reads nothing, and the image is
// re-initialized after it too: that shape was not measured with launches that can be
// told apart.
TEST(ImageRanges, ASetWithNoLaunchForcesAReset) {
  ImageRanges image(64);
  image.Reset();
  ASSERT_EQ(image.Decoded(4, 4, 4), std::optional<size_t>(4));
  ASSERT_EQ(image.Decoded(4, 0, 0), std::optional<size_t>(0));
  EXPECT_TRUE(image.NeedsReset(1));
}

// A count the placement does not predict: nothing is read and the image is
// re-initialized.
TEST(ImageRanges, AnUnexpectedCountForcesAReset) {
  ImageRanges image(64);
  image.Reset();
  ASSERT_TRUE(image.Decoded(3, 3, 1));
  EXPECT_FALSE(image.Decoded(5, 1, 1)) << "the set of 1 goes to range 1: 3 ranges, not 5";
  EXPECT_TRUE(image.NeedsReset(1));
  image.Reset();
  EXPECT_EQ(image.Decoded(1, 1, 1), std::optional<size_t>(1));
}

// Dropped ranges (the image full): which were dropped is not known, nothing is read.
TEST(ImageRanges, DroppedRangesAreNotRead) {
  ImageRanges image(8);
  image.Reset();
  ASSERT_TRUE(image.Decoded(6, 6, 6));
  EXPECT_FALSE(image.Decoded(8, 2, 2, /*dropped=*/1));
  EXPECT_TRUE(image.NeedsReset(1));
}

// Room counts from the highest range held, not only from where CUPTI writes next.
TEST(ImageRanges, RoomFromTheHighestRangeHeld) {
  ImageRanges image(16);
  image.Reset();
  ASSERT_TRUE(image.Decoded(10, 10, 2));  // the next set writes at 2
  EXPECT_EQ(image.next(), 2u);
  EXPECT_FALSE(image.NeedsReset(6));
  EXPECT_TRUE(image.NeedsReset(7));
}

// Measured on the H200 (image_size_probe, "grow-after"): a Range Profiler object whose
// first image held 128 ranges decoded 256 of a set of 600 launches a pass in a new
// 2,048-range image, 0 dropped. A larger image than the object's first goes to a new
// object; smaller ones (and the window limit's, unsized) do not.
TEST(ImageRanges, ALargerImageThanTheFirstNeedsANewObject) {
  ImageRanges image(2048);
  ImageRanges::Step step = image.Before(53, /*sizing=*/true, 2048);
  EXPECT_TRUE(step.reset);
  EXPECT_FALSE(step.reenable);  // the object has no image yet
  EXPECT_EQ(step.capacity, 128u);
  image.Reset(step.capacity);
  EXPECT_EQ(image.room(), 128u);
  EXPECT_FALSE(image.Before(53, true, 2048).reset);                // the set fits
  ASSERT_EQ(image.Decoded(53, 53, 0), std::optional<size_t>(53));  // ended in an empty pass
  step = image.Before(34, true, 2048);
  EXPECT_TRUE(step.reset);
  EXPECT_FALSE(step.reenable);
  EXPECT_EQ(step.capacity, 128u);
  image.Reset(step.capacity);
  step = image.Before(581, true, 2048);
  EXPECT_TRUE(step.reset);
  EXPECT_TRUE(step.reenable);
  EXPECT_EQ(step.capacity, 2048u);
  image.Reenabled();
  EXPECT_TRUE(image.NeedsReset(1));
  image.Reset(step.capacity);
  EXPECT_EQ(image.room(), 2048u);
  ASSERT_EQ(image.Decoded(581, 581, 0), std::optional<size_t>(581));
  step = image.Before(1, true, 2048);
  EXPECT_EQ(step.capacity, 64u);
  EXPECT_FALSE(step.reenable);
  // Unsized: every image has the window limit's size, one object.
  ImageRanges fixed(2048);
  step = fixed.Before(1, /*sizing=*/false, 2048);
  EXPECT_EQ(step.capacity, 2048u);
  fixed.Reset(step.capacity);
  fixed.Invalidate();
  step = fixed.Before(581, false, 2048);
  EXPECT_TRUE(step.reset);
  EXPECT_FALSE(step.reenable);
}

// Any image larger than the object's first goes to a new object, not only those over
// twice its size (the measured limit): the margin is not relied on.
TEST(ImageRanges, EvenTwiceTheFirstImageNeedsANewObject) {
  ImageRanges image(2048);
  image.Reset(ImageRanges::CapacityFor(1, 2048));
  EXPECT_EQ(image.room(), 64u);
  image.Invalidate();
  const ImageRanges::Step step = image.Before(53, /*sizing=*/true, 2048);
  EXPECT_EQ(step.capacity, 128u);
  EXPECT_TRUE(step.reenable);
}

// PrepareImage's calls, in order, for a context's sets.
class RecordedCalls : public ImageCalls {
 public:
  bool Reenable() override { return Call("reenable"); }
  bool Initialize(size_t capacity) override { return Call("init " + std::to_string(capacity)); }
  bool Configure() override { return Call("configure"); }
  std::string calls;
  std::string fail;  // the call that fails

 private:
  bool Call(const std::string& what) {
    calls += what + "; ";
    return what != fail;
  }
};

TEST(ImageRanges, PrepareImageMakesTheCallsInOrder) {
  ImageRanges image(2048);
  bool configured = false;
  RecordedCalls calls;
  ASSERT_TRUE(PrepareImage(image, 34, /*sizing=*/true, 2048, &configured, calls));
  ASSERT_EQ(image.Decoded(34, 34, 34), std::optional<size_t>(34));
  ASSERT_TRUE(PrepareImage(image, 20, true, 2048, &configured, calls));  // fits after it
  ASSERT_EQ(image.Decoded(54, 20, 20), std::optional<size_t>(20));
  ASSERT_TRUE(PrepareImage(image, 581, true, 2048, &configured, calls));
  EXPECT_EQ(calls.calls,
            "init 128; configure; "  // the object's first image
            "configure; "            // the same image, given again
            "reenable; init 2048; configure; ");
  EXPECT_EQ(image.room(), 2048u);
  EXPECT_FALSE(configured);
}

TEST(ImageRanges, PrepareImageStopsAtAFailedCall) {
  for (const std::string& failing :
       std::vector<std::string>{"reenable", "init 2048", "configure"}) {
    ImageRanges image(2048);
    bool configured = false;
    RecordedCalls calls;
    ASSERT_TRUE(PrepareImage(image, 1, true, 2048, &configured, calls));
    image.Invalidate();
    calls.calls.clear();
    calls.fail = failing;
    EXPECT_FALSE(PrepareImage(image, 581, true, 2048, &configured, calls)) << failing;
    EXPECT_EQ(calls.calls.substr(calls.calls.size() - failing.size() - 2), failing + "; ");
  }
}

TEST(ImageRanges, CapacityForASet) {
  EXPECT_EQ(ImageRanges::CapacityFor(1, 2048), 64u);
  EXPECT_EQ(ImageRanges::CapacityFor(32, 2048), 64u);
  EXPECT_EQ(ImageRanges::CapacityFor(33, 2048), 128u);
  EXPECT_EQ(ImageRanges::CapacityFor(581, 2048), 2048u);
  EXPECT_EQ(ImageRanges::CapacityFor(1500, 2048), 2048u);
  EXPECT_EQ(ImageRanges::CapacityFor(20, 16), 16u);  // a window limit under 64
  ImageRanges image(2048);
  image.Reset(64);
  EXPECT_EQ(image.capacity(), 64u);
  EXPECT_TRUE(image.NeedsReset(65));
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
