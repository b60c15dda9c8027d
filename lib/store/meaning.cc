#include "lib/store/meaning.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/model/checked.h"

namespace cuscope::store {
namespace {

constexpr uint64_t kMaxTime = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

// A column's accepted range. `table` nullptr: the column of that name in any table.
struct Rule {
  const char* table;
  const char* column;
  uint64_t max;  // the minimum is 0 (unknown, or none) for every ruled column
};

// Generous bounds: several times what any GPU has (an H200 has 132 SMs, 1024
// threads per block, 64 warps per SM, 228 KB of shared memory per SM, 141 GB,
// 4.8 TB/s, 1.98 GHz), small enough that no product of them overflows.
constexpr Rule kRules[] = {
    {"devices", "id", kMaxDeviceId},
    {"own_time", "device_id", model::kNoDevice},  // a device's id, or none
    {nullptr, "device_id", kMaxDeviceId},
    {nullptr, "src_device_id", kMaxDeviceId},
    {nullptr, "dst_device_id", kMaxDeviceId},
    {"devices", "compute_major", 99},
    {"devices", "compute_minor", 99},
    {"devices", "sm_count", 16384},
    {"devices", "global_memory_bytes", uint64_t{1} << 50},
    {"devices", "global_memory_bandwidth_kbps", uint64_t{1} << 40},
    {"devices", "l2_cache_bytes", uint64_t{1} << 36},
    {"devices", "max_threads_per_block", 8192},
    {"devices", "max_warps_per_sm", 1024},
    {"devices", "max_blocks_per_sm", 1024},
    {"devices", "max_registers_per_sm", uint64_t{1} << 22},
    {"devices", "max_registers_per_block", uint64_t{1} << 22},
    {"devices", "max_shared_memory_per_sm", uint64_t{1} << 30},
    {"devices", "max_shared_memory_per_block", uint64_t{1} << 30},
    {"devices", "warp_size", 1024},  // and a power of two (or 0)
    {"devices", "core_clock_khz", 100'000'000},
    {nullptr, "bytes", uint64_t{1} << 50},
    {nullptr, "grid_x", 0x7fffffff},
    {nullptr, "grid_y", 65535},
    {nullptr, "grid_z", 65535},
    {nullptr, "block_x", 1024},
    {nullptr, "block_y", 1024},
    {nullptr, "block_z", 1024},
    {nullptr, "registers_per_thread", 1024},
    {nullptr, "static_shared_bytes", uint64_t{1} << 30},
    {nullptr, "dynamic_shared_bytes", uint64_t{1} << 30},
    {nullptr, "passes", 4096},
};

const Rule* FindRule(const char* table, const char* column) {
  for (const Rule& r : kRules) {
    if (std::strcmp(r.column, column) == 0 &&
        (r.table == nullptr || std::strcmp(r.table, table) == 0)) {
      return &r;
    }
  }
  return nullptr;
}

bool IsTime(const char* column) {
  return std::strcmp(column, "start_ns") == 0 || std::strcmp(column, "end_ns") == 0;
}

}  // namespace

RunWindow::RunWindow(const model::RunInfo& run) {
  // CheckRunInfo has made sure both fit an int64 and end_ns is 0 or >= start_ns.
  if (run.start_ns != 0) lo = run.start_ns > kTimeSlackNs ? run.start_ns - kTimeSlackNs : 0;
  if (run.end_ns != 0) hi = std::min(model::SaturatingAdd(run.end_ns, kTimeSlackNs), kMaxTime);
}

std::string CheckRunInfo(const model::RunInfo& run) {
  auto bad = [](const char* key, auto v, const std::string& expected) {
    return absl::StrFormat("meta key '%s' holds '%d', expected %s", key, v, expected);
  };
  const std::string kTime = absl::StrCat("a time in [0, ", kMaxTime, "]");
  if (run.start_ns > kMaxTime) return bad("start_ns", run.start_ns, kTime);
  if (run.end_ns > kMaxTime) return bad("end_ns", run.end_ns, kTime);
  if (run.end_ns != 0 && run.end_ns < run.start_ns) {
    return bad("end_ns", run.end_ns,
               absl::StrCat("0 (running) or at least start_ns (", run.start_ns, ")"));
  }
  if (run.start_unix_ns < 0) return bad("start_unix_ns", run.start_unix_ns, "a time >= 0");
  if (run.end_unix_ns != 0 && run.end_unix_ns < run.start_unix_ns) {
    return bad("end_unix_ns", run.end_unix_ns,
               absl::StrCat("0 (running) or at least start_unix_ns (", run.start_unix_ns, ")"));
  }
  return "";
}

MeaningChecker::ColumnRule MeaningChecker::Resolve(const char* column) const {
  ColumnRule rule;
  rule.column = column;
  if (IsTime(column)) {
    rule.kind = column[0] == 's' ? ColumnRule::kStart : ColumnRule::kEnd;
  } else if (const Rule* r = FindRule(table_, column)) {
    rule.kind = std::strcmp(column, "warp_size") == 0 ? ColumnRule::kWarpSize : ColumnRule::kRange;
    rule.max = r->max;
  }
  return rule;
}

const MeaningChecker::ColumnRule& MeaningChecker::Add(const char* column) {
  if (index_ == rules_.size()) {
    rules_.push_back(Resolve(column));
  } else {
    rules_[index_] = Resolve(column);
  }
  return rules_[index_++];
}

// The range checks of Unsigned: kRange (called when the value is above its range),
// kWarpSize.
void MeaningChecker::Other(const ColumnRule& rule, uint64_t v) {
  switch (rule.kind) {
    case ColumnRule::kNone:
    case ColumnRule::kStart:
    case ColumnRule::kEnd:
      return;
    case ColumnRule::kRange:
      if (v > rule.max) {
        Fail(rule.column, absl::StrCat(v), absl::StrCat("an integer in [0, ", rule.max, "]"));
      }
      return;
    case ColumnRule::kWarpSize:
      if (v > rule.max || (v & (v - 1)) != 0) {
        Fail(rule.column, absl::StrCat(v),
             absl::StrCat("0 (unknown) or a power of two up to ", rule.max));
      }
      return;
  }
}

void MeaningChecker::Negative(const ColumnRule& rule, int64_t v) {
  if (rule.kind == ColumnRule::kRange || rule.kind == ColumnRule::kWarpSize) {
    Fail(rule.column, absl::StrCat(v), absl::StrCat("an integer in [0, ", rule.max, "]"));
  }
}

// Each time 0 (not recorded: a kernel measured by kernel replay has none, a record
// cut short has no end; the analysis leaves such records out) or inside the run's
// window; an end that is set is not before a start that is set.
void MeaningChecker::Time(const ColumnRule& rule, uint64_t v) {
  const bool is_start = rule.kind == ColumnRule::kStart;
  const char* column = rule.column;
  if (is_start) start_ = v;
  if (v == 0) return;
  if (v < window_.lo || v > window_.hi) {
    const std::string found =
        v > kMaxTime ? absl::StrCat(static_cast<int64_t>(v)) : absl::StrCat(v);
    return Fail(column, found,
                absl::StrCat("0 or a time inside the run's window [", window_.lo, ", ", window_.hi,
                             "] (start_ns..end_ns of meta, give or take 10 min)"));
  }
  if (!is_start && start_ != 0 && v < start_) {
    Fail(column, absl::StrCat(v), absl::StrCat("0 or at least start_ns (", start_, ")"));
  }
}

void MeaningChecker::Real(const char* column, double v, ColumnDoc) {
  Next(column);
  if (!AcceptedMetricValue(v)) {  // NaN (NULL) is: not measured
    Fail(column, absl::StrFormat("%g", v),
         absl::StrFormat("NULL or a finite number in [0, %g]", kMaxCounterValue));
  }
}

void MeaningChecker::Blob(const char* column, const std::vector<double>& values, ColumnDoc) {
  Next(column);
  for (size_t i = 0; i < values.size(); ++i) {
    if (!AcceptedMetricValue(values[i])) {
      return Fail(
          column, absl::StrFormat("%g at position %d", values[i], i),
          absl::StrFormat("NaN or a finite number in [0, %g] at every position", kMaxCounterValue));
    }
  }
}

void MeaningChecker::Fail(const char* column, const std::string& found,
                          const std::string& expected) {
  if (!error_.empty()) return;  // the first problem of the row
  error_ = absl::StrFormat("%s row %d: column %s holds %s, expected %s", table_, row_, column,
                           found, expected);
}

}  // namespace cuscope::store
