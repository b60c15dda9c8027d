// Checked 64-bit arithmetic for numbers formed from stored values (sums of
// durations, byte totals, differences of totals): a profile file is input, and a
// damaged or hostile one must give a large but honest number, never a wrapped one
// or undefined behaviour. Results that do not fit saturate at the type's limit.
#ifndef CUSCOPE_LIB_MODEL_CHECKED_H_
#define CUSCOPE_LIB_MODEL_CHECKED_H_

#include <cstdint>
#include <limits>

namespace cuscope::model {

// a + b, or UINT64_MAX when it does not fit.
inline uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}

// a += b, saturating.
inline void AddTo(uint64_t& a, uint64_t b) { a = SaturatingAdd(a, b); }

// a * b, or UINT64_MAX when it does not fit.
inline uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}

// A non-negative real as an unsigned number (truncated): 0 for negatives and NaN,
// UINT64_MAX for values at or above 2^64 (a cast would be undefined there).
inline uint64_t SaturatingFromDouble(double v) {
  if (!(v > 0)) return 0;
  if (v >= 18446744073709551616.0) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(v);
}

// next - base as a signed number, clamped to [INT64_MIN + 1, INT64_MAX] (so that
// its magnitude, its negation, always fits an int64_t too).
inline int64_t SaturatingDifference(uint64_t next, uint64_t base) {
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (next >= base) {
    const uint64_t d = next - base;
    return d > kMax ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(d);
  }
  const uint64_t d = base - next;
  return d > kMax ? -std::numeric_limits<int64_t>::max() : -static_cast<int64_t>(d);
}

// |v| as an unsigned number (defined for INT64_MIN too).
inline uint64_t Magnitude(int64_t v) {
  return v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
}

}  // namespace cuscope::model

#endif  // CUSCOPE_LIB_MODEL_CHECKED_H_
