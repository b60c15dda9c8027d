// Peak memory of a traced run (no counters) on the fake CUPTI (tests/fake_cupti, linked
// instead of libcupti): the process's one session started as the injection starts it,
// N launches each made as one cudaLaunchKernel API record and its kernel record,
// handed to the session's tracer in CUPTI buffers by the fake's thread, converted and
// written to the profile as they come; then the session stopped as at the program's
// end (the run's end, the findings and the text report, sent to /dev/null).
//
// The run's end runs as under `cuscope run`: in a process of its own, the `cuscope`
// command beside this benchmark (build/bin/cuscope, named by CUSCOPE_COMMAND);
// end=inline: in this process, as when no command is found (lib/inject/end_process.h).
//
// The peak resident set is read twice from /proc/self/status (VmHWM, reset between the
// phases through /proc/self/clear_refs): while the launches are recorded, and while the
// run ends; getrusage's ru_maxrss is the whole process's, and RUSAGE_CHILDREN's the
// end process's.
//
//   ./build/bench/trace_rss 2000000              # one line: the phases' peaks
//   ./build/bench/trace_rss 2000000 end=inline   # the end in this process
//   ./build/bench/trace_rss 2000000 report=none  # the end without the report
//   ./build/bench/trace_rss 2000000 phases=1     # and then the end's parts, one by one
//
// Each `wait_every` launches (default 16384, about one 8 MB buffer of the fake's
// 432-byte slots) the producer waits until the fake has handed every full buffer
// over, as a program whose records are written as fast as they come: what is left in
// memory is what the session keeps, not a backlog of buffers. wait_every=0: never.
// flush_every=K: the fake hands full buffers over only when flushed (its thread held
// back), and the session's background thread does not flush (flush period 0): one
// flush (cuscope_flush) each K launches, so K launches' records wait in buffers
// between flushes, as when CUPTI hands buffers back only at the periodic flush.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "lib/analysis/advise.h"
#include "lib/inject/session.h"
#include "lib/inject/stop_reason.h"
#include "lib/report/report.h"
#include "lib/store/reader.h"
#include "tests/fake_cupti/fake_cupti.h"

namespace {

// A field of /proc/self/status, in MB (VmRSS, VmHWM).
double StatusMb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') {
      return std::strtod(line.c_str() + n + 1, nullptr) / 1024.0;
    }
  }
  return -1;
}

// Resets VmHWM to the current resident set.
void ResetPeak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
}

double MaxRssMb(int who) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// build/bin/cuscope, beside this benchmark's folder; "" if it is not there.
std::string CommandBesideThis() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  std::string path(buf, n);
  path = path.substr(0, path.rfind('/')) + "/../bin/cuscope";
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

// The run's end again, part by part, on the profile the session wrote: the peak of
// each part above the resident set before it, the earlier parts' results held.
void EndInParts(const std::string& path) {
  double before = StatusMb("VmRSS");
  const double start = before;
  double peak = 0;
  ResetPeak();
  absl::StatusOr<cuscope::model::Profile> profile = cuscope::store::LoadProfile(path);
  if (!profile.ok()) return;
  std::printf("  load: +%.1f MB peak, +%.1f MB held\n", StatusMb("VmHWM") - before,
              StatusMb("VmRSS") - before);
  peak = std::max(peak, StatusMb("VmHWM"));
  before = StatusMb("VmRSS");
  ResetPeak();
  profile->findings = cuscope::analysis::Advise(*profile, {});
  std::printf("  findings: +%.1f MB peak\n", StatusMb("VmHWM") - before);
  peak = std::max(peak, StatusMb("VmHWM"));
  before = StatusMb("VmRSS");
  ResetPeak();
  {
    cuscope::report::ReportData data = cuscope::report::BuildReport(*profile, {});
    std::printf("  BuildReport: +%.1f MB peak, +%.1f MB held\n", StatusMb("VmHWM") - before,
                StatusMb("VmRSS") - before);
    peak = std::max(peak, StatusMb("VmHWM"));
    before = StatusMb("VmRSS");
    ResetPeak();
    std::ostringstream text;
    cuscope::report::WriteText(data, cuscope::report::ReportOptions(), text);
    std::printf("  WriteText: +%.1f MB peak\n", StatusMb("VmHWM") - before);
    peak = std::max(peak, StatusMb("VmHWM"));
  }
  std::printf("  the parts together: %.1f MB peak, from %.1f MB\n", peak, start);
}

}  // namespace

int main(int argc, char** argv) {
  using cuscope::inject::StopReason;
  using cuscope::inject::TheSession;
  const uint64_t launches = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
  std::map<std::string, std::string> env = {
      {"CUSCOPE_OUTPUT", "/tmp/cuscope-trace-rss-" + std::to_string(getpid()) + ".sqlite"},
      {"CUSCOPE_METRICS", "none"},
      {"CUSCOPE_REPORT", "text"},
  };
  uint64_t wait_every = 16384;
  uint64_t flush_every = 0;
  bool phases = false;
  std::string end = "process";
  env["CUSCOPE_COMMAND"] = CommandBesideThis();
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "end=inline") {
      env.erase("CUSCOPE_COMMAND");
      end = "inline";
    }
    if (arg.rfind("report=", 0) == 0) env["CUSCOPE_REPORT"] = arg.substr(7);
    if (arg.rfind("advise=", 0) == 0) env["CUSCOPE_ADVISE"] = arg.substr(7);
    if (arg == "phases=1") phases = true;
    if (arg.rfind("wait_every=", 0) == 0) wait_every = std::strtoull(arg.c_str() + 11, nullptr, 10);
    if (arg.rfind("flush_every=", 0) == 0) {
      flush_every = std::strtoull(arg.c_str() + 12, nullptr, 10);
      wait_every = 0;
      env["CUSCOPE_FLUSH_PERIOD_MS"] = "0";
      fake_cupti::PauseWorker(true);
    }
  }
  if (end == "process" && env["CUSCOPE_COMMAND"].empty()) {
    std::fprintf(stderr, "trace_rss: no build/bin/cuscope beside this benchmark (end=inline?)\n");
    return 1;
  }
  const std::string path = env["CUSCOPE_OUTPUT"];
  // The session's lines and the report go to /dev/null; the results to stdout.
  const int saved_stderr = dup(STDERR_FILENO);
  const int null_fd = open("/dev/null", O_WRONLY);
  dup2(null_fd, STDERR_FILENO);

  const double base_mb = StatusMb("VmRSS");
  absl::Status st = TheSession().Start([&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
  if (!st.ok()) {
    dup2(saved_stderr, STDERR_FILENO);
    std::fprintf(stderr, "trace_rss: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  ResetPeak();
  for (uint64_t i = 1; i <= launches; ++i) {
    const uint32_t correlation = static_cast<uint32_t>(i);
    fake_cupti::Emit(fake_cupti::Kind::kRuntimeApi, correlation);
    fake_cupti::Emit(fake_cupti::Kind::kKernel, correlation);
    if (wait_every != 0 && i % wait_every == 0) fake_cupti::WaitIdle();
    if (flush_every != 0 && i % flush_every == 0) TheSession().Flush().IgnoreError();
  }
  if (flush_every != 0) TheSession().Flush().IgnoreError();
  fake_cupti::WaitIdle();
  const double record_peak_mb = StatusMb("VmHWM");
  const double recorded_rss_mb = StatusMb("VmRSS");
  ResetPeak();
  const auto stop_start = std::chrono::steady_clock::now();
  st = TheSession().Stop(StopReason::StopCall());
  const double stop_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - stop_start).count();
  const double end_peak_mb = StatusMb("VmHWM");
  const double after_mb = StatusMb("VmRSS");
  dup2(saved_stderr, STDERR_FILENO);
  if (!st.ok()) {
    std::fprintf(stderr, "trace_rss: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  const fake_cupti::Totals made = fake_cupti::GetTotals();
  const double peak_mb = record_peak_mb > end_peak_mb ? record_peak_mb : end_peak_mb;
  std::printf(
      "launches %llu (wait_every %llu, flush_every %llu, report %s, end %s, dropped records "
      "%llu): start %.1f MB; recording: peak %.1f MB, "
      "at its end %.1f MB; ending (%.1f s): peak %.1f MB, after %.1f MB; ru_maxrss %.1f MB; "
      "%.0f bytes a launch above the start at the peak; the end process: peak %.1f MB\n",
      static_cast<unsigned long long>(launches), static_cast<unsigned long long>(wait_every),
      static_cast<unsigned long long>(flush_every), env["CUSCOPE_REPORT"].c_str(), end.c_str(),
      static_cast<unsigned long long>(made.dropped), base_mb, record_peak_mb, recorded_rss_mb,
      stop_s, end_peak_mb, after_mb, MaxRssMb(RUSAGE_SELF),
      (peak_mb - base_mb) * 1048576.0 / static_cast<double>(launches), MaxRssMb(RUSAGE_CHILDREN));
  // The end stored its findings (none stored: it did not run, or CUSCOPE_ADVISE=0).
  absl::StatusOr<cuscope::model::Profile> stored = cuscope::store::LoadStoredFindings(path);
  struct stat file {};
  stat(path.c_str(), &file);
  std::printf(
      "  findings stored: %s; the profile: %.1f MB\n",
      stored.ok() && stored->findings ? std::to_string(stored->findings->size()).c_str() : "none",
      static_cast<double>(file.st_size) / 1048576.0);
  if (phases) EndInParts(path);
  std::remove(path.c_str());
  return 0;
}
