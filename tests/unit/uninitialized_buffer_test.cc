// The counter data image's buffer (lib/collect/uninitialized_buffer.h): it never writes
// its bytes (CUPTI initializes the image; zeroing 1.6 GB cost ~1.1 s on the H200), keeps
// its address while it does not grow (kernel replay configures CUPTI with it once), and
// reports a failed allocation instead of throwing.
#include "lib/collect/uninitialized_buffer.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "gtest/gtest.h"

namespace cuscope::collect {
namespace {

// Shrunk, then grown again within its allocation: the same address, and the bytes
// as they were (std::vector<uint8_t> would write zeros over those it grows into).
TEST(UninitializedBuffer, GrowingWithinItsAllocationWritesNothing) {
  UninitializedBuffer buffer;
  ASSERT_TRUE(buffer.Resize(4096));
  std::memset(buffer.data(), 0xab, buffer.size());
  const uint8_t* data = buffer.data();
  ASSERT_TRUE(buffer.Resize(16));
  ASSERT_TRUE(buffer.Resize(4096));
  ASSERT_EQ(buffer.data(), data);
  EXPECT_EQ(buffer.size(), 4096u);
  EXPECT_TRUE(std::all_of(buffer.data(), buffer.data() + buffer.size(),
                          [](uint8_t b) { return b == 0xab; }));
}

TEST(UninitializedBuffer, GrowingPastItsAllocationAllocates) {
  UninitializedBuffer buffer;
  EXPECT_EQ(buffer.size(), 0u);
  ASSERT_TRUE(buffer.Resize(64));
  ASSERT_TRUE(buffer.Resize(1 << 20));
  EXPECT_EQ(buffer.size(), 1u << 20);
  EXPECT_EQ(buffer.capacity(), 1u << 20);
  buffer.data()[(1 << 20) - 1] = 7;  // writable to its end
}

TEST(UninitializedBuffer, AFailedAllocationIsAResult) {
  UninitializedBuffer buffer;
  ASSERT_TRUE(buffer.Resize(64));
  EXPECT_FALSE(buffer.Resize(std::numeric_limits<size_t>::max() / 2));
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_TRUE(buffer.Resize(64));
}

}  // namespace
}  // namespace cuscope::collect
