// The one kernel-name demangler (lib/model/demangle.h): exact outputs, since the
// collector stores names through it and the writers show names through it.
#include "lib/model/demangle.h"

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

}  // namespace
}  // namespace cuscope::model
