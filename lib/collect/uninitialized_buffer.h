// A byte buffer whose growth leaves the new bytes uninitialized, for CUPTI's counter
// data image: CUPTI initializes the image itself (H200, image_reinit_probe: the same
// values with and without a zero fill), and value-initializing a fresh 1,591 MiB image
// (the sol set at 2,048 ranges) took about 1.1 s of page faults and zeroing
// (image_size_probe "sizes", session 10), each time rotate grows its image.
#ifndef CUSCOPE_LIB_COLLECT_UNINITIALIZED_BUFFER_H_
#define CUSCOPE_LIB_COLLECT_UNINITIALIZED_BUFFER_H_

#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace cuscope::collect {

// std::allocator, except that construct() with no arguments default-initializes
// (leaves a byte as it is) instead of value-initializing (zeroing) it.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}  // NOLINT
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0) {
      ::new (static_cast<void*>(p)) U;
    } else {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
  }
};

using UninitializedBuffer = std::vector<uint8_t, UninitializedAllocator<uint8_t>>;

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_UNINITIALIZED_BUFFER_H_
