// The PC sampler (lib/collect/pc_sampler.h) and its records (pc_records.h) against a
// fake of CUPTI's PC Sampling calls: contexts begun and ended, drains turned into
// functions, counts, lines and texts, a module unloaded before its PCs were drained,
// failures as notes.
#include "lib/collect/pc_sampler.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lib/collect/pc_calls.h"
#include "lib/collect/pc_records.h"

namespace cuscope::collect {
namespace {

CUcontext Ctx(uintptr_t n) { return reinterpret_cast<CUcontext>(n); }

// A cubin is any bytes; its "CRC" is its first byte; PCs below 0x100 have line
// (pc / 0x10 + 1) of "k.cu" in a cubin whose second byte is 'L', none otherwise.
class FakeCalls final : public PcCalls {
 public:
  absl::StatusOr<std::map<uint32_t, std::string>> Begin(CUcontext ctx, const PcConfig&) override {
    if (refuse) return absl::UnavailableError("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
    begun.insert(ctx);
    return std::map<uint32_t, std::string>{
        {0, "smsp__pcsamp_warps_issue_stalled_long_scoreboard"},
        {1, "smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued"},
        {2, "smsp__pcsamp_warps_issue_stalled_math_pipe_throttle"}};
  }
  absl::Status Collect(CUcontext ctx, RawPcData* out) override {
    ++collects;
    if (begun.count(ctx) == 0) return absl::NotFoundError("not begun");
    for (const RawPc& pc : next) out->pcs.push_back(pc);
    out->total_samples += next_total;
    out->buffer_full = out->buffer_full || full;
    next.clear();
    next_total = 0;
    return absl::OkStatus();
  }
  absl::Status End(CUcontext ctx, RawPcData* out) override {
    absl::Status st = Collect(ctx, out);
    begun.erase(ctx);
    ended.insert(ctx);
    return st;
  }
  uint32_t DeviceOf(CUcontext ctx) override {
    return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(ctx) % 8);
  }
  CUcontext CurrentContext() override { return current; }
  std::optional<uint64_t> CubinCrc(const void* cubin, size_t size) override {
    if (size == 0) return std::nullopt;
    return static_cast<const unsigned char*>(cubin)[0];
  }
  std::optional<PcSourceLine> LineOf(const void* cubin, size_t size, const std::string&,
                                     uint64_t pc) override {
    ++lookups;
    const auto* bytes = static_cast<const unsigned char*>(cubin);
    if (size < 2 || bytes[1] != 'L' || pc >= 0x100) return std::nullopt;
    return PcSourceLine{"/src/k.cu", static_cast<uint32_t>(pc / 0x10 + 1)};
  }

  bool refuse = false, full = false;
  CUcontext current = nullptr;
  std::set<CUcontext> begun, ended;
  std::vector<RawPc> next;
  uint64_t next_total = 0;
  int collects = 0, lookups = 0;
};

RawPc Pc(uint64_t crc, const std::string& fn, uint64_t pc,
         std::vector<std::pair<uint32_t, uint32_t>> stalls) {
  RawPc r;
  r.cubin_crc = crc;
  r.function = fn;
  r.pc_offset = pc;
  r.stalls = std::move(stalls);
  return r;
}

ReadSourceLine Lines() {
  return [](const std::string& file, uint32_t line) -> std::optional<std::string> {
    if (file != "/src/k.cu") return std::nullopt;
    return "  x = a[i * stride];  // line " + std::to_string(line);
  };
}

CUpti_ResourceData Resource(CUcontext ctx, CUpti_ModuleResourceData* module = nullptr) {
  CUpti_ResourceData r{};
  r.context = ctx;
  r.resourceDescriptor = module;
  return r;
}

TEST(PcRecords, CountsLinesAndTextsOnce) {
  FakeCalls calls;
  PcRecords records(&calls, Lines());
  const unsigned char cubin[] = {7, 'L', 0};
  records.ModuleLoaded(7, cubin, sizeof(cubin));
  const std::map<uint32_t, std::string> names = {{0, "stalled_long_scoreboard"}};
  RawPcData d;
  d.pcs = {Pc(7, "_Z1kPf", 0x20, {{0, 5}}), Pc(7, "_Z1kPf", 0x20, {{0, 3}})};
  d.total_samples = 8;
  records.Add(d, 1, names);
  records.Add(d, 1, names);  // a second drain: counts add up, lines are not repeated
  model::Profile batch;
  records.MoveTo(&batch);
  ASSERT_EQ(batch.sampled_functions.size(), 1u);
  EXPECT_EQ(batch.str(batch.sampled_functions[0].name), "_Z1kPf");
  EXPECT_EQ(batch.sampled_functions[0].device_id, 1u);
  ASSERT_EQ(batch.pc_samples.size(), 1u);
  EXPECT_EQ(batch.pc_samples[0].samples, 16u);
  ASSERT_EQ(batch.pc_lines.size(), 1u);
  EXPECT_EQ(batch.pc_lines[0].line, 3u);
  EXPECT_EQ(batch.str(batch.pc_lines[0].file), "/src/k.cu");
  ASSERT_EQ(batch.source_text.size(), 1u);
  EXPECT_EQ(batch.source_text[0].text, "  x = a[i * stride];  // line 3");
  EXPECT_EQ(calls.lookups, 1);
  EXPECT_EQ(records.totals().samples, 16u);

  // The next batch has only what is new, its strings in the batch's table.
  records.Add(d, 1, names);
  model::Profile next;
  next.strings.Intern("something else first");
  records.MoveTo(&next);
  EXPECT_TRUE(next.sampled_functions.empty());
  EXPECT_TRUE(next.pc_lines.empty());
  ASSERT_EQ(next.pc_samples.size(), 1u);
  EXPECT_EQ(next.str(next.pc_samples[0].stall), "stalled_long_scoreboard");
}

TEST(PcRecords, UnloadedModuleKeepsItsLinesUntilTheNextDrain) {
  FakeCalls calls;
  PcRecords records(&calls, Lines());
  auto cubin = std::make_unique<std::vector<unsigned char>>(std::vector<unsigned char>{9, 'L'});
  records.ModuleLoaded(9, cubin->data(), cubin->size());
  records.ModuleUnloading(9);
  cubin.reset();  // the driver frees the module: the records read their copy (ASan checks)
  RawPcData d;
  d.pcs = {Pc(9, "f", 0x10, {{0, 1}})};
  records.Add(d, 0, {});
  d.pcs = {Pc(9, "f", 0x30, {{0, 1}})};  // after that drain the copy is gone
  records.Add(d, 0, {});
  model::Profile batch;
  records.MoveTo(&batch);
  ASSERT_EQ(batch.pc_lines.size(), 1u);
  EXPECT_EQ(batch.pc_lines[0].pc_offset, 0x10u);
  EXPECT_EQ(records.totals().no_cubin, 1u);
  EXPECT_EQ(batch.str(batch.pc_samples[0].stall), "stall_0");  // no name for the index
}

TEST(PcRecords, FunctionWithoutLineInfoHasCountsOnly) {
  FakeCalls calls;
  PcRecords records(&calls, Lines());
  const unsigned char cubin[] = {3, 'x'};  // no line info
  records.ModuleLoaded(3, cubin, sizeof(cubin));
  RawPcData d;
  d.pcs = {Pc(3, "cublas_gemm", 0x40, {{2, 9}})};
  records.Add(d, 0, {{2, "math_pipe_throttle"}});
  model::Profile batch;
  records.MoveTo(&batch);
  EXPECT_EQ(batch.pc_samples.size(), 1u);
  EXPECT_TRUE(batch.pc_lines.empty());
  EXPECT_TRUE(batch.source_text.empty());
}

TEST(PcSampler, SamplesContextsFromStartToStop) {
  auto owned = std::make_unique<FakeCalls>();
  FakeCalls& calls = *owned;
  calls.current = Ctx(1);
  PcSampler sampler(nullptr, std::move(owned), Lines());
  SourceOptions options;
  options.enabled = true;
  ASSERT_TRUE(sampler.Start(options).ok());
  EXPECT_EQ(calls.begun.count(Ctx(1)), 1u);  // the starting thread's context

  CUpti_ResourceData created = Resource(Ctx(2));
  sampler.OnCallback(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &created);
  EXPECT_EQ(calls.begun.count(Ctx(2)), 1u);
  const unsigned char cubin[] = {5, 'L'};
  CUpti_ModuleResourceData module{};
  module.pCubin = reinterpret_cast<const char*>(cubin);
  module.cubinSize = sizeof(cubin);
  CUpti_ResourceData loaded = Resource(Ctx(2), &module);
  sampler.OnCallback(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED, &loaded);

  calls.next = {Pc(5, "_Z4heavyv", 0x00, {{0, 10}, {1, 10}, {2, 2}})};
  calls.next_total = 22;
  sampler.Poll();
  model::Profile batch;
  sampler.Drain(&batch);
  EXPECT_EQ(batch.sampled_functions.size(), 1u);
  EXPECT_EQ(batch.pc_samples.size(), 3u);
  EXPECT_EQ(batch.pc_lines.size(), 1u);

  CUpti_ResourceData destroyed = Resource(Ctx(2));
  sampler.OnCallback(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
                     &destroyed);
  EXPECT_EQ(calls.ended.count(Ctx(2)), 1u);
  sampler.Stop();
  EXPECT_EQ(calls.ended.count(Ctx(1)), 1u);
  EXPECT_TRUE(calls.begun.empty());
  model::RunNotes notes = sampler.Notes();
  EXPECT_EQ(notes.source_status, "");
  EXPECT_EQ(notes.source_samples, 22);
  EXPECT_EQ(notes.source_period, 16);
  sampler.Poll();  // after Stop: nothing to drain, no call
}

TEST(PcSampler, RefusedContextIsANoteAndTheRunGoesOn) {
  auto owned = std::make_unique<FakeCalls>();
  FakeCalls& calls = *owned;
  calls.refuse = true;
  PcSampler sampler(nullptr, std::move(owned), Lines());
  ASSERT_TRUE(sampler.Start(SourceOptions{}).ok());
  CUpti_ResourceData created = Resource(Ctx(3));
  sampler.OnCallback(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &created);
  sampler.Poll();
  EXPECT_EQ(calls.collects, 0);
  sampler.Stop();
  model::RunNotes notes = sampler.Notes();
  EXPECT_NE(notes.source_status.find("INSUFFICIENT_PRIVILEGES"), std::string::npos);
}

TEST(PcSampler, BufferFullIsANote) {
  auto owned = std::make_unique<FakeCalls>();
  FakeCalls& calls = *owned;
  calls.current = Ctx(1);
  PcSampler sampler(nullptr, std::move(owned), Lines());
  ASSERT_TRUE(sampler.Start(SourceOptions{}).ok());
  calls.full = true;
  sampler.Poll();
  sampler.Stop();
  EXPECT_FALSE(sampler.Notes().source_buffer_full.empty());
}

TEST(PcSampler, NoContextSaysSo) {
  PcSampler sampler(nullptr, std::make_unique<FakeCalls>(), Lines());
  ASSERT_TRUE(sampler.Start(SourceOptions{}).ok());
  sampler.Stop();
  EXPECT_EQ(sampler.Notes().source_status, "no CUDA context was sampled");
}

}  // namespace
}  // namespace cuscope::collect
