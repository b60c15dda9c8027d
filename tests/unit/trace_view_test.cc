// The Chrome trace as data (lib/report/trace_view.h): which events, in which order,
// with which arguments, over synthetic profiles; no JSON involved.
#include "lib/report/trace_view.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/model/metrics.h"
#include "lib/report/verdict_text.h"
#include "tests/unit/builders.h"

namespace cuscope::report {
namespace {

using cuscope::testing::ProfileBuilder;
using ::testing::ElementsAre;

// An event with its own copies of the strings; arguments rendered as text.
struct Event {
  TracePhase phase;
  std::string category, name;
  int64_t pid, tid;
  uint64_t start_ns, end_ns;
  uint64_t flow_id;
  std::vector<std::string> keys;            // in order
  std::map<std::string, std::string> args;  // key -> value as text
};

std::string ArgText(const TraceArg& a) {
  switch (a.kind) {
    case TraceArg::Kind::kInt:
      return absl::StrCat(a.i);
    case TraceArg::Kind::kUint:
      return absl::StrCat(a.u);
    case TraceArg::Kind::kDouble:
      return absl::StrCat(a.d);
    case TraceArg::Kind::kBool:
      return a.b ? "true" : "false";
    case TraceArg::Kind::kString:
      return std::string(a.s);
    case TraceArg::Kind::kDim:
      return absl::StrCat(a.dim.x, "x", a.dim.y, "x", a.dim.z);
    case TraceArg::Kind::kMetrics: {
      std::string out;
      for (const auto& [name, v] : *a.metrics)
        absl::StrAppend(&out, std::string(name), "=", v, ";");
      return out;
    }
  }
  return "?";
}

class Collect : public TraceSink {
 public:
  void Event(const TraceEvent& e) override {
    struct Event c {
      e.phase, e.category, std::string(e.name), e.pid, e.tid, e.start_ns, e.end_ns, e.flow_id, {},
      {}
    };
    for (const TraceArg& a : e.args) {
      c.keys.emplace_back(a.key);
      c.args[std::string(a.key)] = ArgText(a);
    }
    events.push_back(std::move(c));
  }
  std::vector<struct Event> events;
};

std::vector<Event> Events(const model::Profile& p,
                          const std::vector<analysis::KernelCounters>& counters = {}) {
  TraceView view(p, counters);
  Collect c;
  view.Events(c);
  return c.events;
}

std::vector<const Event*> OfCategory(const std::vector<Event>& all, const std::string& cat,
                                     TracePhase phase = TracePhase::kComplete) {
  std::vector<const Event*> out;
  for (const Event& e : all) {
    if (e.phase == phase && e.category == cat) out.push_back(&e);
  }
  return out;
}

TEST(TraceViewTest, MetadataNamesProcessesAndThreadsFirst) {
  ProfileBuilder b;
  b.Api("cudaLaunchKernel", 100, 200, 1);
  b.Kernel("k", 300, 400, 7, 1);
  model::OverheadRecord o;
  o.start_ns = 10, o.end_ns = 20, o.thread_id = 5;
  b.profile().overheads.push_back(o);
  const std::vector<Event> all = Events(b.profile());
  std::vector<std::string> meta;
  size_t first_other = all.size();
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].phase != TracePhase::kMetadata) {
      first_other = std::min(first_other, i);
      continue;
    }
    EXPECT_LT(i, first_other) << "metadata after other events";
    meta.push_back(absl::StrCat(all[i].category, " ", all[i].pid, "/", all[i].tid, " ",
                                all[i].args.begin()->second));
  }
  EXPECT_THAT(meta,
              ElementsAre("process_name 4242/0 ./app --flag", "process_sort_index 4242/0 0",
                          "thread_name 4242/100 thread 100", "thread_sort_index 4242/100 100",
                          "process_name 0/0 GPU 0 NVIDIA H200", "process_sort_index 0/0 16777216",
                          "thread_name 0/7 stream 7", "thread_sort_index 0/7 7",
                          "process_name -1/0 CUPTI overhead", "process_sort_index -1/0 33554432"));
}

TEST(TraceViewTest, KernelArgsAndFlowFromItsLaunch) {
  ProfileBuilder b;
  b.Api("cudaLaunchKernel", 100, 200, 77);
  b.Kernel("gemm", 300, 1300, 7, 77);
  b.Kernel("orphan", 1400, 1500, 7, 78);  // no API call: no flow
  const std::vector<Event> all = Events(b.profile());
  const auto kernels = OfCategory(all, "kernel");
  ASSERT_EQ(kernels.size(), 2u);
  const Event& k = *kernels[0];
  EXPECT_EQ(k.name, "gemm");
  EXPECT_EQ(k.pid, 0);
  EXPECT_EQ(k.tid, 7);
  EXPECT_EQ(k.end_ns - k.start_ns, 1000u);
  // Kineto's kernel args, in its order; no External id: no range (CPU op) encloses
  // the launch.
  EXPECT_THAT(k.keys, ElementsAre("queued", "device", "context", "stream", "correlation",
                                  "registers per thread", "shared memory", "blocks per SM",
                                  "warps per SM", "grid", "block", "est. achieved occupancy %"));
  EXPECT_EQ(k.args.count("External id"), 0u);
  EXPECT_EQ(k.args.at("queued"), "0");
  EXPECT_EQ(k.args.at("grid"), "128x1x1");
  EXPECT_EQ(k.args.at("blocks per SM"), absl::StrCat(128.0 / 132));
  EXPECT_EQ(k.args.at("warps per SM"), absl::StrCat(128.0 / 132 * 256 / 32));
  // The flow end follows its kernel; the flow start follows the launching call.
  std::vector<uint32_t> end_ids, start_ids;
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].phase == TracePhase::kFlowEnd) {
      end_ids.push_back(all[i].flow_id);
      ASSERT_GT(i, 0u);
      EXPECT_EQ(all[i - 1].name, "gemm");
      EXPECT_EQ(all[i].start_ns, 300u);
    }
    if (all[i].phase == TracePhase::kFlowStart) {
      start_ids.push_back(all[i].flow_id);
      EXPECT_EQ(all[i - 1].name, "cudaLaunchKernel");
      EXPECT_EQ(all[i].pid, 4242);
      EXPECT_EQ(all[i].tid, 100);
    }
  }
  EXPECT_THAT(end_ids, ElementsAre(77u));
  EXPECT_THAT(start_ids, ElementsAre(77u));
}

TEST(TraceViewTest, RangesMarksSyncsAndUnnamedCalls) {
  ProfileBuilder b;
  b.Range("step", 100, 900, 0, 100, "train");
  model::RangeRecord& mark = b.Range("checkpoint", 500, 500);
  mark.source = model::RangeSource::kNvtxMark;
  model::SyncRecord& s = b.Sync(model::SyncType::kStreamSynchronize, 950, 990);
  s.stream_id = 0xffffffffu;
  s.process_id = 0;  // the profiled process
  s.thread_id = 100;
  model::ApiRecord& a = b.Api("", 10, 20, 5);
  a.callback_id = 13;
  const std::vector<Event> all = Events(b.profile());
  const auto ranges = OfCategory(all, "user_annotation");
  ASSERT_EQ(ranges.size(), 1u);
  // A range is a CPU op to Kineto: it has an External id (its index + 1).
  EXPECT_THAT(ranges[0]->keys, ElementsAre("External id", "range id", "source", "domain"));
  EXPECT_EQ(ranges[0]->args.at("External id"), "1");
  EXPECT_EQ(ranges[0]->args.at("domain"), "train");
  const auto marks = OfCategory(all, "user_annotation", TracePhase::kInstant);
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0]->name, "checkpoint");
  EXPECT_TRUE(marks[0]->keys.empty());
  const auto syncs = OfCategory(all, "cuda_sync");
  ASSERT_EQ(syncs.size(), 1u);
  // On the device (0: no GPU work names the context's device, the first device),
  // on Kineto's tid for "no stream": |-1| = 1.
  EXPECT_EQ(syncs[0]->pid, 0);
  EXPECT_EQ(syncs[0]->tid, 1);
  EXPECT_EQ(syncs[0]->name, "Stream Sync");
  EXPECT_EQ(syncs[0]->args.at("stream"), "-1");
  EXPECT_EQ(syncs[0]->args.at("cuda_sync_kind"), "Stream Sync");
  const auto calls = OfCategory(all, "cuda_runtime");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->name, "<cbid 13>");
}

TEST(TraceViewTest, AnnotationSpansTheKernelsLaunchedInsideARangeBeforeThem) {
  ProfileBuilder b;
  b.Range("forward", 100, 1000);
  b.Api("cudaLaunchKernel", 200, 250, 1);
  b.Api("cudaLaunchKernel", 300, 350, 2);
  b.Kernel("a", 2000, 2500, 7, 1);
  b.Kernel("b", 2600, 3000, 7, 2);
  const std::vector<Event> all = Events(b.profile());
  const auto spans = OfCategory(all, "gpu_user_annotation");
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0]->name, "forward");
  EXPECT_EQ(spans[0]->start_ns, 2000u);
  EXPECT_EQ(spans[0]->end_ns, 3000u);
  EXPECT_LT(spans[0], OfCategory(all, "kernel")[0]);  // written before the kernels
}

TEST(TraceViewTest, MeasuredKernelCarriesItsSetAndTheGivenVerdict) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  b.Kernel("k", 100, 200, 7, 9).flags |= model::kKernelCountersMeasured;
  model::CounterSet set;
  set.name = p.strings.Intern("k");
  set.grid = {128, 1, 1};
  set.block = {256, 1, 1};
  set.correlation_ids = {9};
  set.values = {{p.strings.Intern(metrics::kDuration), 100},
                {p.strings.Intern(metrics::kDramPct), 80}};
  p.counters.push_back(set);
  // Without the analysis the view adds no verdict: it never redoes it.
  Event k = *OfCategory(Events(p), "kernel").at(0);
  EXPECT_EQ(k.args.at("counters measured"), "true");
  EXPECT_EQ(k.args.at("counters"),
            absl::StrCat(metrics::kDuration, "=100;", metrics::kDramPct, "=80;"));
  EXPECT_EQ(k.args.at("counter strategy"), model::CounterStrategyName(set.strategy));
  EXPECT_EQ(k.args.count("verdict"), 0u);
  const std::vector<analysis::KernelCounters> counters = analysis::AnalyzeCounters(p);
  k = *OfCategory(Events(p, counters), "kernel").at(0);
  EXPECT_EQ(k.args.at("verdict"), "DRAM-bound");
  EXPECT_EQ(k.args.at("verdict reason"), CountersReason(counters.at(0)));
  EXPECT_EQ(k.keys.back(), "verdict reason");
}

// Rotate with instruction counters held CUPTI's record off: the record made from the
// launch says so, and its occupancy is unknown (no registers in a launch callback).
TEST(TraceViewTest, AKernelMadeFromItsLaunchSaysSoAndHasNoOccupancy) {
  ProfileBuilder b;
  model::KernelRecord& made = b.Kernel("k", 100, 200, 7, 9);
  made.flags |=
      model::kKernelCountersMeasured | model::kKernelFromLaunch | model::kKernelTimePlaced;
  made.registers_per_thread = 0;
  b.Kernel("k", 300, 400, 7, 10);
  const std::vector<Event> all = Events(b.profile());
  const auto kernels = OfCategory(all, "kernel");
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0]->args.at("record made from the launch"), "true");
  EXPECT_EQ(kernels[0]->args.at("est. achieved occupancy %"), "-1");
  EXPECT_EQ(kernels[1]->args.count("record made from the launch"), 0u);
  EXPECT_NE(kernels[1]->args.at("est. achieved occupancy %"), "-1");
}

TEST(TraceViewTest, HeaderOriginRankAndWorldSize) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  b.Kernel("k", 5000, 6000);
  p.run.start_ns = 8000;
  p.run.start_unix_ns = 1'700'000'000'000'000'000;
  p.run.rank = 3;
  p.run.notes.world_size = 8;
  TraceView view(p, {});
  EXPECT_EQ(view.header().origin_ns, 5000u);  // the earliest record, before the run start
  EXPECT_EQ(view.header().base_unix_ns, 1'700'000'000'000'000'000 - 3000);
  EXPECT_EQ(view.header().rank, 3);
  EXPECT_EQ(view.header().world_size, 8);
  p.run.rank = -1;
  p.run.start_unix_ns = 0;
  p.run.notes = model::RunNotes();
  TraceView no_rank(p, {});
  EXPECT_EQ(no_rank.header().rank, 0);  // HTA needs a rank: 0 of a world of 1
  EXPECT_EQ(no_rank.header().world_size, 1);
  EXPECT_EQ(no_rank.header().origin_ns, 0u);
}

}  // namespace
}  // namespace cuscope::report
