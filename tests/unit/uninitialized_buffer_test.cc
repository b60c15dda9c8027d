// The counter data image's buffer (lib/collect/uninitialized_buffer.h): growing it must
// not zero the new bytes (CUPTI initializes the image; zeroing 1.6 GB cost ~1.1 s on
// the H200), and it must keep what it holds.
#include "lib/collect/uninitialized_buffer.h"

#include <algorithm>

#include "gtest/gtest.h"

namespace cuscope::collect {
namespace {

// Shrunk, then grown again within its allocation: std::vector<uint8_t> would write
// zeros over the bytes it grows into; this buffer leaves them as they were. (The
// standard calls such bytes indeterminate; the test relies on what libstdc++ does,
// which is the point: no write.)
TEST(UninitializedBuffer, GrowingDoesNotZeroTheNewBytes) {
  UninitializedBuffer buffer(4096, 0xab);
  const uint8_t* data = buffer.data();
  buffer.resize(16);
  buffer.resize(4096);
  ASSERT_EQ(buffer.data(), data);  // the same allocation
  EXPECT_TRUE(std::all_of(buffer.begin(), buffer.end(), [](uint8_t b) { return b == 0xab; }));
}

TEST(UninitializedBuffer, GrowingKeepsWhatItHolds) {
  UninitializedBuffer buffer(64);
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<uint8_t>(i);
  buffer.resize(1 << 20);  // a new allocation
  for (size_t i = 0; i < 64; ++i) ASSERT_EQ(buffer[i], static_cast<uint8_t>(i));
  buffer.assign(8, 7);  // an explicit value is still written
  EXPECT_TRUE(std::all_of(buffer.begin(), buffer.end(), [](uint8_t b) { return b == 7; }));
}

}  // namespace
}  // namespace cuscope::collect
