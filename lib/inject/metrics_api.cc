// The C ABI of metric sets per chip (cuscope_c.h): what `cuscope run` checks before
// the program starts and what `cuscope metrics` lists. The command reaches the
// Profiler Host API only through these functions (it never links lib/collect).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cuscope/cuscope_c.h"
#include "lib/collect/chips.h"
#include "lib/collect/metric_catalog.h"
#include "lib/collect/visible_chip.h"
#include "lib/inject/last_error.h"
#include "lib/inject/metrics_text.h"
#include "lib/model/metrics.h"

#define CUSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

namespace cuscope::inject {
namespace {

// `text` into the caller's buffer, cut to fit; its whole length.
int CopyOut(const std::string& text, char* buf, size_t size) {
  if (buf != nullptr && size > 0) {
    size_t n = std::min(text.size(), size - 1);
    std::memcpy(buf, text.data(), n);
    buf[n] = '\0';
  }
  SetLastError("");
  return static_cast<int>(text.size());
}

int Fail(int code, const absl::Status& status) {
  SetLastError(status.message());
  return code;
}

std::vector<std::string> SplitRequest(const char* request) {
  std::vector<std::string> out;
  if (request == nullptr) return out;
  for (absl::string_view part : absl::StrSplit(request, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (!part.empty()) out.emplace_back(part);
  }
  return out;
}

std::string UnknownChip(const std::string& chip) {
  return absl::StrCat("chip \"", chip, "\" is not one the Range Profiler supports; accepted: ",
                      collect::AcceptedChipNames());
}

bool IsSet(const std::string& name) {
  const auto& sets = metrics::SetNames();
  return std::find(sets.begin(), sets.end(), name) != sets.end();
}

// One view per set of the request, and one "metrics" view of its raw names.
absl::StatusOr<std::vector<SetView>> Views(const std::string& chip,
                                           std::vector<std::string> request) {
  if (request.empty()) request = metrics::SetNames();
  absl::StatusOr<collect::MetricHost*> host = collect::HostFor(chip);
  if (!host.ok()) return host.status();
  std::vector<std::vector<std::string>> groups;
  std::vector<std::string> names, raw;
  for (const std::string& r : request) {
    if (IsSet(r)) {
      groups.push_back({r});
      names.push_back(r);
    } else {
      raw.push_back(r);
    }
  }
  if (!raw.empty()) {
    groups.push_back(raw);
    names.push_back("metrics");
  }
  std::vector<SetView> views;
  for (size_t i = 0; i < groups.size(); ++i) {
    absl::StatusOr<collect::Resolution> r = collect::ResolveFor(chip, groups[i]);
    if (!r.ok()) return r.status();
    SetView view{names[i], SetAnswers(names[i]), *std::move(r), {}, 0};
    for (const collect::ResolvedMetric& m : view.resolution.metrics) {
      view.descriptions.push_back((*host)->Describe(m.collect[0]));
    }
    auto config = (*host)->BuildConfig(view.resolution.CollectedNames());
    if (config.ok()) view.passes = config->passes;
    views.push_back(std::move(view));
  }
  return views;
}

}  // namespace
}  // namespace cuscope::inject

CUSCOPE_EXPORT int cuscope_visible_chip(char* buf, size_t size) {
  absl::StatusOr<std::string> chip = cuscope::collect::VisibleChip();
  if (chip.ok()) return cuscope::inject::CopyOut(*chip, buf, size);
  if (chip.status().code() != absl::StatusCode::kNotFound) {
    return cuscope::inject::Fail(CUSCOPE_ERROR_CUPTI, chip.status());
  }
  cuscope::inject::CopyOut("", buf, size);
  cuscope::inject::SetLastError(chip.status().message());
  return 0;
}

CUSCOPE_EXPORT int cuscope_metrics_chips(const char* format, char* buf, size_t size) {
  bool json = format != nullptr && std::strcmp(format, "json") == 0;
  return cuscope::inject::CopyOut(
      json ? cuscope::inject::ChipsJson() : cuscope::inject::ChipsText(), buf, size);
}

CUSCOPE_EXPORT int cuscope_metrics_check(const char* chip, const char* request) {
  const cuscope::collect::Chip* found = nullptr;
  if (chip != nullptr && chip[0] != '\0') {
    found = cuscope::collect::FindChip(chip);
    if (found == nullptr) {
      return cuscope::inject::Fail(CUSCOPE_ERROR_CUPTI,
                                   absl::UnavailableError(cuscope::inject::UnknownChip(chip)));
    }
  }
  absl::Status st = cuscope::collect::CheckRequest(cuscope::inject::SplitRequest(request),
                                                   found != nullptr ? found->name : "");
  if (st.ok()) {
    cuscope::inject::SetLastError("");
    return CUSCOPE_OK;
  }
  return cuscope::inject::Fail(st.code() == absl::StatusCode::kInvalidArgument
                                   ? CUSCOPE_ERROR_INVALID_SETTING
                                   : CUSCOPE_ERROR_CUPTI,
                               st);
}

CUSCOPE_EXPORT int cuscope_metrics_resolve(const char* chip, const char* request,
                                           const char* format, char* buf, size_t size) {
  const std::string name = chip != nullptr ? chip : "";
  const cuscope::collect::Chip* found = cuscope::collect::FindChip(name);
  if (found == nullptr) {
    return cuscope::inject::Fail(CUSCOPE_ERROR_INVALID_SETTING,
                                 absl::InvalidArgumentError(cuscope::inject::UnknownChip(name)));
  }
  std::vector<std::string> request_names = cuscope::inject::SplitRequest(request);
  if (int code = cuscope_metrics_check(found->name, request); code != CUSCOPE_OK) return code;
  auto views = cuscope::inject::Views(found->name, request_names);
  if (!views.ok()) return cuscope::inject::Fail(CUSCOPE_ERROR_CUPTI, views.status());
  bool json = format != nullptr && std::strcmp(format, "json") == 0;
  return cuscope::inject::CopyOut(
      json ? cuscope::inject::MetricsJson(*found, *views)
           : cuscope::inject::MetricsText(*found, *views, !request_names.empty()),
      buf, size);
}
