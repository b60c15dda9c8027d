// Where `cuscope report` and `cuscope diff` write: stdout, or a file.
#ifndef CUSCOPE_LIB_CLI_OUTPUT_H_
#define CUSCOPE_LIB_CLI_OUTPUT_H_

#include <fstream>
#include <ostream>
#include <string>

namespace cuscope::cli {

// Whether `output` is the file `input` (same device and inode: also through another
// path or a symbolic link). "", "-" (stdout) and a file that does not exist are not.
bool SameFile(const std::string& input, const std::string& output);

// Refuses to write over the profile being read: when `output` (given with --`flag`)
// is `input`, one line naming them on stderr and kUsageError (2); else 0.
int RefuseToOverwrite(const std::string& command, const std::string& flag, const std::string& input,
                      const std::string& output);

// Before `cuscope run` starts the program: whether the profile `path` (%p for the
// pid) can be created, i.e. its folder exists and is writable and the path is not a
// folder. 0 if so (or if %p is in the folder, which exists only later), else one
// line naming the path and why on stderr, and kUsageError (2).
int CheckProfilePath(const std::string& path);

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
