// The advisor's findings in the profile file: stored and read back field by field,
// absent from a profile that has none stored (readers then compute them), and read
// alone by LoadStoredFindings.
#include <string>

#include "gtest/gtest.h"
#include "lib/analysis/advise.h"
#include "lib/store/reader.h"
#include "lib/store/writer.h"
#include "tests/test_util.h"
#include "tests/unit/builders.h"

namespace cuscope {
namespace {

using testing_util::TempPath;

model::Finding Sample() {
  model::Finding f;
  f.rule = "pageable_copies";
  f.severity = model::Severity::kMedium;
  f.gain_ns = 8.5e6;
  f.gain_pct = 4.25;
  f.basis = model::GainBasis::kWall;
  f.summary = "67 MB copied";
  f.advice = "pin it";
  f.kernel = "";
  f.region = "step/load";
  f.start_ns = 2'000'000'000;
  f.end_ns = 2'010'000'000;
  f.stream_id = 7;
  f.thread_id = 100;
  f.evidence = {{"copies", 1}, {"achieved_gbps", 6.6}};
  return f;
}

model::Profile WithRun() {
  testing::ProfileBuilder b;
  b.profile().run.start_ns = 1'000'000'000;
  b.profile().run.end_ns = 3'000'000'000;
  b.Kernel("k", 1'500'000'000, 1'600'000'000);
  return b.Take();
}

TEST(FindingsStoreTest, StoredFindingsRoundTrip) {
  model::Profile p = WithRun();
  model::Finding second = Sample();
  second.rule = "shared_bank_conflicts";
  second.basis = model::GainBasis::kGpu;
  second.severity = model::Severity::kLow;
  second.kernel = "transpose(float*)";
  second.stream_id = model::kNoId;
  second.evidence.clear();
  p.findings = std::vector<model::Finding>{Sample(), second};
  const std::string path = TempPath("findings_roundtrip.sqlite");
  ASSERT_TRUE(store::SaveProfile(p, path).ok());
  absl::StatusOr<model::Profile> loaded = store::LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(loaded->findings.has_value());
  EXPECT_EQ(*loaded->findings, *p.findings);
  absl::StatusOr<model::Profile> alone = store::LoadStoredFindings(path);
  ASSERT_TRUE(alone.ok()) << alone.status();
  EXPECT_TRUE(alone->kernels.empty());  // no records read
  EXPECT_EQ(alone->run.start_ns, p.run.start_ns);
  EXPECT_EQ(*alone->findings, *p.findings);
}

TEST(FindingsStoreTest, NoneStoredIsNotNoneFound) {
  model::Profile p = WithRun();
  const std::string path = TempPath("findings_absent.sqlite");
  ASSERT_TRUE(store::SaveProfile(p, path).ok());
  absl::StatusOr<model::Profile> loaded = store::LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_FALSE(loaded->findings.has_value());
  p.findings.emplace();  // computed, and none found
  ASSERT_TRUE(store::SaveProfile(p, path).ok());
  loaded = store::LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(loaded->findings.has_value());
  EXPECT_TRUE(loaded->findings->empty());
}

TEST(FindingsStoreTest, WriteFindingsReplacesTheEarlierOnes) {
  const std::string path = TempPath("findings_replace.sqlite");
  absl::StatusOr<std::unique_ptr<store::ProfileWriter>> w = store::ProfileWriter::Create(path);
  ASSERT_TRUE(w.ok()) << w.status();
  model::Profile p = WithRun();
  ASSERT_TRUE((*w)->WriteRunInfo(p.run).ok());
  ASSERT_TRUE((*w)->WriteFindings({Sample(), Sample()}).ok());
  ASSERT_TRUE((*w)->WriteFindings({Sample()}).ok());
  ASSERT_TRUE((*w)->Close().ok());
  absl::StatusOr<model::Profile> loaded = store::LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->findings->size(), 1u);
  EXPECT_EQ(loaded->findings->front(), Sample());
}

TEST(FindingsStoreTest, RecordedProfilesWithoutFindingsLoadAndGetThemComputed) {
  absl::StatusOr<model::Profile> p =
      store::LoadProfile(CUSCOPE_TEST_DATA_DIR "/h200-timeline-demo.sqlite");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->findings.has_value());
  std::vector<model::Finding> f = analysis::FindingsOf(*p, {});
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f[0].rule, "pageable_copies");
}

}  // namespace
}  // namespace cuscope
