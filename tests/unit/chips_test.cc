// Metric sets on every chip the Range Profiler supports, through the Profiler Host
// API (no GPU needed): each chip name is accepted, every named set resolves and
// builds a configuration, and the substitutes are the expected ones.
#include "lib/collect/chips.h"

#include <algorithm>
#include <chrono>

#include "gtest/gtest.h"
#include "lib/collect/metric_catalog.h"
#include "lib/collect/metric_resolve.h"
#include "lib/model/metrics.h"

namespace cuscope::collect {
namespace {

const ResolvedMetric* Find(const Resolution& r, const std::string& name) {
  for (const ResolvedMetric& m : r.metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

bool Dropped(const Resolution& r, const std::string& name) {
  return std::any_of(r.dropped.begin(), r.dropped.end(),
                     [&](const DroppedMetric& d) { return d.name == name; });
}

std::string Stall(const std::string& reason) {
  return std::string(metrics::kStallPrefix) + reason + ".avg";
}

// `--chip gh100` and `--chip H200` were refused, though --chips lists H200 under GH100.
TEST(ChipNames, AnyCaseAndTheGpusListedAreAccepted) {
  for (const char* name : {"GH100", "gh100", "Gh100", "H200", "h100", "GH200", " h200 "}) {
    const Chip* c = FindChip(name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_STREQ(c->name, "GH100") << name;
  }
  EXPECT_STREQ(FindChip("A100")->name, "GA100");
  EXPECT_STREQ(FindChip("a10")->name, "GA102");
  EXPECT_STREQ(FindChip("rtx 4090")->name, "AD102");
  EXPECT_STREQ(FindChip("RTX4090")->name, "AD102");
  EXPECT_STREQ(FindChip("DGX Spark")->name, "GB10B");
  EXPECT_STREQ(FindChip("GB10")->name, "GB10B");
  for (const char* name : {"", " ", "GX999", "H2000", "RTX"}) {
    EXPECT_EQ(FindChip(name), nullptr) << name;
  }
  // Every name and every GPU leads to one chip only.
  for (const Chip& c : SupportedChips()) {
    EXPECT_EQ(FindChip(c.name), &c) << c.name;
    for (const std::string& gpu : ChipGpus(c)) EXPECT_EQ(FindChip(gpu), &c) << gpu;
  }
  const std::string accepted = AcceptedChipNames();
  EXPECT_EQ(accepted.rfind("TU102, TU104, ", 0), 0u) << accepted;
  EXPECT_NE(accepted.find("GH100, GB100"), std::string::npos) << accepted;
  EXPECT_NE(accepted.find("H200"), std::string::npos) << accepted;
}

class Chips : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HostFor(kDefaultChip).ok()) GTEST_SKIP() << "CUPTI host API unavailable";
  }
};

TEST_F(Chips, EveryNamedSetResolvesAndConfiguresOnEverySupportedChip) {
  for (const Chip& chip : SupportedChips()) {
    absl::StatusOr<MetricHost*> host = HostFor(chip.name);
    ASSERT_TRUE(host.ok()) << chip.name << ": " << host.status();
    for (const std::string& set : metrics::SetNames()) {
      absl::StatusOr<Resolution> r = ResolveFor(chip.name, {set});
      ASSERT_TRUE(r.ok()) << chip.name << " " << set;
      // Most of every set is measurable everywhere; what is not is named.
      EXPECT_GE(r->metrics.size(), r->dropped.size() * 2)
          << chip.name << " " << set << ": " << r->DroppedLine();
    }
    // Every set is part of "full": its configuration builds, so each set's does.
    absl::StatusOr<Resolution> full = ResolveFor(chip.name, {"full"});
    ASSERT_TRUE(full.ok());
    auto config = (*host)->BuildConfig(full->CollectedNames());
    ASSERT_TRUE(config.ok()) << chip.name << ": " << config.status();
    EXPECT_GE(config->passes, 1u);
  }
}

// CheckRequest refuses a name without "__" unseen by any chip: no chip has one.
TEST_F(Chips, EveryMetricOfEveryChipJoinsAUnitAndACounterWithTwoUnderscores) {
  for (const Chip& chip : SupportedChips()) {
    absl::StatusOr<MetricHost*> host = HostFor(chip.name);
    ASSERT_TRUE(host.ok()) << chip.name << ": " << host.status();
    ASSERT_FALSE((*host)->BaseMetrics().empty()) << chip.name;
    for (const std::string& m : (*host)->BaseMetrics()) {
      EXPECT_NE(m.find("__"), std::string::npos) << chip.name << ": " << m;
    }
  }
}

TEST_F(Chips, HopperCollectsEveryNameAsItself) {
  absl::StatusOr<Resolution> r = ResolveFor("GH100", {"full"});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->dropped.empty()) << r->DroppedLine();
  for (const ResolvedMetric& m : r->metrics) EXPECT_FALSE(m.substituted()) << m.name;
  EXPECT_EQ(r->CollectedNames(), metrics::SetMetrics("full"));
  EXPECT_EQ(r->DroppedLine(), "");
}

TEST_F(Chips, AmpereAndAdaCountFp16PerAccumulatorAndLackTheWgmmaStall) {
  const std::vector<std::string> fp16_sum = {"sm__ops_path_tensor_src_fp16_dst_fp16.sum",
                                             "sm__ops_path_tensor_src_fp16_dst_fp32.sum"};
  for (const char* chip : {"GA100", "GA102", "AD102"}) {
    absl::StatusOr<Resolution> r = ResolveFor(chip, {"full"});
    ASSERT_TRUE(r.ok());
    const ResolvedMetric* fp16 = Find(*r, metrics::kTensorFp16);
    ASSERT_NE(fp16, nullptr) << chip;
    EXPECT_EQ(fp16->collect, fp16_sum) << chip;
    EXPECT_FALSE(Find(*r, metrics::kTensorBf16)->substituted()) << chip;
    EXPECT_TRUE(Dropped(*r, Stall("gmma"))) << chip;
    EXPECT_NE(r->DroppedLine().find(std::string(chip) + " cannot measure: "), std::string::npos);
  }
  // Ampere has no FP8 tensor path; Ada has one.
  for (const char* chip : {"GA100", "GA102"}) {
    absl::StatusOr<Resolution> r = ResolveFor(chip, {"full"});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(Dropped(*r, metrics::kTensorFp8)) << chip;
    // fp8, its dense peak, gmma; and the shared pipe, which GA100 has and GA102 lacks
    const bool shared_pipe = std::string(chip) == "GA100";
    EXPECT_EQ(r->dropped.size(), shared_pipe ? 3u : 4u) << r->DroppedLine();
    EXPECT_EQ(Dropped(*r, metrics::kSharedPipePct), !shared_pipe) << chip;
  }
  absl::StatusOr<Resolution> ada = ResolveFor("AD102", {"full"});
  ASSERT_TRUE(ada.ok());
  EXPECT_FALSE(Dropped(*ada, metrics::kTensorFp8));
  EXPECT_EQ(ada->dropped.size(), 2u) << ada->DroppedLine();  // gmma, the shared pipe
}

// The tensor roofs (analysis/ceilings.cc) need the FP8 dense peak or, before Ada, the
// FP16 path's: the roofline set resolves one of them on every chip with tensor FLOPs
// (the set once lacked the FP16 peak, so Ampere had no tensor roof at all).
TEST_F(Chips, RooflineHasATensorPeakWhereverItCountsTensorFlops) {
  for (const Chip& chip : SupportedChips()) {
    absl::StatusOr<Resolution> r = ResolveFor(chip.name, {"roofline"});
    ASSERT_TRUE(r.ok()) << chip.name;
    if (Dropped(*r, metrics::kTensorFp16)) continue;  // no FP16 tensor path (Turing's?)
    const bool fp8 = !Dropped(*r, metrics::kTensorFp8DensePeak);
    const bool fp16 =
        Find(*r, metrics::kTensorFp16Peak) != nullptr && !Dropped(*r, metrics::kTensorFp16Peak);
    EXPECT_TRUE(fp8 || fp16) << chip.name << ": " << r->DroppedLine();
  }
  absl::StatusOr<Resolution> ampere = ResolveFor("GA100", {"roofline"});
  ASSERT_TRUE(ampere.ok());
  EXPECT_NE(Find(*ampere, metrics::kTensorFp16Peak), nullptr);
}

TEST_F(Chips, BlackwellCountsFp8WithFp4AndFp6AndHasNoSparsityPeaks) {
  absl::StatusOr<Resolution> r = ResolveFor("GB100", {"full"});
  ASSERT_TRUE(r.ok());
  const ResolvedMetric* fp8 = Find(*r, metrics::kTensorFp8);
  ASSERT_NE(fp8, nullptr);
  EXPECT_EQ(fp8->collect,
            (std::vector<std::string>{"sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp16.sum",
                                      "sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp32.sum"}));
  EXPECT_FALSE(Find(*r, metrics::kTensorBf16)->substituted());
  EXPECT_TRUE(Dropped(*r, metrics::kTensorFp8DensePeak));
  EXPECT_TRUE(Dropped(*r, Stall("gmma")));
  EXPECT_TRUE(Dropped(*r, Stall("imc_miss")));
  EXPECT_EQ(r->dropped.size(), 3u) << r->DroppedLine();
}

TEST_F(Chips, BlackwellDesktopCountsFp8PerAccumulatorAndTegraHasNoDram) {
  absl::StatusOr<Resolution> r = ResolveFor("GB202", {"roofline"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Find(*r, metrics::kTensorFp8)->collect,
            (std::vector<std::string>{"sm__ops_path_tensor_src_fp8_dst_fp16.sum",
                                      "sm__ops_path_tensor_src_fp8_dst_fp32.sum"}));
  EXPECT_TRUE(Dropped(*r, metrics::kTensorFp8DensePeak));
  EXPECT_TRUE(Dropped(*r, metrics::kSharedPipePct));
  EXPECT_EQ(r->dropped.size(), 2u) << r->DroppedLine();
  r = ResolveFor("GB10B", {"roofline"});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(Dropped(*r, metrics::kDramBytes)) << r->DroppedLine();
  EXPECT_TRUE(Dropped(*r, metrics::kDramPeak));
}

TEST_F(Chips, SumsOfCountsOnEveryChipThatSplitsThem) {
  // Hopper's "all fp16 tensor ops" is two counters (by accumulator) on Ampere.
  absl::StatusOr<Resolution> r = ResolveFor(
      "GA100",
      {"sm__ops_path_tensor_src_fp16.sum", "sm__ops_path_tensor_src_fp16.sum.peak_sustained"});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->metrics.size(), 2u) << r->DroppedLine();
  EXPECT_EQ(r->metrics[0].collect.size(), 2u);
  EXPECT_EQ(r->metrics[1].collect,
            std::vector<std::string>{"sm__ops_path_tensor_src_fp16_dst_fp32.sum.peak_sustained"});
  MetricHost* host = *HostFor("GA100");
  EXPECT_TRUE(host->BuildConfig(r->CollectedNames()).ok());
  // Blackwell counts fp8 with fp4 and fp6.
  r = ResolveFor("GB100", {"sm__ops_path_tensor_src_fp8.sum"});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->metrics.size(), 1u);
  EXPECT_EQ(r->metrics[0].collect[0], "sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp16.sum");
}

TEST_F(Chips, OfflineCheckAcceptsANameOfAnyChipAndRefusesATypo) {
  EXPECT_TRUE(CheckRequest({"roofline", "dram__bytes.sum"}, "").ok());
  // Blackwell only: accepted with no chip named, refused for Hopper.
  const std::string fp4 = "sm__ops_path_tensor_src_fp4_dst_fp32.sum";
  EXPECT_TRUE(CheckRequest({fp4}, "").ok());
  absl::Status st = CheckRequest({fp4}, "GH100");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("of GH100"), std::string::npos) << st;
  st = CheckRequest({"rooflin"}, "");
  ASSERT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("nearest: roofline"), std::string::npos) << st;
  EXPECT_NE(st.message().find("of any supported chip"), std::string::npos) << st;
  st = CheckRequest({"dram__byte.sum"}, "GA100");
  EXPECT_NE(st.message().find("nearest: dram__bytes"), std::string::npos) << st;
  // A valid base name with a rollup it does not have.
  EXPECT_FALSE(CheckRequest({"dram__bytes.bogus"}, "").ok());
  EXPECT_FALSE(CheckRequest({"x"}, "NOT_A_CHIP").ok());
}

// Pure: the table's rules on a made-up chip.
TEST(ResolveMetrics, SubstitutesSumsAndDrops) {
  std::vector<std::string> chip = {"A.B.sm__ops_path_tensor_src_fp16_dst_fp16",
                                   "sm__ops_path_tensor_src_fp16_dst_fp32", "dram__bytes"};
  Resolution r = ResolveMetrics("X1",
                                {"dram__bytes.sum", "sm__ops_path_tensor_src_fp16.sum",
                                 "sm__ops_path_tensor_src_fp16.avg.pct_of_peak_sustained_elapsed",
                                 "nope.sum", "smsp__warps_issue_stalled_gmma.avg"},
                                chip);
  ASSERT_EQ(r.metrics.size(), 2u);
  EXPECT_FALSE(r.metrics[0].substituted());
  EXPECT_EQ(r.metrics[1].collect.size(), 2u);
  ASSERT_EQ(r.dropped.size(), 3u);  // a sum of percentages is not the quantity
  EXPECT_EQ(r.dropped[0].name, "sm__ops_path_tensor_src_fp16.avg.pct_of_peak_sustained_elapsed");
  EXPECT_EQ(r.dropped[1].note, nullptr);
  EXPECT_NE(r.dropped[2].note, nullptr);
  EXPECT_EQ(r.CollectedNames(), (std::vector<std::string>{
                                    "dram__bytes.sum", "sm__ops_path_tensor_src_fp16_dst_fp16.sum",
                                    "sm__ops_path_tensor_src_fp16_dst_fp32.sum"}));
  EXPECT_EQ(r.Fold({5, 1, 2}), (std::vector<double>{5, 3}));
  EXPECT_EQ(r.DroppedLine().rfind("X1 cannot measure: sm__ops_path_tensor_src_fp16.avg", 0), 0u);
}

TEST(ResolveMetrics, EveryRowIsWellFormed) {
  for (const Substitute& row : Substitutes()) {
    std::string from = row.from;
    EXPECT_NE(row.note, nullptr) << from;
    for (const char* to : row.to) {
      // A full-name row substitutes full names; a base-name row base names.
      EXPECT_EQ(from.find('.') == std::string::npos, std::string(to).find('.') == std::string::npos)
          << from << " -> " << to;
    }
  }
}

}  // namespace
}  // namespace cuscope::collect
