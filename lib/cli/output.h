// Where `cuscope report` and `cuscope diff` write: stdout, or a file.
#ifndef CUSCOPE_LIB_CLI_OUTPUT_H_
#define CUSCOPE_LIB_CLI_OUTPUT_H_

#include <fstream>
#include <ostream>
#include <string>

namespace cuscope::cli {

class Output {
 public:
  // Stdout for "" or "-", else the file at `path` (replaced). False, after one
  // error line naming `command` and the path, if it cannot be opened.
  bool Open(const std::string& command, const std::string& path);

  std::ostream& stream() { return *out_; }

  // Flushes: 0 when every byte was written, else 1 after one error line naming
  // `command` and where the writing failed.
  int Finish();

 private:
  std::string command_;
  std::string path_;  // "" for stdout
  std::ofstream file_;
  std::ostream* out_ = nullptr;
};

}  // namespace cuscope::cli

#endif  // CUSCOPE_LIB_CLI_OUTPUT_H_
