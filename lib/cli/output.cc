#include "lib/cli/output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "lib/cli/flags.h"

namespace cuscope::cli {

bool SameFile(const std::string& input, const std::string& output) {
  if (output.empty() || output == "-") return false;
  struct stat in, out;
  if (stat(input.c_str(), &in) != 0 || stat(output.c_str(), &out) != 0) return false;
  return in.st_dev == out.st_dev && in.st_ino == out.st_ino;
}

int RefuseToOverwrite(const std::string& command, const std::string& flag, const std::string& input,
                      const std::string& output) {
  if (!SameFile(input, output)) return 0;
  std::cerr << "cuscope: " << command << ": --" << flag << "=" << output << " is the profile "
            << input << "; refusing to write over it\n";
  return kUsageError;
}

int CheckProfilePath(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (dir.find("%p") != std::string::npos) return 0;
  struct stat st;
  std::string why;
  if (stat(dir.c_str(), &st) != 0) {
    why = absl::StrCat(dir, ": ", std::strerror(errno));
  } else if (!S_ISDIR(st.st_mode)) {
    why = absl::StrCat(dir, " is not a directory");
  } else if (access(dir.c_str(), W_OK | X_OK) != 0) {
    why = absl::StrCat(dir, ": ", std::strerror(errno));
  } else if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    why = "it is a directory";
  }
  if (why.empty()) return 0;
  std::cerr << "cuscope: run: cannot write the profile " << path << ": " << why << "\n";
  return kUsageError;
}

bool Output::Open(const std::string& command, const std::string& path) {
  command_ = command;
  path_ = path == "-" ? "" : path;
  if (path_.empty()) {
    out_ = &std::cout;
  } else {
    file_.open(path_);
    if (!file_) {
      std::cerr << "cuscope: " << command_ << ": cannot write " << path_ << ": "
                << std::strerror(errno) << "\n";
      return false;
    }
    out_ = &file_;
  }
  errno = 0;  // from here, what a failed write leaves
  return true;
}

int Output::Finish() {
  out_->flush();
  if (*out_) return 0;
  std::cerr << "cuscope: " << command_ << ": writing " << (path_.empty() ? "stdout" : path_)
            << " failed";
  if (errno != 0) std::cerr << ": " << std::strerror(errno);
  std::cerr << "\n";
  return 1;
}

}  // namespace cuscope::cli
