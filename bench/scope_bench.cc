// User scopes (lib/collect/scopes.h): what CUSCOPE_SCOPE / cuscope_range_push+pop
// cost the calling thread. Targets: < 20 ns per scope outside a session, < 1 us
// while recording. (The C ABI and cuscope::Scope add one call through the PLT.)
#include <benchmark/benchmark.h>

#include <string>

#include "lib/collect/scopes.h"
#include "lib/model/profile.h"

namespace {

namespace scopes = cuscope::collect::scopes;

// Push + pop of one scope, no session (the cost left in a program that is not
// being profiled).
void BM_ScopeNoSession(benchmark::State& state) {
  if (state.thread_index() == 0) scopes::SetRecording(false);
  for (auto _ : state) {
    benchmark::DoNotOptimize(scopes::Push("attention"));
    benchmark::DoNotOptimize(scopes::Pop());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ScopeNoSession)->Threads(1)->Threads(2)->Threads(8);

// Nested: an outer scope held open, inner ones pushed and popped.
void BM_ScopeNoSessionNested(benchmark::State& state) {
  if (state.thread_index() == 0) scopes::SetRecording(false);
  scopes::Push("outer");
  scopes::Push("middle");
  for (auto _ : state) {
    benchmark::DoNotOptimize(scopes::Push("inner"));
    benchmark::DoNotOptimize(scopes::Pop());
  }
  scopes::Pop();
  scopes::Pop();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ScopeNoSessionNested);

// Push + pop while a session records: two CUPTI timestamps, the name copy and one
// append under the pending list's mutex. The collector's Drain (another thread in
// real use) runs every 10,000 scopes with the timer paused: see BM_ScopeDrain.
// Arg: name length (9 fits std::string's inline buffer; 48 needs an allocation).
void BM_ScopeRecording(benchmark::State& state) {
  if (state.thread_index() == 0) scopes::SetRecording(true);
  std::string name = state.range(0) <= 9 ? std::string("attention").substr(0, state.range(0))
                                         : std::string(state.range(0), 'n');
  cuscope::model::Profile batch;
  int64_t n = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(scopes::Push(name.c_str()));
    benchmark::DoNotOptimize(scopes::Pop());
    if (++n % 10000 == 0) {
      state.PauseTiming();
      scopes::Drain(&batch);
      batch.ClearRecords();
      state.ResumeTiming();
    }
  }
  scopes::Drain(&batch);
  if (state.thread_index() == 0) scopes::SetRecording(false);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ScopeRecording)->Arg(9)->Arg(48)->Threads(1)->Threads(2)->Threads(8);

// Push + pop of a scope at a static site (CUSCOPE_SCOPE's path: scopes::PushAt with
// the site's literal name, which is not copied), while recording. Arg: name length,
// as BM_ScopeRecording. Drain as there.
void BM_ScopeLocatedRecording(benchmark::State& state) {
  if (state.thread_index() == 0) scopes::SetRecording(true);
  static const std::string kShort = "attention", kLong(48, 'n');
  static const cuscope_source_location kShortSite = {kShort.c_str(), "Bench", __FILE__, __LINE__};
  static const cuscope_source_location kLongSite = {kLong.c_str(), "Bench", __FILE__, __LINE__};
  const cuscope_source_location* site = state.range(0) <= 9 ? &kShortSite : &kLongSite;
  cuscope::model::Profile batch;
  int64_t n = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(scopes::PushAt(site, nullptr));
    benchmark::DoNotOptimize(scopes::Pop());
    if (++n % 10000 == 0) {
      state.PauseTiming();
      scopes::Drain(&batch);
      batch.ClearRecords();
      state.ResumeTiming();
    }
  }
  scopes::Drain(&batch);
  if (state.thread_index() == 0) scopes::SetRecording(false);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ScopeLocatedRecording)->Arg(9)->Arg(48)->Threads(1)->Threads(2)->Threads(8);

// The same outside a session.
void BM_ScopeLocatedNoSession(benchmark::State& state) {
  if (state.thread_index() == 0) scopes::SetRecording(false);
  static const cuscope_source_location kSite = {"attention", "Bench", __FILE__, __LINE__};
  for (auto _ : state) {
    benchmark::DoNotOptimize(scopes::PushAt(&kSite, nullptr));
    benchmark::DoNotOptimize(scopes::Pop());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ScopeLocatedNoSession);

// The collector's side: moving closed scopes into a batch, per scope.
void BM_ScopeDrain(benchmark::State& state) {
  const int64_t batch_size = state.range(0);
  scopes::SetRecording(true);
  cuscope::model::Profile batch;
  const char* names[] = {"step", "forward", "attention", "mlp", "backward"};
  for (auto _ : state) {
    state.PauseTiming();
    for (int64_t i = 0; i < batch_size; ++i) {
      scopes::Push(names[i % 5]);
      scopes::Pop();
    }
    batch.ClearRecords();
    state.ResumeTiming();
    scopes::Drain(&batch);
  }
  scopes::SetRecording(false);
  state.SetItemsProcessed(state.iterations() * batch_size);
}
BENCHMARK(BM_ScopeDrain)->Arg(10000);

}  // namespace

BENCHMARK_MAIN();
