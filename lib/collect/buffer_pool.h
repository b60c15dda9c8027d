// The bounded pool of CUPTI activity buffers: CUPTI asks for a buffer (Lend) when it
// needs one and hands it back full (Return) on its buffer thread; at most
// `max_buffers` exist at a time, and a request past the cap is refused (CUPTI then
// drops the records and counts them). At most kSpareBuffers wait in the pool: a
// buffer returned past them is unmapped, so the buffers a burst of records took (up
// to the cap, 64 x 8 MB by default) do not stay resident for the rest of the run;
// ReleasePooled unmaps every waiting buffer. Buffers are anonymous mappings of their
// own, so that an unmapped one is memory the process gives back.
//
// Lock: one leaf mutex, held for the bookkeeping only (never across a CUPTI call or
// another object's lock). The counters (refused, completed, foreign) are atomics,
// read lock-free by the records probe.
#ifndef CUSCOPE_LIB_COLLECT_BUFFER_POOL_H_
#define CUSCOPE_LIB_COLLECT_BUFFER_POOL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace cuscope::collect {

class BufferPool {
 public:
  struct Counts {
    uint64_t allocated = 0;    // buffers that exist (lent or pooled)
    uint64_t outstanding = 0;  // lent and not returned
    uint64_t most = 0;         // the most that existed at once since Configure
  };

  BufferPool() = default;
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  // Buffers still lent are never freed: CUPTI may hand them back until the process
  // ends (the pool's owner is never destroyed while CUPTI may call back).
  ~BufferPool();

  // A new session: buffers of `buffer_bytes` each, at most `max_buffers` of them.
  // Pooled buffers of another size are freed; lent ones of another size are freed as
  // they come back. Resets the refused, completed and foreign counts.
  void Configure(size_t buffer_bytes, int max_buffers);

  // CUPTI's buffer request: a pooled buffer, else a new one below the cap. Returns
  // nullptr (and counts a refusal) at the cap or when memory runs out; `*size` is the
  // buffer's size, 0 with no buffer.
  uint8_t* Lend(size_t* size);

  // CUPTI handed `buffer` back (its records already read): counted as completed and
  // pooled again, or freed when kSpareBuffers already wait. A buffer the pool did not
  // lend (another CUPTI client's) is counted as foreign and left alone; one of an
  // older configuration's size is freed.
  void Return(uint8_t* buffer);

  // Frees every buffer waiting in the pool (none lent is touched): the tracer has
  // stopped and its last buffers came back, so the run's end (the profile read back)
  // does not sit beside them. Buffers asked for later are allocated again.
  void ReleasePooled();

  // Buffers kept for reuse while none is lent out for them: enough for CUPTI's next
  // requests in a steady run, where each buffer comes back before the next fills.
  static constexpr size_t kSpareBuffers = 2;

  Counts counts();
  uint64_t refused() const { return refused_.load(); }
  uint64_t completed() const { return completed_.load(); }
  // Buffers handed back that another client had handed out.
  uint64_t foreign() const { return foreign_.load(); }

 private:
  // Unmaps every buffer in free_ (all of buffer_bytes_).
  void FreePooled() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::vector<uint8_t*> free_ ABSL_GUARDED_BY(mu_);
  // Every buffer the pool allocated and has not freed, with its size: a buffer of an
  // older configuration's size that comes back is freed, never lent out again as the
  // new size.
  absl::flat_hash_map<uint8_t*, size_t> own_ ABSL_GUARDED_BY(mu_);
  uint64_t allocated_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t most_allocated_ ABSL_GUARDED_BY(mu_) = 0;
  size_t buffer_bytes_ ABSL_GUARDED_BY(mu_) = 0;  // size of every pooled buffer
  int max_buffers_ ABSL_GUARDED_BY(mu_) = 0;
  std::atomic<uint64_t> refused_{0};
  std::atomic<uint64_t> completed_{0};
  std::atomic<uint64_t> foreign_{0};
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_BUFFER_POOL_H_
