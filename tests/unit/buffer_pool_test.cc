// The activity tracer's buffer pool (lib/collect/buffer_pool.h): lending up to the
// cap, refusals, reuse, foreign buffers, a change of buffer size between sessions,
// and the buffers it gives back (past its spares, and all of them at the end).
#include "lib/collect/buffer_pool.h"

#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace cuscope::collect {
namespace {

TEST(BufferPoolTest, LendsUpToTheCapThenRefuses) {
  BufferPool pool;
  pool.Configure(4096, 2);
  size_t size = 0;
  uint8_t* a = pool.Lend(&size);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(size, 4096u);
  uint8_t* b = pool.Lend(&size);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.Lend(&size), nullptr);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(pool.refused(), 1u);
  EXPECT_EQ(pool.counts().allocated, 2u);
  EXPECT_EQ(pool.counts().outstanding, 2u);
  pool.Return(a);
  pool.Return(b);
  EXPECT_EQ(pool.completed(), 2u);
  EXPECT_EQ(pool.counts().outstanding, 0u);
}

TEST(BufferPoolTest, ReturnedBuffersAreLentAgain) {
  BufferPool pool;
  pool.Configure(1024, 1);
  size_t size = 0;
  uint8_t* a = pool.Lend(&size);
  ASSERT_NE(a, nullptr);
  pool.Return(a);
  EXPECT_EQ(pool.Lend(&size), a);
  EXPECT_EQ(pool.counts().allocated, 1u);
  pool.Return(a);
}

TEST(BufferPoolTest, ForeignBufferIsCountedAndNotPooled) {
  BufferPool pool;
  pool.Configure(1024, 1);
  std::vector<uint8_t> theirs(1024);
  pool.Return(theirs.data());
  EXPECT_EQ(pool.foreign(), 1u);
  EXPECT_EQ(pool.completed(), 1u);
  size_t size = 0;
  uint8_t* lent = pool.Lend(&size);
  EXPECT_NE(lent, theirs.data()) << "another client's buffer was lent out";
  pool.Return(lent);
}

// A buffer lent before a restart with another size is freed when it comes back,
// never lent as the new size; pooled ones of the old size go at the restart.
TEST(BufferPoolTest, ReconfigureDropsBuffersOfTheOldSize) {
  BufferPool pool;
  pool.Configure(1024, 4);
  size_t size = 0;
  uint8_t* pooled = pool.Lend(&size);
  uint8_t* out = pool.Lend(&size);
  pool.Return(pooled);
  pool.Configure(8192, 4);
  EXPECT_EQ(pool.counts().allocated, 1u) << "the pooled buffer of 1 KB was freed";
  EXPECT_EQ(pool.completed(), 0u) << "counts start again";
  pool.Return(out);
  EXPECT_EQ(pool.counts().allocated, 0u);
  EXPECT_EQ(pool.foreign(), 0u);
  uint8_t* fresh = pool.Lend(&size);
  EXPECT_EQ(size, 8192u);
  pool.Return(fresh);
  // The same size again keeps what is pooled.
  pool.Configure(8192, 4);
  EXPECT_EQ(pool.counts().allocated, 1u);
}

// A burst takes buffers up to the cap; once they are back, only kSpareBuffers stay
// (the others are freed), and they are the ones lent next.
TEST(BufferPoolTest, KeepsOnlyItsSparesAfterABurst) {
  constexpr int kCap = 8;
  BufferPool pool;
  pool.Configure(1 << 16, kCap);
  std::vector<uint8_t*> lent;
  size_t size = 0;
  for (int i = 0; i < kCap; ++i) {
    lent.push_back(pool.Lend(&size));
    ASSERT_NE(lent.back(), nullptr);
    lent.back()[size - 1] = 1;  // written, as CUPTI writes records
  }
  EXPECT_EQ(pool.counts().allocated, uint64_t{kCap});
  for (uint8_t* b : lent) pool.Return(b);
  EXPECT_EQ(pool.completed(), uint64_t{kCap});
  EXPECT_EQ(pool.counts().allocated, BufferPool::kSpareBuffers);
  EXPECT_EQ(pool.counts().outstanding, 0u);
  EXPECT_EQ(pool.counts().most, uint64_t{kCap});
  // The spares are lent again before any new buffer is made.
  std::set<uint8_t*> kept(lent.begin(), lent.begin() + BufferPool::kSpareBuffers);
  for (size_t i = 0; i < BufferPool::kSpareBuffers; ++i) {
    uint8_t* b = pool.Lend(&size);
    EXPECT_EQ(kept.count(b), 1u);
    pool.Return(b);
  }
  EXPECT_EQ(pool.counts().allocated, BufferPool::kSpareBuffers);
  EXPECT_EQ(pool.refused(), 0u);
}

// At the tracer's stop every pooled buffer goes; one still lent stays lent, is
// counted, and comes back as usual; the pool lends again after.
TEST(BufferPoolTest, ReleasePooledFreesWhatWaits) {
  BufferPool pool;
  pool.Configure(4096, 4);
  size_t size = 0;
  uint8_t* a = pool.Lend(&size);
  uint8_t* b = pool.Lend(&size);
  uint8_t* still_lent = pool.Lend(&size);
  pool.Return(a);
  pool.Return(b);
  EXPECT_EQ(pool.counts().allocated, 3u);
  pool.ReleasePooled();
  EXPECT_EQ(pool.counts().allocated, 1u);
  EXPECT_EQ(pool.counts().outstanding, 1u);
  pool.Return(still_lent);
  EXPECT_EQ(pool.counts().outstanding, 0u);
  EXPECT_EQ(pool.foreign(), 0u);
  uint8_t* again = pool.Lend(&size);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(size, 4096u);
  again[0] = again[size - 1] = 7;
  pool.Return(again);
  pool.ReleasePooled();
  EXPECT_EQ(pool.counts().allocated, 0u);
  EXPECT_EQ(pool.counts().most, 3u);
}

// CUPTI's threads lend and return at once: every buffer is one of at most `cap`,
// and none is lent twice at the same time.
TEST(BufferPoolTest, ManyThreadsNeverShareABuffer) {
  constexpr int kCap = 4;
  BufferPool pool;
  pool.Configure(256, kCap);
  std::vector<std::thread> threads;
  std::mutex mu;
  std::set<uint8_t*> held;  // lent and not yet returned
  int shared = 0;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        size_t size = 0;
        uint8_t* b = pool.Lend(&size);
        if (b == nullptr) continue;
        {
          std::lock_guard<std::mutex> lock(mu);
          if (!held.insert(b).second) ++shared;
        }
        {
          std::lock_guard<std::mutex> lock(mu);
          held.erase(b);
        }
        pool.Return(b);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(shared, 0);
  EXPECT_LE(pool.counts().allocated, uint64_t{kCap});
  EXPECT_EQ(pool.counts().outstanding, 0u);
  EXPECT_EQ(pool.completed() + pool.refused(), 16000u);
}

}  // namespace
}  // namespace cuscope::collect
