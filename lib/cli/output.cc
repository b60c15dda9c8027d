#include "lib/cli/output.h"

#include <cerrno>
#include <cstring>
#include <iostream>

namespace cuscope::cli {

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
