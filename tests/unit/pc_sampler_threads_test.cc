// The PC sampler's threads (lib/collect/pc_sampler.h) against a fake of CUPTI's PC
// Sampling calls, for ThreadSanitizer (scripts/tsan.sh): the program's threads load and
// unload modules and create and destroy contexts (CUPTI's resource callbacks) while the
// background thread drains (Poll) and the tracer's thread takes the records (Drain).
// No sample is lost or counted twice, and nothing waits forever.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lib/collect/pc_calls.h"
#include "lib/collect/pc_sampler.h"

namespace cuscope::collect {
namespace {

CUcontext Ctx(uintptr_t n) { return reinterpret_cast<CUcontext>(n); }

// Each Collect on a begun context yields one PC of cubin 5 with 3 samples. The fake's
// own state is locked: CubinCrc and LineOf may run on any thread.
class ThreadedCalls final : public PcCalls {
 public:
  absl::StatusOr<std::map<uint32_t, std::string>> Begin(CUcontext ctx, const PcConfig&) override {
    std::lock_guard<std::mutex> lock(mu_);
    begun_.insert(ctx);
    return std::map<uint32_t, std::string>{{0, "smsp__pcsamp_warps_issue_stalled_barrier"}};
  }
  absl::Status Collect(CUcontext ctx, RawPcData* out) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (begun_.count(ctx) == 0) return absl::NotFoundError("not begun");
    }
    RawPc pc;
    pc.cubin_crc = 5;
    pc.function = "_Z6kernelv";
    pc.pc_offset = 0x20;
    pc.stalls = {{0, 3}};
    out->pcs.push_back(pc);
    out->total_samples += 3;
    made.fetch_add(3);
    return absl::OkStatus();
  }
  absl::Status End(CUcontext ctx, RawPcData* out) override {
    absl::Status st = Collect(ctx, out);
    std::lock_guard<std::mutex> lock(mu_);
    begun_.erase(ctx);
    return st;
  }
  uint32_t DeviceOf(CUcontext) override { return 0; }
  CUcontext CurrentContext() override { return Ctx(1); }
  std::optional<uint64_t> CubinCrc(const void* cubin, size_t size) override {
    if (size == 0) return std::nullopt;
    return static_cast<const unsigned char*>(cubin)[0];
  }
  std::optional<PcSourceLine> LineOf(const void*, size_t, const std::string&,
                                     uint64_t pc) override {
    return PcSourceLine{"/src/k.cu", static_cast<uint32_t>(pc / 0x10 + 1)};
  }

  std::atomic<uint64_t> made{0};

 private:
  std::mutex mu_;
  std::set<CUcontext> begun_;
};

CUpti_ResourceData Resource(CUcontext ctx, CUpti_ModuleResourceData* module = nullptr) {
  CUpti_ResourceData r{};
  r.context = ctx;
  r.resourceDescriptor = module;
  return r;
}

TEST(PcSamplerThreads, CallbacksPollAndDrainAtOnceLoseNoSample) {
  auto owned = std::make_unique<ThreadedCalls>();
  ThreadedCalls& calls = *owned;
  PcSampler sampler(nullptr, std::move(owned),
                    [](const std::string&, uint32_t) { return std::optional<std::string>(); });
  ASSERT_TRUE(sampler.Start(SourceOptions{}).ok());

  constexpr int kRounds = 300;
  std::atomic<bool> done{false};
  std::vector<std::thread> program;
  for (int t = 0; t < 2; ++t) {
    program.emplace_back([&sampler, t] {
      const unsigned char cubin[] = {5, 'L'};
      CUpti_ModuleResourceData module{};
      module.pCubin = reinterpret_cast<const char*>(cubin);
      module.cubinSize = sizeof(cubin);
      for (int i = 0; i < kRounds; ++i) {
        CUpti_ResourceData loaded = Resource(Ctx(1), &module);
        sampler.OnCallback(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED, &loaded);
        CUpti_ResourceData ctx = Resource(Ctx(100 + t * kRounds + i));
        sampler.OnCallback(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &ctx);
        sampler.OnCallback(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
                           &ctx);
        sampler.OnCallback(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
                           &loaded);
      }
    });
  }
  std::thread background([&] {
    while (!done.load()) sampler.Poll();
  });
  uint64_t drained = 0;
  std::thread tracer([&] {
    while (!done.load()) {
      model::Profile batch;
      sampler.Drain(&batch);
      for (const model::PcSampleCount& s : batch.pc_samples) drained += s.samples;
    }
  });
  for (std::thread& t : program) t.join();
  done.store(true);
  background.join();
  tracer.join();
  sampler.Stop();
  model::Profile rest;
  sampler.Drain(&rest);
  for (const model::PcSampleCount& s : rest.pc_samples) drained += s.samples;

  EXPECT_GT(calls.made.load(), 0u);
  EXPECT_EQ(static_cast<uint64_t>(sampler.Notes().source_samples.value_or(-1)), calls.made.load());
  EXPECT_EQ(drained, calls.made.load());
}

}  // namespace
}  // namespace cuscope::collect
