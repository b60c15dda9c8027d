// The bytes of a trace on their way to a file: buffered, and deflated into gzip
// format (RFC 1952, zlib) when the file's name ends in ".gz". Streaming: memory
// stays at the buffer's size whatever the trace's.
#ifndef CUSCOPE_LIB_REPORT_TRACE_OUTPUT_H_
#define CUSCOPE_LIB_REPORT_TRACE_OUTPUT_H_

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace cuscope::report {

// Whether `path` names a gzip file (ends in ".gz").
bool IsGzipPath(std::string_view path);

class TraceOutput {
 public:
  // Writes to `out` (not owned), compressed when `gzip`.
  TraceOutput(std::FILE* out, bool gzip);
  ~TraceOutput();
  TraceOutput(const TraceOutput&) = delete;
  TraceOutput& operator=(const TraceOutput&) = delete;

  void Write(const char* data, size_t n);
  void Write(std::string_view s) { Write(s.data(), s.size()); }
  // Flushes everything (and ends the gzip stream); the first failure, if any.
  absl::Status Finish();
  uint64_t bytes_in() const { return bytes_in_; }  // before compression

 private:
  class Deflater;
  void Drain();
  std::FILE* out_;
  std::unique_ptr<Deflater> deflater_;
  std::vector<char> buffer_;
  size_t used_ = 0;
  uint64_t bytes_in_ = 0;
  bool failed_ = false;
  bool finished_ = false;
};

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_TRACE_OUTPUT_H_
