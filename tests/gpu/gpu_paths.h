// Where the GPU test executables find the build and the sources.
#ifndef CUSCOPE_TESTS_GPU_GPU_PATHS_H_
#define CUSCOPE_TESTS_GPU_GPU_PATHS_H_

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace cuscope::gpu_paths {

// CUSCOPE_BUILD_DIR, else the build this executable lives in (<build>/tests/gpu/<test>).
inline std::string BuildDir() {
  if (const char* d = std::getenv("CUSCOPE_BUILD_DIR")) return d;
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  std::string p(buf, n > 0 ? n : 0);
  for (int i = 0; i < 3; ++i) p = p.substr(0, p.rfind('/'));
  return p;
}

// CUSCOPE_SOURCE_DIR, else the build directory's parent.
inline std::string SourceDir() {
  if (const char* d = std::getenv("CUSCOPE_SOURCE_DIR")) return d;
  std::string b = BuildDir();
  return b.substr(0, b.rfind('/'));
}

inline bool Exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

}  // namespace cuscope::gpu_paths

#endif  // CUSCOPE_TESTS_GPU_GPU_PATHS_H_
