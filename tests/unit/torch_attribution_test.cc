// PyTorch attribution over a synthetic profile shaped like an eager training step:
// op ranges as torch's NVTX observer writes them, Python line ranges as the hook
// opens them, backward on autograd's own thread.
#include "lib/analysis/torch_attribution.h"

#include <gtest/gtest.h>

#include <string>

#include "lib/analysis/regions.h"
#include "lib/analysis/torch_summary.h"
#include "tests/unit/builders.h"

namespace cuscope::analysis {
namespace {

using testing::ProfileBuilder;

constexpr uint32_t kUser = 100, kAutograd = 200;

// A Python line range at location `id` on the user's thread.
void Line(ProfileBuilder& b, model::LocationId id, uint64_t start, uint64_t end) {
  model::RangeRecord& r = b.Range("py", start, end, 0, kUser, "cuscope");
  r.source = model::RangeSource::kScope;
  r.location = id;
}

void Location(ProfileBuilder& b, model::LocationId id, const std::string& file, uint32_t line,
              const std::string& function) {
  model::Profile& p = b.profile();
  model::SourceLocation& l = p.source_locations.emplace_back();
  l.id = id;
  l.kind = model::SourceLocationKind::kPython;
  l.file = p.strings.Intern(file);
  l.line = line;
  l.function = p.strings.Intern(function);
}

// A kernel launched by a cudaLaunchKernel at `at` on `thread`; its index.
size_t Launch(ProfileBuilder& b, const std::string& name, uint64_t at, uint32_t thread) {
  const uint32_t corr = static_cast<uint32_t>(b.profile().kernels.size() + 1);
  b.Api("cudaLaunchKernel", at, at + 5, corr, thread);
  b.Kernel(name, 100000 + at * 10, 100000 + at * 10 + 100, 7, corr);
  return b.profile().kernels.size() - 1;
}

model::Profile Step() {
  ProfileBuilder b;
  Location(b, 1, "/src/model.py", 10, "forward");
  Location(b, 2, "/src/model.py", 11, "forward");
  Location(b, 3, "/src/train.py", 30, "main");
  b.Range("step", 1000, 9000, 0, kUser);
  b.Range("backward", 5000, 8000, 1, kUser);
  Line(b, 1, 1100, 1400);
  b.Range("aten::linear, seq = 5, op_id = 11", 1110, 1390, 2, kUser);
  b.Range("aten::t, seq = 5, op_id = 12", 1120, 1150, 3, kUser);
  b.Range("aten::addmm, seq = 6, op_id = 13, sizes = [[768], [8, 512], [512, 768]]", 1200, 1380, 3,
          kUser);
  Launch(b, "gemm", 1250, kUser);
  Line(b, 2, 1500, 1800);
  b.Range("aten::gelu, seq = 7, op_id = 14", 1510, 1790, 2, kUser);
  Launch(b, "gelu", 1600, kUser);
  Launch(b, "copy", 2000, kUser);  // no op, no line
  Line(b, 3, 5000, 7900);          // loss.backward()
  b.Range("autograd::engine::evaluate_function: GeluBackward0, op_id = 20", 5100, 5400, 0,
          kAutograd);
  b.Range("GeluBackward0, seq = 7, op_id = 21", 5110, 5390, 1, kAutograd);
  b.Range("aten::gelu_backward, op_id = 22", 5120, 5380, 2, kAutograd);
  Launch(b, "gelu_bwd", 5200, kAutograd);
  b.Range("autograd::engine::evaluate_function: AddmmBackward0, op_id = 30", 5500, 6000, 0,
          kAutograd);
  b.Range("AddmmBackward0, seq = 6, op_id = 31", 5510, 5990, 1, kAutograd);
  b.Range("aten::mm, op_id = 32", 5520, 5600, 2, kAutograd);
  Launch(b, "gemm", 5550, kAutograd);
  b.Range("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad, op_id = 40", 6100,
          6200, 0, kAutograd);
  b.Range("torch::autograd::AccumulateGrad, op_id = 41", 6110, 6190, 1, kAutograd);
  Launch(b, "add", 6150, kAutograd);
  return b.Take();
}

TEST(TorchRangesTest, ParsesTorchMessages) {
  auto n = ParseTorchOpName("aten::addmm, seq = 6, op_id = 13, sizes = [[8], [8, 2]]");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->name, "aten::addmm");
  EXPECT_EQ(n->seq, 6);
  EXPECT_EQ(n->sizes, "[[8], [8, 2]]");
  n = ParseTorchOpName("aten::mm, op_id = 7, sizes = [[1]], input_op_ids = [(3, 0)]");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->seq, -1);
  EXPECT_EQ(n->sizes, "[[1]]");
  n = ParseTorchOpName("MulBackward0, stashed seq = 12, op_id = 9");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->name, "MulBackward0");
  EXPECT_EQ(n->seq, 12);
  EXPECT_FALSE(ParseTorchOpName("attention").has_value());
  EXPECT_FALSE(ParseTorchOpName("x, op_id = ").has_value());
  EXPECT_TRUE(IsBackwardNodeName("MmBackward0"));
  EXPECT_TRUE(IsBackwardNodeName("MyFunctionBackward"));
  EXPECT_TRUE(IsBackwardNodeName("torch::autograd::CopySlices"));
  EXPECT_FALSE(IsBackwardNodeName("aten::gelu_backward"));
}

TEST(TorchAttributionTest, ForwardKernelsCarryOpAndLine) {
  const model::Profile p = Step();
  const TorchAttribution a = AttributeTorch(p);
  ASSERT_EQ(a.kernels.size(), 6u);
  EXPECT_EQ(TorchOpOf(p, a.kernels[0].op), "aten::addmm");
  EXPECT_EQ(TorchSizesOf(p, a.kernels[0].op), "[[768], [8, 512], [512, 768]]");
  EXPECT_EQ(TorchLineOf(p, a.kernels[0].line), 1u);
  EXPECT_FALSE(a.kernels[0].backward());
  EXPECT_EQ(TorchOpOf(p, a.kernels[1].op), "aten::gelu");
  EXPECT_EQ(TorchLineOf(p, a.kernels[1].line), 2u);
  EXPECT_EQ(a.kernels[2].op, TorchKernel::kNone);
  EXPECT_EQ(a.kernels[2].line, TorchKernel::kNone);
}

TEST(TorchAttributionTest, BackwardKernelsCarryTheirForwardOpsLine) {
  const model::Profile p = Step();
  const TorchAttribution a = AttributeTorch(p);
  const TorchKernel& gelu = a.kernels[3];
  EXPECT_EQ(TorchOpOf(p, gelu.op), "aten::gelu_backward");
  EXPECT_TRUE(gelu.backward());
  EXPECT_EQ(TorchOpOf(p, gelu.forward), "aten::gelu");
  EXPECT_EQ(TorchLineOf(p, gelu.line), 2u);
  const TorchKernel& mm = a.kernels[4];
  EXPECT_EQ(TorchOpOf(p, mm.node), "AddmmBackward0");
  EXPECT_EQ(TorchOpOf(p, mm.forward), "aten::addmm");  // seq 6, not linear's 5
  EXPECT_EQ(TorchLineOf(p, mm.line), 1u);
  EXPECT_FALSE(mm.backward_call);
  // AccumulateGrad has no sequence number: the line of the backward() call.
  const TorchKernel& acc = a.kernels[5];
  EXPECT_TRUE(acc.backward());
  EXPECT_EQ(acc.forward, TorchKernel::kNone);
  EXPECT_TRUE(acc.backward_call);
  EXPECT_EQ(TorchLineOf(p, acc.line), 3u);
}

// With another Python thread's line open at the same time, the backward() call's
// line is the one that began first (it encloses the whole backward).
TEST(TorchAttributionTest, BackwardCallLineIsTheEarliestOpenElsewhere) {
  ProfileBuilder b;
  Location(b, 3, "/src/train.py", 30, "main");
  Location(b, 4, "/src/loader.py", 7, "worker");
  Line(b, 3, 5000, 7900);  // loss.backward() on the user's thread
  model::RangeRecord& other = b.Range("py", 6000, 6300, 0, 300, "cuscope");
  other.source = model::RangeSource::kScope;
  other.location = 4;
  b.Range("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad, op_id = 40", 6100,
          6200, 0, kAutograd);
  Launch(b, "add", 6150, kAutograd);
  b.Range("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad, op_id = 42", 7940,
          7990, 0, kAutograd);
  Launch(b, "fill", 7950, kAutograd);  // after backward() returned: no line
  const model::Profile p = b.Take();
  const TorchAttribution a = AttributeTorch(p);
  EXPECT_EQ(TorchLineOf(p, a.kernels[0].line), 3u);
  EXPECT_EQ(a.kernels[1].line, TorchKernel::kNone);
}

TEST(TorchAttributionTest, OpAndLineRangesAreNotRegions) {
  const model::Profile p = Step();
  std::vector<std::string> paths;
  for (const RegionSummaryRow& row : SummarizeRegions(p)) paths.push_back(row.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"step", "step/backward"}));
}

TEST(TorchAttributionTest, BackwardKernelsFallInTheCallersRegion) {
  const model::Profile p = Step();
  const KernelRangeAttribution k = AttributeKernelsToRanges(p);
  // AccumulateGrad's kernel (5) has no forward op: the backward() call's thread.
  for (size_t i : {3, 4, 5}) {
    ASSERT_NE(k.kernel_range[i], KernelRangeAttribution::kNone) << i;
    EXPECT_EQ(p.str(p.ranges[k.kernel_range[i]].name), "backward") << i;
  }
}

// Steps after the attributed ones (the hook ends its ranges after CUSCOPE_PYTORCH_STEPS)
// take the op and line of the same launch in the last attributed step: the same kernel
// with the same occurrence in its step, in launch order, on any thread.
TEST(TorchAttributionTest, LaterStepsInheritTheSameLaunchesAttribution) {
  ProfileBuilder b;
  Location(b, 1, "/src/model.py", 10, "forward");
  for (int step = 0; step < 3; ++step) {
    const uint64_t t0 = 10000 * (step + 1);
    b.Range("step", t0, t0 + 9000, 0, kUser);
    if (step == 0) {
      Line(b, 1, t0 + 100, t0 + 800);
      b.Range("aten::addmm, seq = 6, op_id = 13", t0 + 110, t0 + 790, 2, kUser);
      b.Range("autograd::engine::evaluate_function: AddmmBackward0, op_id = 30", t0 + 2000,
              t0 + 2900, 0, kAutograd);
      b.Range("AddmmBackward0, seq = 6, op_id = 31", t0 + 2010, t0 + 2890, 1, kAutograd);
    }
    Launch(b, "gemm", t0 + 200, kUser);  // the forward's two GEMMs
    Launch(b, "gemm", t0 + 300, kUser);
    Launch(b, "gemm_bwd", t0 + 2100, kAutograd);
    if (step == 2) Launch(b, "gemm", t0 + 400, kUser);  // a third: no counterpart
  }
  const model::Profile p = b.Take();
  const TorchAttribution a = AttributeTorch(p);
  ASSERT_EQ(a.kernels.size(), 10u);
  for (size_t k : {0, 1, 2}) EXPECT_FALSE(a.kernels[k].inherited) << k;
  for (size_t k : {3, 4, 6, 7}) {
    EXPECT_TRUE(a.kernels[k].inherited) << k;
    EXPECT_EQ(TorchOpOf(p, a.kernels[k].op), "aten::addmm") << k;
    EXPECT_EQ(TorchLineOf(p, a.kernels[k].line), 1u) << k;
  }
  for (size_t k : {5, 8}) {  // the backward GEMM: its forward op and line
    EXPECT_TRUE(a.kernels[k].inherited) << k;
    EXPECT_TRUE(a.kernels[k].backward()) << k;
    EXPECT_EQ(TorchOpOf(p, a.kernels[k].forward), "aten::addmm") << k;
    EXPECT_EQ(TorchLineOf(p, a.kernels[k].line), 1u) << k;
  }
  EXPECT_FALSE(a.kernels[9].inherited);  // step 3's third GEMM
  EXPECT_EQ(a.kernels[9].op, TorchKernel::kNone);
  const TorchSummary s = SummarizeTorch(p, a);
  EXPECT_EQ(s.inherited.kernels, 6u);
  EXPECT_EQ(s.with_op.kernels, 9u);
}

TEST(TorchSummaryTest, SharesAndRows) {
  const model::Profile p = Step();
  const TorchSummary s = SummarizeTorch(p);
  EXPECT_EQ(s.all.kernels, 6u);
  EXPECT_EQ(s.with_op.kernels, 5u);
  EXPECT_EQ(s.with_line.kernels, 5u);
  EXPECT_EQ(s.backward.kernels, 3u);
  EXPECT_EQ(s.backward_with_line.kernels, 3u);
  ASSERT_EQ(s.by_line.size(), 4u);  // model.py:10, :11, train.py:30, and no line
  for (const TorchLineRow& row : s.by_line) {
    if (row.line == 10) {
      EXPECT_EQ(row.totals.kernels, 2u);
      EXPECT_EQ(row.backward.kernels, 1u);
      EXPECT_EQ(row.file, "/src/model.py");
      EXPECT_EQ(row.function, "forward");
    }
  }
  bool saw_backward_mm = false;
  for (const TorchOpRow& row : s.by_op) {
    if (row.op == "aten::mm") {
      saw_backward_mm = row.backward;
      EXPECT_EQ(row.top_kernel, "gemm");
    }
  }
  EXPECT_TRUE(saw_backward_mm);
}

TEST(TorchSummaryTest, ProfileWithoutTorchRangesHasNoRows) {
  ProfileBuilder b;
  b.Range("step", 1000, 2000);
  Launch(b, "k", 1500, 100);
  EXPECT_TRUE(SummarizeTorch(b.profile()).empty());
}

}  // namespace
}  // namespace cuscope::analysis
