// One line to the program's stderr, unbuffered (a write(2), safe from CUPTI callbacks
// and at exit, and not interleaved with the program's stdio buffers).
#ifndef CUSCOPE_LIB_COLLECT_STDERR_H_
#define CUSCOPE_LIB_COLLECT_STDERR_H_

#include <unistd.h>

#include <string>

namespace cuscope::collect {

inline void WriteStderr(const std::string& line) {
  ssize_t n = write(STDERR_FILENO, line.data(), line.size());
  (void)n;
}

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_STDERR_H_
