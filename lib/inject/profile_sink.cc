#include "lib/inject/profile_sink.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/inject/gpu_metrics.h"
#include "lib/inject/warn.h"

namespace cuscope::inject {

void ProfileSink::Open(std::unique_ptr<store::ProfileWriter> writer, const std::string& path) {
  absl::MutexLock lock(&mu_);
  writer_ = std::move(writer);
  path_ = path;
  write_failed_ = false;
  records_written_ = 0;
}

void ProfileSink::Append(const model::Profile& batch, bool devices_changed) {
  absl::MutexLock lock(&mu_);
  if (writer_ == nullptr || write_failed_) return;
  absl::Status st = absl::OkStatus();
  if (devices_changed) st = writer_->WriteDevices(batch.devices);
  if (st.ok()) st = AppendBatch(*writer_, batch, Warn);
  if (!st.ok()) {
    write_failed_ = true;
    Warn(absl::StrCat("writing the profile failed, later records are lost: ", st.message()));
    return;
  }
  records_written_ += batch.work_record_count();
}

void ProfileSink::WriteRunInfo(const model::RunInfo& run) {
  absl::MutexLock lock(&mu_);
  if (writer_ != nullptr && !write_failed_) writer_->WriteRunInfo(run).IgnoreError();
}

void ProfileSink::Abandon(const model::RunInfo& run) {
  absl::MutexLock lock(&mu_);
  if (writer_ == nullptr) return;
  writer_->WriteRunInfo(run).IgnoreError();
  writer_->Close().IgnoreError();
  writer_.reset();
}

bool ProfileSink::Finish(const model::RunInfo& run, const Ending& ending) {
  absl::MutexLock lock(&mu_);
  bool failed = write_failed_;
  if (writer_ == nullptr) return failed;
  absl::Status st = writer_->WriteRunInfo(run);
  // Measured launches get their times before the file is closed and read back (only
  // counters leave launches without times: a traced run skips the query). A failure
  // there is said and the profile finished: the reader places them again.
  if (st.ok() && ending.place_measured_kernels) {
    if (absl::Status placed = writer_->PlaceMeasuredKernels(); !placed.ok()) {
      Warn(absl::StrCat("measured kernels left without times: ", placed.message()));
    }
  }
  if (st.ok()) st = writer_->Close();
  if (!st.ok() && !failed) {
    Warn(absl::StrCat("finishing the profile failed: ", st.message()));
    failed = true;
  }
  writer_.reset();
  return failed;
}

bool ProfileSink::write_failed() {
  absl::MutexLock lock(&mu_);
  return write_failed_;
}

uint64_t ProfileSink::records_written() {
  absl::MutexLock lock(&mu_);
  return records_written_;
}

}  // namespace cuscope::inject
