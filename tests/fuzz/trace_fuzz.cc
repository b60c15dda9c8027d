// The traces of any profile that loads: the Chrome trace must parse as JSON, and
// Perfetto's .pftrace as the protobuf `Trace` it claims to be.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "lib/analysis/kernel_counters.h"
#include "lib/report/chrome_trace.h"
#include "lib/report/perfetto_trace.h"
#include "lib/report/trace_view.h"
#include "report/proto/perfetto_trace.pb.h"
#include "tests/fuzz/fuzz_profile.h"

namespace {

std::string ReadAll(std::FILE* f) {
  std::string s;
  char buf[65536];
  std::rewind(f);
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) s.append(buf, n);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<cuscope::model::Profile> profile = cuscope::fuzz::LoadBytes(data, size);
  if (!profile) return 0;
  const std::vector<cuscope::analysis::KernelCounters> counters =
      cuscope::analysis::AnalyzeCounters(*profile);
  const cuscope::report::TraceView view(*profile, counters);

  std::FILE* json = std::tmpfile();
  if (json == nullptr) return 0;
  if (cuscope::report::WriteChromeTrace(view, json).ok()) cuscope::fuzz::CheckJson(ReadAll(json));
  std::fclose(json);

  static const std::string path =
      "/tmp/cuscope_trace_fuzz." + std::to_string(getpid()) + ".pftrace";
  if (cuscope::report::WritePerfettoTrace(view, path).ok()) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f != nullptr) {
      const std::string bytes = ReadAll(f);
      std::fclose(f);
      perfetto::protos::Trace trace;
      if (!trace.ParseFromString(bytes)) cuscope::fuzz::Fail("a .pftrace that does not parse", "");
    }
  }
  std::remove(path.c_str());
  return 0;
}
