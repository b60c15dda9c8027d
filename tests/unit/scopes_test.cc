// User scopes (lib/collect/scopes.h) without a GPU: nesting, many threads, unbalanced
// pops, sessions starting and stopping around open scopes, Drain into a batch.
#include "lib/collect/scopes.h"

#include <cupti.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace cuscope::collect::scopes {
namespace {

uint64_t CuptiNow() {
  uint64_t t = 0;
  EXPECT_EQ(cuptiGetTimestamp(&t), CUPTI_SUCCESS);
  return t;
}

class ScopesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetRecording(false);
    model::Profile discard;
    Drain(&discard);
    ResetStats();
    ASSERT_EQ(CurrentDepth(), 0u);
  }
  void TearDown() override {
    SetRecording(false);
    EXPECT_EQ(CurrentDepth(), 0u) << "a test left scopes open";
  }
  static const model::RangeRecord* Find(const model::Profile& p, const std::string& name) {
    for (const auto& r : p.ranges) {
      if (p.str(r.name) == name) return &r;
    }
    return nullptr;
  }
};

TEST_F(ScopesTest, CuptiTimestampWorksWithoutAGpu) {
  uint64_t a = CuptiNow();
  uint64_t b = CuptiNow();
  EXPECT_GT(a, 0u);
  EXPECT_GE(b, a);
}

TEST_F(ScopesTest, NestingDepthAndContainment) {
  SetRecording(true, Clock::kRealtime);
  EXPECT_TRUE(Recording());
  EXPECT_EQ(Push("outer"), 1u);
  EXPECT_EQ(Push("inner"), 2u);
  EXPECT_EQ(Push("innermost"), 3u);
  EXPECT_EQ(Pop(), 2);
  EXPECT_EQ(Pop(), 1);
  EXPECT_EQ(Push("second"), 2u);
  EXPECT_EQ(CurrentDepth(), 2u);
  EXPECT_EQ(Pop(), 1);
  EXPECT_EQ(Pop(), 0);
  EXPECT_EQ(PendingCount(), 4u);

  model::Profile p;
  Drain(&p);
  EXPECT_EQ(PendingCount(), 0u);
  ASSERT_EQ(p.ranges.size(), 4u);
  const auto* outer = Find(p, "outer");
  const auto* inner = Find(p, "inner");
  const auto* innermost = Find(p, "innermost");
  const auto* second = Find(p, "second");
  ASSERT_TRUE(outer && inner && innermost && second);
  EXPECT_EQ(outer->depth, 0u);
  EXPECT_EQ(inner->depth, 1u);
  EXPECT_EQ(innermost->depth, 2u);
  EXPECT_EQ(second->depth, 1u);
  EXPECT_LE(outer->start_ns, inner->start_ns);
  EXPECT_LE(inner->start_ns, innermost->start_ns);
  EXPECT_LE(innermost->end_ns, inner->end_ns);
  EXPECT_LE(inner->end_ns, second->start_ns);
  EXPECT_LE(second->end_ns, outer->end_ns);
  for (const auto& r : p.ranges) {
    EXPECT_LE(r.start_ns, r.end_ns);
    EXPECT_EQ(r.source, model::RangeSource::kScope);
    EXPECT_EQ(p.str(r.domain), "cuscope");
    EXPECT_EQ(r.process_id, static_cast<uint32_t>(getpid()));
    EXPECT_EQ(r.thread_id, CurrentThreadId());
    EXPECT_NE(r.id, 0u);
  }
  std::set<uint64_t> ids;
  for (const auto& r : p.ranges) ids.insert(r.id);
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_EQ(GetStats().recorded, 4u);
}

TEST_F(ScopesTest, NullNameIsEmpty) {
  SetRecording(true, Clock::kRealtime);
  EXPECT_EQ(Push(nullptr), 1u);
  EXPECT_EQ(Pop(), 0);
  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 1u);
  EXPECT_EQ(p.str(p.ranges[0].name), "");
}

// 8 threads x 10,000 scopes (1,000 uniquely named outer scopes, each holding 9
// inner ones), drained concurrently by another thread.
TEST_F(ScopesTest, ManyThreadsConcurrently) {
  constexpr int kThreads = 8, kOuter = 1000, kInner = 9;
  SetRecording(true, Clock::kRealtime);
  model::Profile p;
  std::atomic<bool> done{false};
  std::thread drainer([&] {
    while (!done.load()) {
      Drain(&p);
      std::this_thread::yield();
    }
  });
  std::vector<uint32_t> tids(kThreads);
  std::vector<std::thread> workers;
  std::atomic<int> bad_returns{0};
  for (int k = 0; k < kThreads; ++k) {
    workers.emplace_back([&, k] {
      tids[k] = CurrentThreadId();
      for (int o = 0; o < kOuter; ++o) {
        std::string name = "t" + std::to_string(k) + "/o" + std::to_string(o);
        if (Push(name.c_str()) != 1u) ++bad_returns;
        for (int i = 0; i < kInner; ++i) {
          if (Push("inner") != 2u) ++bad_returns;
          if (Pop() != 1) ++bad_returns;
        }
        if (Pop() != 0) ++bad_returns;
      }
    });
  }
  for (auto& w : workers) w.join();
  done.store(true);
  drainer.join();
  Drain(&p);
  EXPECT_EQ(bad_returns.load(), 0);

  ASSERT_EQ(p.ranges.size(), size_t{kThreads} * kOuter * (kInner + 1));
  EXPECT_EQ(std::set<uint32_t>(tids.begin(), tids.end()).size(), size_t{kThreads})
      << "thread ids must be distinct";
  std::set<uint64_t> ids;
  std::map<std::string, int> outer_seen;
  std::map<uint32_t, std::vector<const model::RangeRecord*>> outers, inners;
  for (const auto& r : p.ranges) {
    ids.insert(r.id);
    EXPECT_EQ(r.source, model::RangeSource::kScope);
    EXPECT_EQ(p.str(r.domain), "cuscope");
    EXPECT_LE(r.start_ns, r.end_ns);
    const std::string& name = p.str(r.name);
    if (name == "inner") {
      EXPECT_EQ(r.depth, 1u);
      inners[r.thread_id].push_back(&r);
    } else {
      EXPECT_EQ(r.depth, 0u);
      ++outer_seen[name];
      outers[r.thread_id].push_back(&r);
      // The outer scope's name says which thread made it.
      int k = std::stoi(name.substr(1, name.find('/') - 1));
      EXPECT_EQ(r.thread_id, tids[k]) << name;
    }
  }
  EXPECT_EQ(ids.size(), p.ranges.size()) << "scope ids must be unique";
  EXPECT_EQ(outer_seen.size(), size_t{kThreads} * kOuter);
  for (const auto& [name, n] : outer_seen) EXPECT_EQ(n, 1) << name;
  ASSERT_EQ(outers.size(), size_t{kThreads});
  for (auto& [tid, list] : outers) {
    ASSERT_EQ(list.size(), size_t{kOuter});
    ASSERT_EQ(inners[tid].size(), size_t{kOuter} * kInner);
    std::sort(list.begin(), list.end(), [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
    for (size_t i = 1; i < list.size(); ++i) {
      EXPECT_LE(list[i - 1]->end_ns, list[i]->start_ns) << "outer scopes overlap";
    }
    // Every inner scope lies inside one outer scope of its own thread.
    std::vector<int> per_outer(list.size(), 0);
    for (const auto* in : inners[tid]) {
      auto it = std::upper_bound(list.begin(), list.end(), in->start_ns,
                                 [](uint64_t t, auto* r) { return t < r->start_ns; });
      ASSERT_NE(it, list.begin());
      --it;
      EXPECT_LE((*it)->start_ns, in->start_ns);
      EXPECT_GE((*it)->end_ns, in->end_ns);
      ++per_outer[it - list.begin()];
    }
    for (int n : per_outer) EXPECT_EQ(n, kInner);
  }
}

TEST_F(ScopesTest, UnbalancedPopsWarnOnceAndAreIgnored) {
  SetRecording(true, Clock::kRealtime);
  EXPECT_EQ(Push("before"), 1u);
  EXPECT_EQ(Pop(), 0);
  testing::internal::CaptureStderr();
  EXPECT_EQ(Pop(), -1);
  EXPECT_EQ(Pop(), -1);
  int other = 0;
  std::thread([&] { other = Pop(); }).join();  // a thread that never pushed
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(other, -1);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("cuscope: cuscope_range_pop without a matching push on thread "),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("; ignored"), std::string::npos) << err;
  EXPECT_EQ(GetStats().unbalanced_pops, 3u);

  // Later scopes are recorded, with the right depth.
  EXPECT_EQ(Push("after"), 1u);
  EXPECT_EQ(Push("after/inner"), 2u);
  EXPECT_EQ(Pop(), 1);
  EXPECT_EQ(Pop(), 0);
  testing::internal::CaptureStderr();
  EXPECT_EQ(Pop(), -1);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "warned twice";
  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 3u);
  ASSERT_NE(Find(p, "before"), nullptr);
  ASSERT_NE(Find(p, "after"), nullptr);
  ASSERT_NE(Find(p, "after/inner"), nullptr);
  EXPECT_EQ(Find(p, "after")->depth, 0u);
  EXPECT_EQ(Find(p, "after/inner")->depth, 1u);
}

TEST_F(ScopesTest, NotRecordingRecordsNothingAndStaysBalanced) {
  EXPECT_FALSE(Recording());
  EXPECT_EQ(Push("a"), 0u);
  EXPECT_EQ(Push("b"), 0u);
  EXPECT_EQ(CurrentDepth(), 2u);
  EXPECT_EQ(Pop(), 1);
  EXPECT_EQ(Pop(), 0);
  EXPECT_EQ(PendingCount(), 0u);

  // Pushed before the session started, popped inside it: not recorded, and the
  // scope inside is recorded as outermost.
  EXPECT_EQ(Push("straddles start"), 0u);
  SetRecording(true, Clock::kRealtime);
  EXPECT_EQ(Push("inside"), 2u);
  EXPECT_EQ(Pop(), 1);
  EXPECT_EQ(Pop(), 0);
  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 1u);
  EXPECT_EQ(p.str(p.ranges[0].name), "inside");
  EXPECT_EQ(p.ranges[0].depth, 0u);

  // Pushed inside, popped after the stop: not recorded, still balanced.
  EXPECT_EQ(Push("straddles stop"), 1u);
  SetRecording(false);
  EXPECT_EQ(Pop(), 0);
  // Pushed in one session, popped in the next: not recorded.
  SetRecording(true, Clock::kRealtime);
  EXPECT_EQ(Push("straddles two"), 1u);
  SetRecording(false);
  SetRecording(true, Clock::kRealtime);
  EXPECT_EQ(Push("in the second"), 2u);
  EXPECT_EQ(Pop(), 1);
  EXPECT_EQ(Pop(), 0);
  SetRecording(false);
  model::Profile q;
  Drain(&q);
  ASSERT_EQ(q.ranges.size(), 1u);
  EXPECT_EQ(q.str(q.ranges[0].name), "in the second");
  EXPECT_EQ(q.ranges[0].depth, 0u);
  EXPECT_EQ(GetStats().unbalanced_pops, 0u);
}

TEST_F(ScopesTest, CloseOpenScopesAtStop) {
  SetRecording(true, Clock::kRealtime);
  EXPECT_EQ(Push("done"), 1u);
  EXPECT_EQ(Pop(), 0);
  EXPECT_EQ(Push("x"), 1u);
  EXPECT_EQ(Push("y"), 2u);
  // Another thread holds a scope open across the stop.
  std::atomic<int> phase{0};
  int other_pop = 99;
  std::thread other([&] {
    Push("z");
    phase.store(1);
    while (phase.load() != 2) std::this_thread::yield();
    other_pop = Pop();
  });
  while (phase.load() != 1) std::this_thread::yield();

  uint64_t end_ns = CuptiNow();
  SetRecording(false);
  EXPECT_EQ(CloseOpenScopes(end_ns), 2u);
  EXPECT_EQ(GetStats().dropped_open, 1u);
  phase.store(2);
  other.join();
  EXPECT_EQ(other_pop, 0);
  // The user's pops stay balanced and record nothing more.
  EXPECT_EQ(Pop(), 1);
  EXPECT_EQ(Pop(), 0);

  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 3u);
  const auto* x = Find(p, "x");
  const auto* y = Find(p, "y");
  ASSERT_TRUE(x && y);
  EXPECT_EQ(x->end_ns, end_ns);
  EXPECT_EQ(y->end_ns, end_ns);
  EXPECT_EQ(x->depth, 0u);
  EXPECT_EQ(y->depth, 1u);
  EXPECT_EQ(Find(p, "z"), nullptr);
  EXPECT_EQ(GetStats().unbalanced_pops, 0u);
}

TEST_F(ScopesTest, ThreadExitingWithOpenScopesIsCounted) {
  SetRecording(true, Clock::kRealtime);
  std::thread([] {
    Push("leaked");
    Push("leaked/inner");
  }).join();
  EXPECT_EQ(GetStats().dropped_open, 2u);
  // A later thread works (its state is a fresh one).
  std::thread([] {
    Push("later");
    Pop();
  }).join();
  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 1u);
  EXPECT_EQ(p.str(p.ranges[0].name), "later");
}

TEST_F(ScopesTest, DrainInternsNamesAndDomain) {
  model::Profile p;
  model::StringId existing = p.strings.Intern("already here");
  SetRecording(true, Clock::kRealtime);
  for (int i = 0; i < 3; ++i) {
    Push("step");
    Push("already here");
    Pop();
    Pop();
  }
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 6u);
  EXPECT_EQ(p.strings.Get(existing), "already here");
  std::set<model::StringId> names;
  for (const auto& r : p.ranges) {
    names.insert(r.name);
    EXPECT_EQ(p.str(r.domain), kDomain);
    EXPECT_EQ(r.source, model::RangeSource::kScope);
  }
  EXPECT_EQ(names.size(), 2u);
  EXPECT_TRUE(names.count(existing));
  size_t strings = p.strings.size();

  // A second drain into the same batch reuses the ids.
  Push("step");
  Pop();
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 7u);
  EXPECT_EQ(p.strings.size(), strings);
  EXPECT_EQ(p.ranges[6].name, p.ranges[0].name == existing ? p.ranges[1].name : p.ranges[0].name);
  // Nothing pending: Drain adds nothing, not even the domain.
  model::Profile empty;
  Drain(&empty);
  EXPECT_TRUE(empty.ranges.empty());
  EXPECT_EQ(empty.strings.size(), 1u);
}

TEST_F(ScopesTest, PendingListIsBounded) {
  SetRecording(true, Clock::kRealtime);
  for (size_t i = 0; i < kMaxPending + 5; ++i) {
    Push("s");
    Pop();
  }
  EXPECT_EQ(PendingCount(), kMaxPending);
  Stats s = GetStats();
  EXPECT_EQ(s.recorded, kMaxPending);
  EXPECT_EQ(s.dropped_overflow, 5u);
  model::Profile p;
  Drain(&p);
  EXPECT_EQ(p.ranges.size(), kMaxPending);
  Push("after");
  Pop();
  EXPECT_EQ(PendingCount(), 1u);
}

TEST_F(ScopesTest, ForkedChildDoesNotRecord) {
  SetRecording(true, Clock::kRealtime);
  Push("parent");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    bool ok = !Recording() && Pop() == 0 && Push("child") == 0 && Pop() == 0;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(Pop(), 0);
  model::Profile p;
  Drain(&p);
  ASSERT_EQ(p.ranges.size(), 1u);
  EXPECT_EQ(p.str(p.ranges[0].name), "parent");
}

}  // namespace
}  // namespace cuscope::collect::scopes
