#include "lib/collect/counter_sets.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/held_timer.h"
#include "lib/collect/stderr.h"

namespace cuscope::collect {

void CounterSets::DecodeSet(ProfiledContext& c, ContextPlan& plan) {
  Planner& planner = run_.planner();
  std::vector<std::vector<Launch>> windows = std::move(plan.windows);
  plan.windows.clear();
  std::optional<size_t> ranges = DecodeRanges(c, windows);
  if (!ranges) {
    if (!windows.empty()) planner.SetDropped(DropReason::kNotDecoded, windows[0].size());
    run_.Reinit(c);  // for the next set
    return;
  }
  std::vector<RangeMatch> matches = planner.Match(windows, *ranges);
  for (size_t i = 0; i < matches.size(); ++i) {
    if (!matches[i].complete) continue;
    if (EvaluateSet(c, i, matches[i])) {
      planner.SetComplete(matches[i].sig);
    } else {
      planner.SetDropped(DropReason::kEvaluate);
    }
  }
  run_.Reinit(c);
  run_.Progress();
}

std::optional<size_t> CounterSets::DecodeRanges(ProfiledContext& c,
                                                const std::vector<std::vector<Launch>>& windows) {
  const size_t launched = windows.empty() ? 0 : windows.front().size();
  RangeProfiler::DecodeResult decode;
  {
    Phase timed(HeldPhase::kRead, &run_.stats().decode_ns);
    decode = c.profiler.Decode();
  }
  if (decode.result != CUPTI_SUCCESS) {
    run_.notes().Note(&model::RunNotes::counters_decode,
                      ExplainCupti("cuptiRangeProfilerDecodeData", decode.result));
    c.image.Invalidate();
    return std::nullopt;  // re-initialized once, before the next set
  }
  const size_t total = c.profiler.DecodedRanges();
  // Kernel replay and region counters: one set per image, re-initialized after it
  // (DecodeSet), so CUPTI's count is the set's. Rotate and the sweep: sets share the image.
  const std::optional<size_t> decoded =
      !run_.planner().rotate() || run_.planner().region_mode()
          ? std::optional<size_t>(total)
          : SharedImageRanges(c, windows, decode.ranges_dropped, total);
  if (decoded && *decoded < launched) {
    run_.notes().Set(
        &model::RunNotes::counters_ranges_short,
        absl::StrFormat("a set decoded %d ranges for %d launches", *decoded, launched));
  }
  return decoded;
}

std::optional<size_t> CounterSets::SharedImageRanges(
    ProfiledContext& c, const std::vector<std::vector<Launch>>& windows, size_t dropped,
    size_t total) {
  const size_t launched = windows.empty() ? 0 : windows.front().size();
  const size_t last_pass = windows.empty() ? 0 : windows.back().size();
  const size_t held = c.image.total(), at = c.image.next();
  // More ranges than the image was prepared for: a launch from another thread came
  // between a launch's enter and exit and joined the full window. That explains the
  // drop; sizing stays.
  const bool overflowed = at + launched > c.image.capacity();
  CounterNotes& notes = run_.notes();
  if (dropped > 0 && run_.options().counters.size_images && !c.sizing_off && !overflowed) {
    // The image sized to the set did not hold it (a Range Profiler object decodes at
    // most about twice the ranges of its first image: image_ranges.h): the window
    // limit's size from now on.
    c.sizing_off = true;
    notes.Note(&model::RunNotes::counters_image_sizing,
               absl::StrFormat("an image of %d ranges dropped %d of a set's: images of %d ranges "
                               "from now on",
                               c.image.capacity(), dropped, run_.planner().window_limit()));
  }
  const std::optional<size_t> decoded = c.image.Decoded(total, launched, last_pass, dropped);
  auto sizes = [&windows] {
    std::string out;
    for (const auto& w : windows) absl::StrAppend(&out, w.size(), " ");
    return out;
  };
  if (run_.options().verbose) {
    notes.Log(40, absl::StrFormat(
                      "decode: ranges from %d, image %d -> %d ranges (%d dropped), windows of %s",
                      at, held, total, dropped, sizes()));
  }
  if (dropped > 0) {
    // With sets sharing the image, which ranges were dropped is not known: none is read.
    notes.Note(
        &model::RunNotes::counters_image_full,
        absl::StrFormat("the counter image filled up: %d ranges dropped, the set's ranges not "
                        "read (set from range %d of %d, image %d -> %d ranges; windows of %s)",
                        dropped, at, c.image.capacity(), held, total, sizes()));
  } else if (!decoded) {
    // Not where the placement put them: the image is re-initialized rather than a range
    // of another launch read as this set's.
    notes.Note(
        &model::RunNotes::counters_image_placement,
        absl::StrFormat("a set's ranges were not where expected (from range %d, image %d -> %d "
                        "ranges; windows of %s): its ranges are dropped",
                        at, held, total, sizes()));
  }
  return decoded;
}

// Range `range` matched in every pass: its values, if they evaluate, are a sample.
bool CounterSets::EvaluateSet(ProfiledContext& c, size_t range, RangeMatch& match) {
  PendingSet set;
  set.correlation_ids = std::move(match.correlation_ids);
  absl::Status st;
  {
    Phase timed(HeldPhase::kRead, &run_.stats().evaluate_ns);
    st = run_.metrics().host().Evaluate(
        absl::MakeConstSpan(c.profiler.counter_data().data(), c.profiler.counter_data().size()),
        c.image.first() + range, run_.metrics().names(), &set.values);
  }
  bool finite = st.ok();
  for (double v : set.values) finite = finite && std::isfinite(v);
  if (!finite) {
    if (!st.ok()) run_.notes().Note(&model::RunNotes::counters_evaluate, std::string(st.message()));
    return false;
  }
  set.device_id = c.device_id;
  set.sig = match.sig;
  const Planner& planner = run_.planner();
  set.strategy = planner.region_mode() ? model::CounterStrategy::kUserRange
                 : planner.sweep()     ? model::CounterStrategy::kSweep
                 : planner.rotate()    ? model::CounterStrategy::kRotate
                                       : model::CounterStrategy::kKernelReplay;
  set.passes = static_cast<uint32_t>(run_.metrics().config().passes);
  if (run_.options().verbose) {
    std::string line =
        absl::StrFormat("cuscope: counters: %s <<<(%d,%d,%d),(%d,%d,%d)>>>",
                        set.sig.name.substr(0, 40), set.sig.grid.x, set.sig.grid.y, set.sig.grid.z,
                        set.sig.block.x, set.sig.block.y, set.sig.block.z);
    const std::vector<std::string>& names = run_.metrics().names();
    for (size_t k = 0; k < names.size() && k < set.values.size(); ++k) {
      absl::StrAppend(&line, " ", names[k], "=", set.values[k]);
    }
    WriteStderr(line + "\n");
  }
  const std::optional<Resolution>& resolution = run_.metrics().resolution();
  if (resolution) set.values = resolution->Fold(set.values);  // as requested, summed
  const bool first_on_device = run_.FirstOnDevice(c.device_id);
  run_.outbox().AddSet(std::move(set), first_on_device);
  return true;
}

}  // namespace cuscope::collect
