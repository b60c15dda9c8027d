#include "lib/collect/buffer_pool.h"

#include <sys/mman.h>

namespace cuscope::collect {
namespace {

// A buffer of `bytes` (page-aligned, so 8-byte aligned as CUPTI requires), or nullptr.
// Its pages are taken as CUPTI writes records into them.
uint8_t* MapBuffer(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
}

void UnmapBuffer(uint8_t* buffer, size_t bytes) { munmap(buffer, bytes); }

}  // namespace

BufferPool::~BufferPool() {
  absl::MutexLock lock(&mu_);
  for (uint8_t* b : free_) UnmapBuffer(b, buffer_bytes_);
}

void BufferPool::Configure(size_t buffer_bytes, int max_buffers) {
  absl::MutexLock lock(&mu_);
  if (buffer_bytes_ != buffer_bytes) {
    FreePooled();
    buffer_bytes_ = buffer_bytes;
  }
  max_buffers_ = max_buffers;
  most_allocated_ = allocated_;
  refused_.store(0);
  completed_.store(0);
  foreign_.store(0);
}

uint8_t* BufferPool::Lend(size_t* size) {
  uint8_t* buffer = nullptr;
  *size = 0;
  absl::MutexLock lock(&mu_);
  if (!free_.empty()) {
    buffer = free_.back();
    free_.pop_back();
  } else if (allocated_ < static_cast<uint64_t>(max_buffers_)) {
    buffer = MapBuffer(buffer_bytes_);
    if (buffer != nullptr) {
      ++allocated_;
      if (allocated_ > most_allocated_) most_allocated_ = allocated_;
      own_.emplace(buffer, buffer_bytes_);
    }
  }
  if (buffer == nullptr) {
    refused_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;  // CUPTI drops the records and counts them.
  }
  *size = buffer_bytes_;
  return buffer;
}

void BufferPool::Return(uint8_t* buffer) {
  completed_.fetch_add(1, std::memory_order_relaxed);
  absl::MutexLock lock(&mu_);
  auto own = own_.find(buffer);
  if (own == own_.end()) {
    // Another client's buffer, delivered to cuscope after it took the callbacks
    // back: its records were read; the memory is not ours to reuse or free.
    foreign_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  // Lent out before a reconfiguration with another buffer size, or one more than the
  // pool keeps.
  if (own->second != buffer_bytes_ || free_.size() >= kSpareBuffers) {
    UnmapBuffer(buffer, own->second);
    own_.erase(own);
    --allocated_;
    return;
  }
  free_.push_back(buffer);
}

void BufferPool::ReleasePooled() {
  absl::MutexLock lock(&mu_);
  FreePooled();
}

void BufferPool::FreePooled() {
  for (uint8_t* b : free_) {
    own_.erase(b);
    UnmapBuffer(b, buffer_bytes_);
  }
  allocated_ -= free_.size();
  free_.clear();
}

BufferPool::Counts BufferPool::counts() {
  absl::MutexLock lock(&mu_);
  return {allocated_, allocated_ - free_.size(), most_allocated_};
}

}  // namespace cuscope::collect
