// The BLOB layout of a list of doubles (gpu_samples.metric_values): each value as
// 8 bytes of IEEE 754 binary64, little-endian, one after the other; a NaN keeps its
// bits. On a little-endian host that is the vector's memory as it is.
#ifndef CUSCOPE_LIB_STORE_FLOAT64_BLOB_H_
#define CUSCOPE_LIB_STORE_FLOAT64_BLOB_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace cuscope::store {

static_assert(std::numeric_limits<double>::is_iec559 && sizeof(double) == 8,
              "the profile stores doubles as IEEE 754 binary64");

inline constexpr size_t kFloat64Bytes = 8;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
inline constexpr bool kHostIsLittleEndian = true;
#else
inline constexpr bool kHostIsLittleEndian = false;
#endif

// The BLOB of `values` (for hosts whose memory is not the layout already).
inline std::string EncodeFloat64Blob(const std::vector<double>& values) {
  std::string bytes(values.size() * kFloat64Bytes, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    uint64_t bits;
    std::memcpy(&bits, &values[i], sizeof bits);
    for (size_t b = 0; b < kFloat64Bytes; ++b) {
      bytes[i * kFloat64Bytes + b] = static_cast<char>((bits >> (8 * b)) & 0xff);
    }
  }
  return bytes;
}

// The values of a BLOB of `size` bytes, a multiple of 8, into *out.
inline void DecodeFloat64Blob(const void* data, size_t size, std::vector<double>* out) {
  const size_t n = size / kFloat64Bytes;
  out->resize(n);
  if (n == 0) return;
  if constexpr (kHostIsLittleEndian) {
    std::memcpy(out->data(), data, n * kFloat64Bytes);
  } else {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) {
      uint64_t bits = 0;
      for (size_t b = 0; b < kFloat64Bytes; ++b) {
        bits |= uint64_t{p[i * kFloat64Bytes + b]} << (8 * b);
      }
      std::memcpy(&(*out)[i], &bits, sizeof bits);
    }
  }
}

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_FLOAT64_BLOB_H_
