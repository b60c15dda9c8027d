// SaveProfile (writer.h): a whole profile through one ProfileWriter.
#include <unistd.h>

#include <memory>
#include <string>

#include "lib/store/writer.h"

namespace cuscope::store {

absl::Status SaveProfile(const model::Profile& profile, const std::string& path) {
  absl::StatusOr<std::unique_ptr<ProfileWriter>> writer = ProfileWriter::Create(path);
  if (!writer.ok()) return writer.status();
  absl::Status status = (*writer)->WriteRunInfo(profile.run);
  if (status.ok()) status = (*writer)->WriteDevices(profile.devices);
  if (status.ok()) status = (*writer)->Append(profile);
  if (status.ok() && profile.findings) status = (*writer)->WriteFindings(*profile.findings);
  if (status.ok()) status = (*writer)->PlaceMeasuredKernels();
  if (status.ok()) status = (*writer)->Close();
  if (!status.ok()) {
    writer->reset();
    unlink(path.c_str());  // no half-written profile left behind
  }
  return status;
}

}  // namespace cuscope::store
