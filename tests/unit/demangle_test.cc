// The one kernel-name demangler (lib/model/demangle.h): exact outputs, since the
// collector stores names through it and the writers show names through it.
#include "lib/model/demangle.h"

#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace cuscope::model {
namespace {

TEST(Demangle, ItaniumSymbols) {
  EXPECT_EQ(Demangle("_Z5saxpyifPKfPf"), "saxpy(int, float, float const*, float*)");
  EXPECT_EQ(Demangle("_Z6kernelILi2EEvPf"), "void kernel<2>(float*)");
  EXPECT_EQ(Demangle("_Z3fooIfEvPT_"), "void foo<float>(float*)");
  EXPECT_EQ(Demangle("_ZN7cutlass6KernelINS_4gemmEEEvNT_6ParamsE"),
            "void cutlass::Kernel<cutlass::gemm>(cutlass::gemm::Params)");
  EXPECT_EQ(Demangle("_ZN5flash7computeILb1EEEviPKfS2_"),
            "void flash::compute<true>(int, float const*, float const*)");
}

TEST(Demangle, EverythingElseIsUnchanged) {
  EXPECT_EQ(Demangle(""), "");
  EXPECT_EQ(Demangle("_Z"), "_Z");
  EXPECT_EQ(Demangle("_Zq"), "_Zq");  // does not demangle
  EXPECT_EQ(Demangle("saxpy"), "saxpy");
  EXPECT_EQ(Demangle("triton_poi_fused_add_0"), "triton_poi_fused_add_0");
  // Already demangled (what the profile stores) stays as it is.
  EXPECT_EQ(Demangle("void kernel<2>(float*)"), "void kernel<2>(float*)");
  // extern "C" names that spell an Itanium type are names, not types.
  EXPECT_EQ(Demangle("f"), "f");
  EXPECT_EQ(Demangle("Pi"), "Pi");
}

TEST(Demangle, ViewsNeedNoTerminator) {
  const std::string text = "_Z5saxpyifPKfPfTRAILING";
  EXPECT_EQ(Demangle(std::string_view(text).substr(0, 15)),
            "saxpy(int, float, float const*, float*)");
}

// Symbols over 1,024 characters, which libstdc++'s demangler refuses for their length
// (cuDNN's CUTLASS convolutions: ViT's weight-gradient kernel, 1,675 characters, which
// 6ac3c2e's ViT recording stored mangled; fc141f3's, shipped, holds it demangled), demangle with
// kLong as c++filt
// --no-recurse-limit demangles them (tests/data/names/, its output kept beside the symbol).
std::string ReadName(const std::string& file) {
  std::ifstream in(std::string(CUSCOPE_TEST_DATA_DIR) + "/names/" + file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// "_ZN" and "20abcdefghijklmnopqrst" until at least `chars` characters, then "Ev": the
// function abcdefghijklmnopqrst::...::abcdefghijklmnopqrst().
std::string NestedName(size_t chars) {
  std::string name = "_ZN";
  while (name.size() < chars) name += "20abcdefghijklmnopqrst";
  return name + "Ev";
}

TEST(Demangle, LongSymbolsAsCxxfiltWithoutItsLimit) {
  const std::string mangled = ReadName("cudnn_wgrad.mangled");
  const std::string expected = ReadName("cudnn_wgrad.demangled");
  ASSERT_EQ(mangled.size(), 1675u);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(Demangle(mangled, DemangleLimit::kLong), expected);
  // As the writers show stored names: unchanged (as the Python package reads them).
  EXPECT_EQ(Demangle(mangled), mangled);
  EXPECT_EQ(expected.rfind("void cutlass__5x_cudnn::Kernel<cutlass__5x_cudnn::conv::kernel::"
                           "ImplicitGemmConvolution<",
                           0),
            0u);
  // A long nested name, past 1,024 characters and under kLongestDemangled.
  const std::string scope = NestedName(3000);
  const std::string shown = Demangle(scope, DemangleLimit::kLong);
  EXPECT_EQ(shown.rfind("abcdefghijklmnopqrst::abcdefghijklmnopqrst::", 0), 0u);
  // k names of 20 letters, k - 1 "::" and "()": 22k characters, from 5 + 22k.
  EXPECT_EQ(shown.size(), scope.size() - 5);
}

TEST(Demangle, SymbolsPastTheLongLimitStayAsTheyAre) {
  // Demangles without the limit (as the 3,000-character one above), but past it.
  const std::string huge = NestedName(kLongestDemangled + 100);
  EXPECT_EQ(Demangle(huge, DemangleLimit::kLong), huge);
}

}  // namespace
}  // namespace cuscope::model
