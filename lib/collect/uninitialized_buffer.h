// A byte buffer for CUPTI's counter data image whose bytes are never written by the
// buffer itself: CUPTI initializes the image (the values are the same with and without
// a zero fill), and value-initializing a fresh image of the sol set at 2,048 ranges
// (1,591 MiB) costs about a second of page faults and zeroing (docs/validation.md,
// "Facts the code relies on"). It allocates only to grow past what it holds, without
// copying (the image is initialized again after), so its address is stable while its
// size does not grow; an allocation that fails is a result, not an exception (the
// buffer lives in a profiled program's callbacks).
#ifndef CUSCOPE_LIB_COLLECT_UNINITIALIZED_BUFFER_H_
#define CUSCOPE_LIB_COLLECT_UNINITIALIZED_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace cuscope::collect {

class UninitializedBuffer {
 public:
  // `size` bytes, their values unspecified. False (the buffer empty): no memory.
  bool Resize(size_t size) {
    if (size > capacity_) {
      data_.reset();
      capacity_ = size_ = 0;
      data_.reset(new (std::nothrow) uint8_t[size]);
      if (data_ == nullptr) return false;
      capacity_ = size;
    }
    size_ = size;
    return true;
  }
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0, capacity_ = 0;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_UNINITIALIZED_BUFFER_H_
