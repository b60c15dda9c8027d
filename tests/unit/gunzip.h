// A gzip-compressed file of tests/data read whole (the recorded references that are
// shipped compressed to keep test data small).
#ifndef CUSCOPE_TESTS_UNIT_GUNZIP_H_
#define CUSCOPE_TESTS_UNIT_GUNZIP_H_

#include <zlib.h>

#include <fstream>
#include <string>

namespace cuscope::testing {

// The file's bytes, uncompressed; "" when it cannot be read.
inline std::string Gunzip(const std::string& path) {
  std::string out;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) out.append(buf, n);
  gzclose(f);
  return out;
}

// Uncompresses `gz` to `to` and returns `to` ("" when `gz` could not be read).
inline std::string GunzipTo(const std::string& gz, const std::string& to) {
  const std::string bytes = Gunzip(gz);
  if (bytes.empty()) return "";
  std::ofstream(to, std::ios::binary | std::ios::trunc) << bytes;
  return to;
}

}  // namespace cuscope::testing

#endif  // CUSCOPE_TESTS_UNIT_GUNZIP_H_
