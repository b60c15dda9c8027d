// Monotonic time for the counter sampler's setup and measurement totals.
#ifndef CUSCOPE_LIB_COLLECT_ELAPSED_H_
#define CUSCOPE_LIB_COLLECT_ELAPSED_H_

#include <time.h>

#include <cstdint>

namespace cuscope::collect {

inline uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
}

// Adds the time from its construction to its destruction to *sum.
struct AddElapsed {
  uint64_t* sum;
  uint64_t t0;
  ~AddElapsed() { *sum += MonotonicNs() - t0; }
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_ELAPSED_H_
