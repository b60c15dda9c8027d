// The profile file of a session's run: the writer, used from the session's thread
// (run info, the end) and from CUPTI's buffer thread (each batch of records). Opened
// by Session::Start, finished by its stop; a failed write ends writing for the run
// and is said in one line.
#ifndef CUSCOPE_LIB_INJECT_PROFILE_SINK_H_
#define CUSCOPE_LIB_INJECT_PROFILE_SINK_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "lib/model/profile.h"
#include "lib/store/writer.h"

namespace cuscope::inject {

class ProfileSink {
 public:
  // How the end of the profile is written (Finish).
  struct Ending {
    bool place_measured_kernels = false;  // counters ran: measured launches get times
  };

  // Takes `writer` (of the file at `path`) for a new run.
  void Open(std::unique_ptr<store::ProfileWriter> writer, const std::string& path);
  // From CUPTI's buffer thread: appends a batch (with the devices when they changed).
  void Append(const model::Profile& batch, bool devices_changed);
  // Rewrites the run info, unless no file is open or a write failed.
  void WriteRunInfo(const model::RunInfo& run);
  // The run info, then the file closed, with nothing more (a run that did not start).
  void Abandon(const model::RunInfo& run);
  // The end: run info, measured kernels' times, close. True when a write failed
  // (said in its one line, which names the file).
  bool Finish(const model::RunInfo& run, const Ending& ending);

  bool write_failed();
  // The program's own records written (Profile::work_record_count).
  uint64_t records_written();

 private:
  absl::Mutex mu_;  // after the tracer's batch lock (Append runs under it)
  std::string path_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<store::ProfileWriter> writer_ ABSL_GUARDED_BY(mu_);
  bool write_failed_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t records_written_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_PROFILE_SINK_H_
