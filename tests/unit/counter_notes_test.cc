// The counter session's notes (lib/collect/counter_notes.h): typed fields of
// model::RunNotes, the first text of a note kept, the verbose log capped, the
// verbose-only configuration left out of the run info.
#include "lib/collect/counter_notes.h"

#include <string>

#include "gtest/gtest.h"

namespace cuscope::collect {
namespace {

using model::RunNotes;

TEST(CounterNotes, TheFirstTextOfANoteIsKeptAndSetReplaces) {
  CounterNotes notes;
  notes.Note(&RunNotes::counters_status, "cuptiProfilerInitialize failed");
  notes.Note(&RunNotes::counters_status, "a later failure");
  EXPECT_EQ(notes.Get(&RunNotes::counters_status), "cuptiProfilerInitialize failed");
  notes.Set(&RunNotes::counters_strategy, "rotate");
  notes.Set(&RunNotes::counters_strategy, "kernel replay");
  EXPECT_EQ(notes.Get(&RunNotes::counters_strategy), "kernel replay");
  notes.Set(&RunNotes::counters_passes, int64_t{3});
  const RunNotes run = notes.ForRunInfo();
  EXPECT_EQ(run.counters_passes, 3);
  EXPECT_EQ(run.counters_status, "cuptiProfilerInitialize failed");
  EXPECT_FALSE(run.counters_launches_measured.has_value());
}

TEST(CounterNotes, TheConfigurationIsVerboseOnly) {
  CounterNotes notes;
  notes.Note(&RunNotes::counters_config, "metrics: ...");
  EXPECT_EQ(notes.Get(&RunNotes::counters_config), "metrics: ...");
  EXPECT_EQ(notes.ForRunInfo().counters_config, "");
}

TEST(CounterNotes, TheLogIsOneNoteCappedForEveryCaller) {
  CounterNotes notes;
  EXPECT_TRUE(notes.Log(3, "decode: a"));
  EXPECT_TRUE(notes.Log(3, "window 1: b"));
  EXPECT_TRUE(notes.Log(40, "decode: c"));
  EXPECT_FALSE(notes.Log(3, "window 2: d"));  // the count is shared: 3 logged
  EXPECT_TRUE(notes.Log(40, "decode: e"));
  EXPECT_EQ(notes.ForRunInfo().counters_log, "decode: a; window 1: b; decode: c; decode: e");
  EXPECT_EQ(model::NotesToKeyValues(notes.ForRunInfo()).at("counters.log"),
            "decode: a; window 1: b; decode: c; decode: e");
}

}  // namespace
}  // namespace cuscope::collect
