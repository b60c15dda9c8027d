// Kernel names cut to a width (lib/report/name_cut.h): different kernels never print
// alike, and what tells them apart stays readable.
#include "lib/report/name_cut.h"

#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace cuscope::report {
namespace {

// Three kernels of PyTorch's unrolled_elementwise_kernel, as the GPT-2 trace
// (tests/data/real/h200-gpt2-step-trace.sqlite) names them.
const std::string kAdd =
    "void at::native::unrolled_elementwise_kernel<at::native::CUDAFunctor_add<float>, "
    "std::array<char*, 3ul>, 4, TrivialOffsetCalculator<2, unsigned int>, "
    "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<2>, "
    "at::native::memory::StoreWithCast<1> >(int, at::native::CUDAFunctor_add<float>, "
    "std::array<char*, 3ul>, TrivialOffsetCalculator<2, unsigned int>, "
    "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<2>, "
    "at::native::memory::StoreWithCast<1>)";
const std::string kCopy =
    "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda("
    "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
    "const::{lambda(float)#1}, std::array<char*, 2ul>, 4, TrivialOffsetCalculator<1, unsigned "
    "int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, "
    "at::native::memory::StoreWithCast<1> >(int, at::native::direct_copy_kernel_cuda("
    "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
    "const::{lambda(float)#1}, std::array<char*, 2ul>, TrivialOffsetCalculator<1, unsigned "
    "int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, "
    "at::native::memory::StoreWithCast<1>)";
const std::string kMul =
    "void at::native::unrolled_elementwise_kernel<at::native::BinaryFunctor<float, float, "
    "float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul>, 4, "
    "TrivialOffsetCalculator<2, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
    "at::native::memory::LoadWithCast<2>, at::native::memory::StoreWithCast<1> >(int, "
    "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<"
    "float> >, std::array<char*, 3ul>, TrivialOffsetCalculator<2, unsigned int>, "
    "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<2>, "
    "at::native::memory::StoreWithCast<1>)";

TEST(NameCutTest, ThreeKernelsOfOneTemplateKeepTheirFunctors) {
  // Cut alone, the three print the same line.
  EXPECT_EQ(FitName(kAdd, 80), FitName(kCopy, 80));
  EXPECT_EQ(FitName(kAdd, 80), FitName(kMul, 80));
  const NameCut names({kAdd, kCopy, kMul});
  const std::string add = names.Fit(kAdd, 80), copy = names.Fit(kCopy, 80),
                    mul = names.Fit(kMul, 80);
  EXPECT_EQ(add, "unrolled_elementwise_kernel<CUDAFunctor_add...<2>, StoreWithCast<1> >(...)");
  EXPECT_EQ(copy,
            "unrolled_elementwise_kernel<direct_copy_kernel_cuda...>, StoreWithCast<1> >(...)");
  EXPECT_EQ(mul, "unrolled_elementwise_kernel<BinaryFunctor...<2>, StoreWithCast<1> >(...)");
  for (const std::string& s : {add, copy, mul}) EXPECT_LE(s.size(), 80u) << s;
}

TEST(NameCutTest, LambdasThatDifferLateKeepTheirNumbers) {
  const std::string head =
      "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
      "namespace)::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase&, "
      "float)::{lambda(float)#";
  const std::string tail = "}, std::array<char*, 2ul> >(int, float)";
  const NameCut names({head + "1" + tail, head + "2" + tail});
  const std::string one = names.Fit(head + "1" + tail, 80), two = names.Fit(head + "2" + tail, 80);
  EXPECT_NE(one, two);
  EXPECT_TRUE(absl::StrContains(one, "#1}")) << one;
  EXPECT_TRUE(absl::StrContains(two, "#2}")) << two;
  EXPECT_TRUE(absl::StartsWith(one, "vectorized_elementwise_kernel<4, ")) << one;
}

TEST(NameCutTest, ShortenedStepByStepUntilItFits) {
  const std::string k = "void at::native::k<std::array<char*, 2ul>, c10::Half>(float const*, int)";
  const NameCut names({k});
  EXPECT_EQ(names.Fit(k, 100), k);  // fits whole
  EXPECT_EQ(names.Fit(k, 60), "void at::native::k<std::array<char*, 2ul>, c10::Half>(...)");
  EXPECT_EQ(names.Fit(k, 55), "at::native::k<std::array<char*, 2ul>, c10::Half>(...)");
  EXPECT_EQ(names.Fit(k, 31), "k<array<char*, 2ul>, Half>(...)");
  EXPECT_EQ(names.Fit(k, 30), "k<array<char*,...>, Half>(...)");
  EXPECT_EQ(names.Fit(k, 0), k);  // no limit
  EXPECT_EQ(names.Fit(k, 3), k);
}

TEST(NameCutTest, KeywordsAndScopesOfClassesAreNoNamespaces) {
  const std::string k =
      "void f<ns::g(int)::{lambda()#1}::operator()() const::{lambda(float)#2}, "
      "Outer<int>::Inner>(int)";
  EXPECT_EQ(NameCut({k}).Fit(k, 86),
            "f<g(int)::{lambda()#1}::operator()() const::{lambda(float)#2}, "
            "Outer<int>::Inner>(...)");
}

TEST(NameCutTest, AStepThatMakesTwoNamesAlikeIsNotTaken) {
  const NameCut qualified({"void a::f(int)", "void b::f(int)"});
  EXPECT_EQ(qualified.Fit("void a::f(int)", 10), "a::f(...)");
  EXPECT_EQ(qualified.Fit("void b::f(int)", 10), "b::f(...)");
  const std::string by_float = "void kernel_with_a_long_name(float*)";
  const std::string by_int = "void kernel_with_a_long_name(int*)";
  const NameCut overloads({by_float, by_int});
  EXPECT_NE(overloads.Fit(by_float, 30), overloads.Fit(by_int, 30));
  EXPECT_TRUE(absl::StrContains(overloads.Fit(by_float, 30), "float"))
      << overloads.Fit(by_float, 30);
  EXPECT_TRUE(absl::StrContains(overloads.Fit(by_int, 30), "int")) << overloads.Fit(by_int, 30);
}

TEST(NameCutTest, CutsThatStillMeetAreNumbered) {
  const std::string a = std::string(50, 'x') + "A" + std::string(50, 'y');
  const std::string b = std::string(50, 'x') + "B" + std::string(50, 'y');
  const NameCut names({b, a});
  EXPECT_EQ(names.Fit(a, 8), "x...y #1");
  EXPECT_EQ(names.Fit(b, 8), "x...y #2");
}

TEST(NameCutTest, OneNameTwiceIsOneKernel) {
  // Launches of one kernel with other configurations carry the same name.
  const NameCut names({kAdd, kAdd, kMul});
  EXPECT_EQ(names.Fit(kAdd, 80), NameCut({kAdd, kMul}).Fit(kAdd, 80));
  EXPECT_EQ(names.Fit(kAdd, 80), names.Fit(kAdd, 80));
}

TEST(NameCutTest, NamesOutsideTheSetAreFittedAlone) {
  const NameCut names({kAdd});
  EXPECT_EQ(names.Fit("step/forward/attention", 10), FitName("step/forward/attention", 10));
  EXPECT_EQ(NameCut().Fit(kMul, 80), FitName(kMul, 80));
  EXPECT_TRUE(NameCut().empty());
}

TEST(NameCutTest, NeverInsideAUtf8Sequence) {
  const std::string e = "\xC3\xA9";  // é
  std::vector<std::string> set;
  for (int i = 0; i < 6; ++i) {
    set.push_back(absl::StrCat("void k", e, e, e, "<", e, i, e, e, e, e, e, e, e, e, ">(int)"));
  }
  const NameCut names(set);
  for (size_t width = 8; width < 40; ++width) {
    std::set<std::string> printed;
    for (const std::string& s : set) {
      const std::string p = names.Fit(s, width);
      EXPECT_LE(p.size(), width) << p;
      for (size_t i = 0; i + 2 < p.size(); ++i) {
        if (p.compare(i, 3, "...") != 0) continue;
        if (i > 0) EXPECT_NE(static_cast<unsigned char>(p[i - 1]), 0xC3u) << p;
        if (i + 3 < p.size()) EXPECT_NE(static_cast<unsigned char>(p[i + 3]), 0xA9u) << p;
      }
      printed.insert(p);
    }
    EXPECT_EQ(printed.size(), set.size()) << "width " << width;
  }
}

// Names of one template that share long heads and tails, at every width from 20.
TEST(NameCutTest, DistinctAtEveryWidth) {
  std::mt19937 random(7);
  const std::vector<std::string> functors = {
      "at::native::CUDAFunctor_add<float>", "at::native::CUDAFunctorOnSelf_add<float>",
      "at::native::BinaryFunctor<float, float, float, at::native::MulFunctor<float> >",
      "at::native::(anonymous namespace)::f(at::Tensor&)::{lambda(float)#1}",
      "at::native::(anonymous namespace)::f(at::Tensor&)::{lambda(float)#2}"};
  std::set<std::string> unique;
  while (unique.size() < 200) {
    const size_t f = random() % functors.size();
    unique.insert(absl::StrCat("void at::native::elementwise_kernel<", random() % 3 * 64, ", ",
                               functors[f], ", std::array<char*, ", random() % 4, "ul>, ",
                               random() % 8, ">(int, ", functors[f], ")"));
  }
  const std::vector<std::string> set(unique.begin(), unique.end());
  const NameCut names(set);
  for (size_t width = 20; width <= 160; width += 7) {
    std::set<std::string> printed;
    for (const std::string& s : set) {
      const std::string p = names.Fit(s, width);
      EXPECT_LE(p.size(), width) << p;
      printed.insert(p);
    }
    EXPECT_EQ(printed.size(), set.size()) << "width " << width;
  }
}

}  // namespace
}  // namespace cuscope::report
