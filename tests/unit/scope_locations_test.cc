// Scopes with a static source location: PushAt (lib/collect/scopes.h) and
// CUSCOPE_SCOPE (include/cuscope/scope.h). Each distinct site becomes one row of the
// batch's source_locations, registered once by pointer; its scopes' regions carry
// its id; a literal name is read from the site, not copied at each push.
//
// The C ABI functions the macro calls are defined here over the collector, as
// lib/inject/scope_api.cc defines them in libcuscope (which this test does not link).
#include <cstring>
#include <string>
#include <type_traits>

#include "cuscope/scope.h"
#include "gtest/gtest.h"
#include "lib/collect/scopes.h"

extern "C" int cuscope_range_push(const char* name) {
  return static_cast<int>(cuscope::collect::scopes::Push(name != nullptr ? name : ""));
}
extern "C" int cuscope_range_push_at(const cuscope_source_location* site, const char* name) {
  if (site == nullptr) return cuscope_range_push(name);
  return static_cast<int>(cuscope::collect::scopes::PushAt(site, name));
}
extern "C" int cuscope_range_pop(void) { return cuscope::collect::scopes::Pop(); }

namespace cuscope::collect::scopes {
namespace {

namespace detail = ::cuscope::scope_detail;

// Which names go into the static site: string literals (and static const char
// arrays), not pointers, std::string or mutable arrays.
static_assert(detail::kLiteral<decltype(("x"))>);
static_assert(!detail::kLiteral<const char*>);
static_assert(!detail::kLiteral<const std::string&>);
static_assert(!detail::kLiteral<char (&)[4]>);
static_assert(detail::SiteName("abc")[0] == 'a');

class ScopeLocationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetRecording(false);
    model::Profile discard;
    Drain(&discard);
    ResetStats();
    SetRecording(true, Clock::kRealtime);
  }
  void TearDown() override {
    SetRecording(false);
    EXPECT_EQ(CurrentDepth(), 0u) << "a test left scopes open";
  }
  // The batch's location of `r`, or nullptr.
  static const model::SourceLocation* LocationOf(const model::Profile& p,
                                                 const model::RangeRecord& r) {
    for (const model::SourceLocation& l : p.source_locations) {
      if (l.id == r.location) return &l;
    }
    return nullptr;
  }
};

TEST_F(ScopeLocationsTest, SiteIsRegisteredOncePerSession) {
  static const cuscope_source_location kSite = {"attention", "Forward", "model/layer.cc", 42};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(PushAt(&kSite, nullptr), 1u);
    EXPECT_EQ(Pop(), 0);
  }
  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 3u);
  ASSERT_EQ(p.source_locations.size(), 1u);
  const model::SourceLocation& l = p.source_locations[0];
  EXPECT_NE(l.id, model::kNoLocation);
  EXPECT_EQ(l.kind, model::SourceLocationKind::kScope);
  EXPECT_EQ(p.str(l.file), "model/layer.cc");
  EXPECT_EQ(l.line, 42u);
  EXPECT_EQ(p.str(l.function), "Forward");
  for (const model::RangeRecord& r : p.ranges) {
    EXPECT_EQ(p.str(r.name), "attention");
    EXPECT_EQ(r.location, l.id);
    EXPECT_EQ(r.source, model::RangeSource::kScope);
  }

  // A later batch of the same session: the regions name the id; the row is not repeated.
  PushAt(&kSite, nullptr);
  Pop();
  model::Profile later;
  Drain(&later);
  ASSERT_EQ(later.ranges.size(), 1u);
  EXPECT_EQ(later.ranges[0].location, l.id);
  EXPECT_TRUE(later.source_locations.empty());

  // A new session (a new profile) gets the row again, with the same id.
  SetRecording(false);
  SetRecording(true, Clock::kRealtime);
  PushAt(&kSite, nullptr);
  Pop();
  model::Profile next;
  Drain(&next);
  ASSERT_EQ(next.source_locations.size(), 1u);
  EXPECT_EQ(next.source_locations[0].id, l.id);
  EXPECT_EQ(next.str(next.source_locations[0].file), "model/layer.cc");
  ASSERT_EQ(next.ranges.size(), 1u);
  EXPECT_EQ(next.ranges[0].location, l.id);
}

TEST_F(ScopeLocationsTest, DistinctSitesDistinctIdsAndPlainScopesNone) {
  static const cuscope_source_location kA = {"a", "F", "f.cc", 1};
  static const cuscope_source_location kB = {"a", "F", "f.cc", 2};  // same name, other line
  PushAt(&kA, nullptr);
  PushAt(&kB, nullptr);
  Push("plain");
  Pop();
  Pop();
  Pop();
  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 3u);
  ASSERT_EQ(p.source_locations.size(), 2u);
  EXPECT_NE(p.source_locations[0].id, p.source_locations[1].id);
  for (const model::RangeRecord& r : p.ranges) {
    const model::SourceLocation* l = LocationOf(p, r);
    if (p.str(r.name) == "plain") {
      EXPECT_EQ(r.location, model::kNoLocation);
      EXPECT_EQ(l, nullptr);
    } else {
      ASSERT_NE(l, nullptr);
      EXPECT_EQ(l->line, r.depth == 0 ? 1u : 2u);
    }
  }
}

TEST_F(ScopeLocationsTest, PythonSitesHaveThePythonKind) {
  static const cuscope_source_location kLine = {"forward (model.py:12)", "forward", "model.py", 12};
  static const cuscope_source_location kScope = {"s", "F", "f.cc", 3};
  PushPython(&kLine);
  Pop();
  PushAt(&kScope, nullptr);
  Pop();
  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 2u);
  ASSERT_EQ(p.source_locations.size(), 2u);
  const model::SourceLocation* line = LocationOf(p, p.ranges[0]);
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->kind, model::SourceLocationKind::kPython);
  EXPECT_EQ(p.str(p.ranges[0].name), "forward (model.py:12)");
  const model::SourceLocation* scope = LocationOf(p, p.ranges[1]);
  ASSERT_NE(scope, nullptr);
  EXPECT_EQ(scope->kind, model::SourceLocationKind::kScope);
}

// The site's name is read when Drain first meets the site, not copied at each push;
// after that, the registered copy is used (the site is not read again).
TEST_F(ScopeLocationsTest, LiteralNameIsNotCopiedAtPush) {
  static char name[8] = "before";
  static const cuscope_source_location kSite = {name, "F", "f.cc", 7};
  PushAt(&kSite, nullptr);
  Pop();
  std::strcpy(name, "after");  // before the first Drain: a push-time copy would say "before"
  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 1u);
  EXPECT_EQ(p.str(p.ranges[0].name), "after");
  std::strcpy(name, "later");
  PushAt(&kSite, nullptr);
  Pop();
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 2u);
  EXPECT_EQ(p.str(p.ranges[1].name), "after");
}

// A name given at the push (made at run time) is copied, and the site still recorded.
TEST_F(ScopeLocationsTest, DynamicNameIsCopiedWithTheSite) {
  static const cuscope_source_location kSite = {nullptr, "F", "f.cc", 9};
  std::string name = "layer 3";
  PushAt(&kSite, name.c_str());
  name = "overwritten";
  Pop();
  PushAt(&kSite, nullptr);  // no name anywhere: ""
  Pop();
  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 2u);
  EXPECT_EQ(p.str(p.ranges[0].name), "layer 3");
  EXPECT_EQ(p.str(p.ranges[1].name), "");
  ASSERT_EQ(p.source_locations.size(), 1u);
  EXPECT_EQ(p.ranges[0].location, p.source_locations[0].id);
  EXPECT_EQ(p.ranges[1].location, p.source_locations[0].id);
}

TEST_F(ScopeLocationsTest, OpenSitedScopeClosedAtStopKeepsItsName) {
  static const cuscope_source_location kSite = {"open at stop", "F", "f.cc", 3};
  PushAt(&kSite, nullptr);
  SetRecording(false);
  EXPECT_EQ(CloseOpenScopes(~uint64_t{0} >> 1), 1u);
  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 1u);
  EXPECT_EQ(p.str(p.ranges[0].name), "open at stop");
  EXPECT_NE(p.ranges[0].location, model::kNoLocation);
  EXPECT_EQ(Pop(), 0);  // the user's pop stays balanced
}

// Pushed while not recording: a marker, no location.
TEST_F(ScopeLocationsTest, NotRecordingRecordsNoSite) {
  static const cuscope_source_location kSite = {"off", "F", "f.cc", 4};
  SetRecording(false);
  EXPECT_EQ(PushAt(&kSite, nullptr), 0u);
  EXPECT_EQ(Pop(), 0);
  model::Profile p;
  Drain(&p);
  EXPECT_TRUE(p.ranges.empty());
  EXPECT_TRUE(p.source_locations.empty());
}

// CUSCOPE_SCOPE itself: file, line and function of the use; one site per use.
TEST_F(ScopeLocationsTest, MacroRecordsFileLineAndFunction) {
  const std::string dynamic = "dynamic";
  const char* pointer = "pointer";
  int literal_line = 0;
  for (int i = 0; i < 2; ++i) {
    // clang-format off
    CUSCOPE_SCOPE("literal"); literal_line = __LINE__;
    // clang-format on
    { CUSCOPE_SCOPE(dynamic); }
    { CUSCOPE_SCOPE(pointer); }
    { CUSCOPE_SCOPE(std::string("temp ") + std::to_string(i)); }
  }
  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 8u);
  ASSERT_EQ(p.source_locations.size(), 4u);  // four uses, each once
  int literal = 0, temps = 0;
  for (const model::RangeRecord& r : p.ranges) {
    const model::SourceLocation* l = LocationOf(p, r);
    ASSERT_NE(l, nullptr) << p.str(r.name);
    EXPECT_EQ(p.str(l->file), __FILE__);
    EXPECT_EQ(p.str(l->function), "TestBody");
    const std::string& name = p.str(r.name);
    if (name == "literal") {
      ++literal;
      EXPECT_EQ(l->line, static_cast<uint32_t>(literal_line));
    } else if (name.rfind("temp ", 0) == 0) {
      ++temps;
    } else {
      EXPECT_TRUE(name == "dynamic" || name == "pointer") << name;
    }
  }
  EXPECT_EQ(literal, 2);
  EXPECT_EQ(temps, 2);
}

TEST_F(ScopeLocationsTest, TwoMacrosOnOneLineAreTwoSites) {
  {
    // clang-format off
    CUSCOPE_SCOPE("first"); CUSCOPE_SCOPE("second");
    // clang-format on
  }
  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 2u);
  ASSERT_EQ(p.source_locations.size(), 2u);
  EXPECT_EQ(p.source_locations[0].line, p.source_locations[1].line);
  EXPECT_NE(p.ranges[0].location, p.ranges[1].location);
}

}  // namespace
}  // namespace cuscope::collect::scopes
