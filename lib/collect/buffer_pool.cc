#include "lib/collect/buffer_pool.h"

#include <cstdlib>

namespace cuscope::collect {

BufferPool::~BufferPool() {
  absl::MutexLock lock(&mu_);
  for (uint8_t* b : free_) std::free(b);
}

void BufferPool::Configure(size_t buffer_bytes, int max_buffers) {
  absl::MutexLock lock(&mu_);
  if (buffer_bytes_ != buffer_bytes) {
    for (uint8_t* b : free_) {
      own_.erase(b);
      std::free(b);
    }
    allocated_ -= free_.size();
    free_.clear();
    buffer_bytes_ = buffer_bytes;
  }
  max_buffers_ = max_buffers;
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
    buffer = static_cast<uint8_t*>(std::aligned_alloc(8, buffer_bytes_));
    if (buffer != nullptr) {
      ++allocated_;
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
  if (own->second != buffer_bytes_) {
    // Lent out before a reconfiguration with another buffer size.
    own_.erase(own);
    --allocated_;
    std::free(buffer);
    return;
  }
  free_.push_back(buffer);
}

BufferPool::Counts BufferPool::counts() {
  absl::MutexLock lock(&mu_);
  return {allocated_, allocated_ - free_.size()};
}

}  // namespace cuscope::collect
