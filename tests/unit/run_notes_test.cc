#include "lib/model/run_notes.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace cuscope::model {
namespace {

TEST(RunNotes, KeysAreUniqueGroupedAndDocumented) {
  std::set<std::string> keys;
  for (const RunNoteField& f : RunNoteFields()) {
    EXPECT_TRUE(keys.insert(f.key).second) << f.key;
    EXPECT_GT(std::string(f.doc).size(), 8u) << f.key;
    EXPECT_EQ(FindRunNote(f.key), &f);
  }
  EXPECT_EQ(FindRunNote("counters.statu"), nullptr);
}

TEST(RunNotes, KeyValuesRoundTrip) {
  RunNotes n;
  n.counters_status = "cuptiProfilerInitialize failed";
  n.counters_passes = 7;
  n.capture_windows = 0;  // a count of 0 is set, not absent
  n.settings = {{"metrics", "roofline"}, {"replay", "rotate"}};
  n.other["future.note"] = "kept";
  std::map<std::string, std::string> kv = NotesToKeyValues(n);
  EXPECT_EQ(kv.at("counters.status"), "cuptiProfilerInitialize failed");
  EXPECT_EQ(kv.at("counters.passes"), "7");
  EXPECT_EQ(kv.at("capture.windows"), "0");
  EXPECT_EQ(kv.at("setting.replay"), "rotate");
  EXPECT_EQ(kv.at("future.note"), "kept");
  EXPECT_EQ(kv.count("counters.chip"), 0u);  // unset notes are not stored
  EXPECT_EQ(NotesFromKeyValues(kv), n);
}

TEST(RunNotes, ACountThatIsNoIntegerIsKeptAsItWas) {
  RunNotes n = NotesFromKeyValues({{"counters.passes", "seven"}, {"world_size", "8"}});
  EXPECT_FALSE(n.counters_passes.has_value());
  EXPECT_EQ(n.other.at("counters.passes"), "seven");
  EXPECT_EQ(n.world_size, 8);
  EXPECT_EQ(NotesToKeyValues(n).at("counters.passes"), "seven");
}

TEST(RunNotes, AddNoteAppendsASecondSentence) {
  NoteText t;
  AddNote(&t, "");
  EXPECT_EQ(t, "");
  AddNote(&t, "GPU 0: busy");
  AddNote(&t, "GPU 1: busy");
  EXPECT_EQ(t, "GPU 0: busy; GPU 1: busy");
}

TEST(RunNotes, NotesOfAGroupAreItsSetNotesByName) {
  RunNotes n;
  n.counters_strategy = "rotate";
  n.counters_chip = "GH100";
  n.gpu_metrics_samples = 12;
  n.other["counters.later"] = "from a newer version";
  auto c = NotesOfGroup(n, "counters");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], (std::pair<std::string, std::string>{"chip", "GH100"}));
  EXPECT_EQ(c[1].first, "later");
  EXPECT_EQ(c[2], (std::pair<std::string, std::string>{"strategy", "rotate"}));
  EXPECT_EQ(NotesOfGroup(n, "gpu_metrics").size(), 1u);
  EXPECT_TRUE(NotesOfGroup(n, "capture").empty());
}

TEST(RunNotes, MergeReplacesWhatTheSourceSets) {
  RunNotes into;
  into.counters_status = "from the session";
  into.world_size = 4;
  into.settings = {{"trace", "all"}};
  into.other["kept"] = "1";
  RunNotes from;
  from.counters_status = "from the counters";
  from.counters_passes = 0;
  from.other["new"] = "2";
  MergeNotes(from, &into);
  EXPECT_EQ(into.counters_status, "from the counters");
  EXPECT_EQ(into.counters_passes, 0);
  EXPECT_EQ(into.world_size, 4);  // unset in `from`: left as it was
  EXPECT_EQ(into.settings.size(), 1u);
  EXPECT_EQ(into.other.size(), 2u);
}

TEST(RunNotes, EveryKeyIsInItsGroupAndCountsAreIntegers) {
  RunNotes n;
  for (const RunNoteField& f : RunNoteFields()) {
    EXPECT_FALSE(f.set(&n, "") && f.type == NoteType::kCount) << f.key;
    ASSERT_TRUE(f.set(&n, f.type == NoteType::kCount ? "-12" : "some text")) << f.key;
    EXPECT_EQ(f.get(n), f.type == NoteType::kCount ? "-12" : "some text") << f.key;
    EXPECT_EQ(f.type == NoteType::kCount, !f.set(&n, "12 ms")) << f.key;
  }
  EXPECT_EQ(NotesFromKeyValues(NotesToKeyValues(n)), n);
  EXPECT_EQ(NotesToKeyValues(n).size(), RunNoteFields().size());
  EXPECT_EQ(NotesOfGroup(n, "counters").size() + NotesOfGroup(n, "gpu_metrics").size() +
                NotesOfGroup(n, "capture").size() + NotesOfGroup(n, "activity").size() +
                NotesOfGroup(n, "source").size() + 6,
            RunNoteFields().size());  // 6 keys of no group: scopes and rank
}

TEST(RunNotes, EqualityComparesEveryField) {
  RunNotes a, b;
  EXPECT_EQ(a, b);
  b.gpu_metrics_overflow = "x";
  EXPECT_NE(a, b);
  b = a;
  b.local_rank = 0;
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace cuscope::model
