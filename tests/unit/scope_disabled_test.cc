// CUSCOPE_DISABLE compiles user scopes out: CUSCOPE_SCOPE expands to nothing and
// cuscope::Scope is an empty class that calls nothing. This test is not linked with
// libcuscope: were any call to cuscope_range_push/pop left, it would not link.
#define CUSCOPE_DISABLE
#include <cstring>
#include <string>
#include <type_traits>

#include "cuscope/scope.h"
#include "gtest/gtest.h"

#define STR2(x) #x
#define STR(x) STR2(x)

static_assert(std::is_empty<cuscope::Scope>::value, "a disabled Scope holds nothing");
static_assert(!std::is_copy_constructible<cuscope::Scope>::value, "Scope is not copyable");
static_assert(std::is_nothrow_constructible<cuscope::Scope, const char*>::value, "");
static_assert(std::is_nothrow_constructible<cuscope::Scope, const cuscope_source_location*,
                                            const char*>::value,
              "");

namespace {

int g_evaluated = 0;
[[maybe_unused]] const char* Name() {  // only named in compiled-out scopes
  ++g_evaluated;
  return "named";
}

// Uses every form; called below, so any reference to the library would be emitted.
int Work(int n) {
  CUSCOPE_SCOPE("work");
  int sum = 0;
  for (int i = 0; i < n; ++i) {
    CUSCOPE_SCOPE(Name());
    CUSCOPE_SCOPE(std::string("loop"));
    cuscope::Scope explicit_scope("explicit");
    static constexpr cuscope_source_location kSite = {"sited", __func__, __FILE__, __LINE__};
    cuscope::Scope sited_scope(&kSite, nullptr);
    sum += i;
  }
  return sum;
}

TEST(ScopeDisabled, MacroExpandsToNothing) {
  EXPECT_STREQ(STR(CUSCOPE_SCOPE("x")), "");
  EXPECT_STREQ(STR(CUSCOPE_SCOPE(Name())), "");
}

TEST(ScopeDisabled, CompiledOutScopesDoNothing) {
  EXPECT_EQ(Work(10), 45);
  EXPECT_EQ(g_evaluated, 0) << "the macro's argument must not be evaluated";
}

}  // namespace
