#include "lib/report/trace_output.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace cuscope::report {
namespace {
constexpr size_t kBufferSize = 1 << 18;
}  // namespace

bool IsGzipPath(std::string_view path) {
  return path.size() > 3 && path.substr(path.size() - 3) == ".gz";
}

// A zlib deflate stream with gzip's header and trailer (windowBits 15 + 16), at
// level 1 (Z_BEST_SPEED): a JSON trace shrinks about tenfold at that level already.
class TraceOutput::Deflater {
 public:
  explicit Deflater(std::FILE* out) : out_(out), chunk_(kBufferSize) {
    ok_ = deflateInit2(&z_, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  }
  ~Deflater() {
    if (ok_) deflateEnd(&z_);
  }
  // Compresses n bytes (flush: Z_NO_FLUSH, or Z_FINISH at the end).
  bool Put(const char* data, size_t n, int flush) {
    if (!ok_) return false;
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    z_.avail_in = static_cast<uInt>(n);
    int rc = Z_OK;
    do {
      z_.next_out = reinterpret_cast<Bytef*>(chunk_.data());
      z_.avail_out = static_cast<uInt>(chunk_.size());
      rc = deflate(&z_, flush);
      if (rc == Z_STREAM_ERROR) return false;
      const size_t have = chunk_.size() - z_.avail_out;
      if (have > 0 && std::fwrite(chunk_.data(), 1, have, out_) != have) return false;
    } while (z_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    return true;
  }

 private:
  std::FILE* out_;
  z_stream z_{};
  std::vector<char> chunk_;
  bool ok_ = false;
};

TraceOutput::TraceOutput(std::FILE* out, bool gzip) : out_(out), buffer_(kBufferSize) {
  if (gzip) deflater_ = std::make_unique<Deflater>(out);
}

TraceOutput::~TraceOutput() = default;

void TraceOutput::Write(const char* data, size_t n) {
  bytes_in_ += n;
  while (n > 0) {
    if (used_ == buffer_.size()) Drain();
    const size_t take = std::min(n, buffer_.size() - used_);
    std::memcpy(buffer_.data() + used_, data, take);
    used_ += take;
    data += take;
    n -= take;
  }
}

void TraceOutput::Drain() {
  if (used_ == 0 || failed_) {
    used_ = 0;
    return;
  }
  const bool ok = deflater_ ? deflater_->Put(buffer_.data(), used_, Z_NO_FLUSH)
                            : std::fwrite(buffer_.data(), 1, used_, out_) == used_;
  failed_ = !ok;
  used_ = 0;
}

absl::Status TraceOutput::Finish() {
  if (!finished_) {
    finished_ = true;
    Drain();
    if (deflater_ && !failed_) failed_ = !deflater_->Put(nullptr, 0, Z_FINISH);
  }
  if (failed_) {
    return errno != 0 ? absl::ErrnoToStatus(errno, "cannot write the trace")
                      : absl::InternalError("cannot compress the trace (zlib)");
  }
  return absl::OkStatus();
}

}  // namespace cuscope::report
