// What a change did to the findings and the verdicts (lib/analysis/compare_findings.h).
#include "lib/analysis/compare_findings.h"

#include "gtest/gtest.h"

namespace cuscope::analysis {
namespace {

model::Finding F(const std::string& rule, double gain_ns, const std::string& kernel = "",
                 const std::string& region = "") {
  model::Finding f;
  f.rule = rule;
  f.gain_ns = gain_ns;
  f.kernel = kernel;
  f.region = region;
  f.summary = rule + " summary";
  return f;
}

TEST(CompareFindings, AppearedResolvedThenStayedByChange) {
  const std::vector<model::Finding> base = {F("gpu_idle_gaps", 900e6, "", "step"),
                                            F("small_grid", 1e6, "k1"), F("launch_bound", 8e6),
                                            F("bank_conflicts", 5e6, "k2")};
  const std::vector<model::Finding> next = {
      F("gpu_idle_gaps", 100e6, "", "step/matmul"), F("first_iteration", 200e6, "", "step"),
      F("bank_conflicts", 4e6, "k2"), F("small_grid", 2e6, "k3")};
  const std::vector<FindingChange> c = CompareFindings(base, next);
  ASSERT_EQ(c.size(), 6u);
  // Appeared and resolved, by gain.
  EXPECT_EQ(c[0].kind, FindingChangeKind::kAppeared);
  EXPECT_EQ(c[0].rule, "first_iteration");
  EXPECT_EQ(c[1].kind, FindingChangeKind::kResolved);
  EXPECT_EQ(c[1].rule, "launch_bound");
  EXPECT_EQ(c[1].next_gain_ns, 0);
  EXPECT_EQ(c[2].rule, "small_grid");  // k3 appeared (2 ms) before k1 resolved (1 ms)
  EXPECT_EQ(c[2].kernel, "k3");
  EXPECT_EQ(c[2].kind, FindingChangeKind::kAppeared);
  EXPECT_EQ(c[3].kernel, "k1");
  EXPECT_EQ(c[3].kind, FindingChangeKind::kResolved);
  // Stayed, by the size of the change; the same rule in another region is the same finding.
  EXPECT_EQ(c[4].kind, FindingChangeKind::kStayed);
  EXPECT_EQ(c[4].rule, "gpu_idle_gaps");
  EXPECT_EQ(c[4].base_gain_ns, 900e6);
  EXPECT_EQ(c[4].next_gain_ns, 100e6);
  EXPECT_EQ(c[4].region, "step/matmul");
  EXPECT_EQ(c[5].rule, "bank_conflicts");
  EXPECT_TRUE(CompareFindings({}, {}).empty());
}

// With steps, a timeline rule may fire over the steps and, apart, over start-up
// (evidence startup=1): the two are two findings, not one with the larger gain.
TEST(CompareFindings, StartUpAndLoopFindingsOfOneRuleStayApart) {
  model::Finding startup = F("gpu_idle_gaps", 500e6);
  startup.evidence = {{"startup", 1}};
  const model::Finding loop = F("gpu_idle_gaps", 20e6, "", "step");
  const std::vector<FindingChange> c = CompareFindings({startup, loop}, {startup});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].kind, FindingChangeKind::kResolved);  // the loop's gaps went away
  EXPECT_EQ(c[0].base_gain_ns, 20e6);
  EXPECT_EQ(c[1].kind, FindingChangeKind::kStayed);  // start-up's are still there
  EXPECT_EQ(c[1].base_gain_ns, 500e6);
  EXPECT_EQ(c[1].next_gain_ns, 500e6);
}

// A kernel rule's finding on one signature: its evidence gives the grid and block.
model::Finding OnSignature(const std::string& rule, double gain_ns, const std::string& kernel,
                           double grid_blocks, double block_threads) {
  model::Finding f = F(rule, gain_ns, kernel);
  f.evidence = {{"grid_blocks", grid_blocks}, {"block_threads", block_threads}};
  return f;
}

// The recorded GEMM profile's two fp32_without_tensor_cores findings: one kernel name,
// two grids. Each is its own finding, and a signature only in one profile is not the
// other's finding staying.
TEST(CompareFindings, TwoSignaturesOfOneKernelStayTwo) {
  const std::vector<model::Finding> base = {
      OnSignature("fp32_without_tensor_cores", 43e6, "sgemm", 2048, 256),
      OnSignature("fp32_without_tensor_cores", 5e6, "sgemm", 512, 256)};
  std::vector<FindingChange> c = CompareFindings(base, {});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].kind, FindingChangeKind::kResolved);
  EXPECT_EQ(c[0].base_gain_ns, 43e6);
  EXPECT_EQ(c[0].grid_blocks, 2048u);
  EXPECT_EQ(c[0].block_threads, 256u);
  EXPECT_EQ(c[1].kind, FindingChangeKind::kResolved);
  EXPECT_EQ(c[1].base_gain_ns, 5e6);
  EXPECT_EQ(c[1].grid_blocks, 512u);

  const std::vector<model::Finding> next = {
      OnSignature("fp32_without_tensor_cores", 40e6, "sgemm", 2048, 256),
      OnSignature("fp32_without_tensor_cores", 1e6, "sgemm", 1024, 256)};
  c = CompareFindings(base, next);
  ASSERT_EQ(c.size(), 2u);
  // The 512-block launch became a 1024-block one and still fires: stayed, on its new
  // signature (not "resolved" and "appeared"), ranked by the change of its gain.
  EXPECT_EQ(c[0].kind, FindingChangeKind::kStayed);
  EXPECT_EQ(c[0].grid_blocks, 1024u);
  EXPECT_EQ(c[0].base_gain_ns, 5e6);
  EXPECT_EQ(c[0].next_gain_ns, 1e6);
  EXPECT_EQ(c[1].kind, FindingChangeKind::kStayed);
  EXPECT_EQ(c[1].grid_blocks, 2048u);
  EXPECT_EQ(c[1].base_gain_ns, 43e6);
  EXPECT_EQ(c[1].next_gain_ns, 40e6);

  // A third signature in the new run has no old one left to pair with: appeared.
  std::vector<model::Finding> more = next;
  more.push_back(OnSignature("fp32_without_tensor_cores", 2e6, "sgemm", 4096, 256));
  c = CompareFindings(base, more);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].kind, FindingChangeKind::kAppeared);
  EXPECT_EQ(c[0].grid_blocks, 1024u);  // the smallest gain is left unpaired
  // Another rule on the kernel pairs with nothing of this one.
  c = CompareFindings(base, {OnSignature("tail_wave", 1e6, "sgemm", 512, 256)});
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].kind, FindingChangeKind::kResolved);
  EXPECT_EQ(c[1].kind, FindingChangeKind::kResolved);
  EXPECT_EQ(c[2].kind, FindingChangeKind::kAppeared);
  EXPECT_EQ(c[2].rule, "tail_wave");
}

KernelCounters K(const std::string& name, uint32_t grid, Bound bound) {
  KernelCounters k;
  k.name = name;
  k.grid = {grid, 1, 1};
  k.block = {128, 1, 1};
  k.verdict.bound = bound;
  return k;
}

TEST(CompareVerdicts, SameSignatureWithAnotherVerdict) {
  const std::vector<KernelCounters> base = {K("gemm", 64, Bound::kL1), K("copy", 8, Bound::kDram),
                                            K("gone", 1, Bound::kLatency)};
  const std::vector<KernelCounters> next = {
      K("gemm", 64, Bound::kCompute), K("copy", 8, Bound::kDram), K("gemm", 128, Bound::kCompute)};
  const std::vector<VerdictChange> v = CompareVerdicts(base, next);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].name, "gemm");
  EXPECT_EQ(v[0].grid.x, 64u);
  EXPECT_EQ(v[0].base_verdict, VerdictName(Bound::kL1));
  EXPECT_EQ(v[0].next_verdict, VerdictName(Bound::kCompute));
}

// A profile whose one counter set measured `metrics`.
model::Profile Measured(const std::vector<std::string>& metrics) {
  model::Profile p;
  model::CounterSet set;
  set.name = p.strings.Intern("gemm");
  for (const std::string& m : metrics) set.values.emplace_back(p.strings.Intern(m), 1.0);
  p.counters.push_back(set);
  return p;
}

// A roofline profile against a tensor-metrics one: the metrics only one side measured,
// sorted; none when both measured the same (in any order) or neither measured any.
TEST(CompareMeasuredMetrics, NamesWhatOnlyOneSideMeasured) {
  const MetricsDifference d =
      CompareMeasuredMetrics(Measured({"sm__cycles_elapsed.max", "dram__bytes.sum", "a.sum"}),
                             Measured({"a.sum", "sm__pipe_tensor_cycles_active.avg"}));
  EXPECT_TRUE(d.differ());
  EXPECT_EQ(d.only_base, (std::vector<std::string>{"dram__bytes.sum", "sm__cycles_elapsed.max"}));
  EXPECT_EQ(d.only_next, (std::vector<std::string>{"sm__pipe_tensor_cycles_active.avg"}));
  EXPECT_FALSE(
      CompareMeasuredMetrics(Measured({"a.sum", "b.sum"}), Measured({"b.sum", "a.sum"})).differ());
  EXPECT_FALSE(CompareMeasuredMetrics(model::Profile{}, model::Profile{}).differ());
  // Counters on one side only: its findings cannot stay.
  EXPECT_EQ(CompareMeasuredMetrics(Measured({"a.sum"}), model::Profile{}).only_base.size(), 1u);
}

}  // namespace
}  // namespace cuscope::analysis
