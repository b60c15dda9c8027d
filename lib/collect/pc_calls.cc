// CUPTI's PC Sampling API behind PcCalls (pc_calls.h). Each context gets two buffers
// of PC records, each PC with room for every stall reason: the one handed to CUPTI in
// the configuration (CUPTI fills it itself when a module unloads and when sampling is
// disabled) and the one each cuptiPCSamplingGetData fills.
#include "lib/collect/pc_calls.h"

#include <cupti.h>
#include <cupti_pcsampling.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "lib/collect/cupti_result.h"
#include "lib/collect/driver.h"

namespace cuscope::collect {
namespace {

// PC records with room for `reasons` stall reasons each.
struct PcBuffer {
  PcBuffer(size_t pcs, size_t reasons) : records(pcs), stalls(pcs * reasons) {
    for (size_t i = 0; i < pcs; ++i) {
      records[i].size = sizeof(CUpti_PCSamplingPCData);
      records[i].stallReason = stalls.data() + i * reasons;
    }
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = pcs;
    data.pPcData = records.data();
  }
  // Appends the records CUPTI wrote and the totals, then marks the buffer empty.
  void MoveTo(RawPcData* out) {
    for (size_t i = 0; i < data.totalNumPcs && i < records.size(); ++i) {
      const CUpti_PCSamplingPCData& r = records[i];
      RawPc& pc = out->pcs.emplace_back();
      pc.cubin_crc = r.cubinCrc;
      pc.pc_offset = r.pcOffset;
      // CUPTI shares the name among records and may hand it over again: kept, not freed.
      pc.function = r.functionName != nullptr ? r.functionName : "";
      for (size_t j = 0; j < r.stallReasonCount; ++j) {
        const uint32_t index = r.stallReason[j].pcSamplingStallReasonIndex;  // packed: copied
        const uint32_t samples = r.stallReason[j].samples;
        pc.stalls.emplace_back(index, samples);
      }
    }
    out->total_samples += data.totalSamples;
    out->dropped_samples += data.droppedSamples;
    out->non_user_samples += data.nonUsrKernelsTotalSamples;
    out->buffer_full = out->buffer_full || data.hardwareBufferFull != 0;
    data.totalNumPcs = 0;
    data.totalSamples = data.droppedSamples = data.nonUsrKernelsTotalSamples = 0;
    data.hardwareBufferFull = 0;
  }
  std::vector<CUpti_PCSamplingPCData> records;
  std::vector<CUpti_PCSamplingStallReason> stalls;
  CUpti_PCSamplingData data{};
};

struct ContextState {
  std::unique_ptr<PcBuffer> configured, drain;
  std::vector<uint32_t> indices;
};

absl::Status Failed(const char* what, CUptiResult r) {
  return absl::UnavailableError(absl::StrCat(what, ": ", CuptiResultString(r)));
}

class CuptiPcCalls final : public PcCalls {
 public:
  absl::StatusOr<std::map<uint32_t, std::string>> Begin(CUcontext ctx,
                                                        const PcConfig& config) override {
    CUpti_PCSamplingEnableParams enable = {CUpti_PCSamplingEnableParamsSize};
    enable.ctx = ctx;
    if (CUptiResult r = cuptiPCSamplingEnable(&enable); r != CUPTI_SUCCESS) {
      return Failed("cuptiPCSamplingEnable", r);
    }
    auto state = std::make_unique<ContextState>();
    absl::StatusOr<std::map<uint32_t, std::string>> names = Configure(ctx, config, *state);
    if (names.ok()) {
      CUpti_PCSamplingStartParams start = {CUpti_PCSamplingStartParamsSize};
      start.ctx = ctx;
      if (CUptiResult r = cuptiPCSamplingStart(&start); r != CUPTI_SUCCESS) {
        names = Failed("cuptiPCSamplingStart", r);
      }
    }
    if (!names.ok()) {
      Disable(ctx);
      return names;
    }
    std::lock_guard<std::mutex> lock(mu_);
    contexts_[ctx] = std::move(state);
    return names;
  }

  absl::Status Collect(CUcontext ctx, RawPcData* out) override {
    ContextState* state = Find(ctx);
    if (state == nullptr) return absl::NotFoundError("PC sampling is not enabled on this context");
    state->configured->MoveTo(out);  // what a module unload left there
    CUpti_PCSamplingGetDataParams get = {CUpti_PCSamplingGetDataParamsSize};
    get.ctx = ctx;
    get.pcSamplingData = &state->drain->data;
    // Bounded: a context sampled faster than it drains still lets the caller go on.
    for (int round = 0; round < 1000; ++round) {
      CUptiResult r = cuptiPCSamplingGetData(&get);
      const bool full = state->drain->data.hardwareBufferFull != 0;
      state->drain->MoveTo(out);
      if (r != CUPTI_SUCCESS) {
        if (full) return absl::OkStatus();  // out->buffer_full says so
        return Failed("cuptiPCSamplingGetData", r);
      }
      if (state->drain->data.remainingNumPcs == 0) break;
    }
    return absl::OkStatus();
  }

  absl::Status End(CUcontext ctx, RawPcData* out) override {
    if (Find(ctx) == nullptr) return absl::OkStatus();
    CUpti_PCSamplingStopParams stop = {CUpti_PCSamplingStopParamsSize};
    stop.ctx = ctx;
    CUptiResult stopped = cuptiPCSamplingStop(&stop);
    absl::Status status = Collect(ctx, out);
    Disable(ctx);
    std::unique_ptr<ContextState> state;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = contexts_.find(ctx);
      if (it != contexts_.end()) {
        state = std::move(it->second);
        contexts_.erase(it);
      }
    }
    if (state != nullptr) state->configured->MoveTo(out);  // what disabling flushed
    if (stopped != CUPTI_SUCCESS && status.ok()) return Failed("cuptiPCSamplingStop", stopped);
    return status;
  }

  uint32_t DeviceOf(CUcontext ctx) override {
    uint32_t device = 0;
    return cuptiGetDeviceId(ctx, &device) == CUPTI_SUCCESS ? device : 0;
  }

  CUcontext CurrentContext() override {
    // The driver as the program loaded it: never loaded (or initialized) by cuscope.
    using GetCurrent = CUresult (*)(CUcontext*);
    auto get = reinterpret_cast<GetCurrent>(LoadedDriverSymbol("cuCtxGetCurrent"));
    CUcontext ctx = nullptr;
    return get != nullptr && get(&ctx) == CUDA_SUCCESS ? ctx : nullptr;
  }

  std::optional<uint64_t> CubinCrc(const void* cubin, size_t size) override {
    CUpti_GetCubinCrcParams p = {CUpti_GetCubinCrcParamsSize};
    p.cubin = cubin;
    p.cubinSize = size;
    if (cubin == nullptr || size == 0 || cuptiGetCubinCrc(&p) != CUPTI_SUCCESS) return std::nullopt;
    return p.cubinCrc;
  }

  std::optional<PcSourceLine> LineOf(const void* cubin, size_t size, const std::string& function,
                                     uint64_t pc_offset) override {
    CUpti_GetSassToSourceCorrelationParams p = {CUpti_GetSassToSourceCorrelationParamsSize};
    p.cubin = cubin;
    p.cubinSize = size;
    p.functionName = function.c_str();
    p.pcOffset = pc_offset;
    const CUptiResult r = cuptiGetSassToSourceCorrelation(&p);
    std::optional<PcSourceLine> line;
    if (r == CUPTI_SUCCESS && p.lineNumber != 0 && p.fileName != nullptr) {
      const std::string dir = p.dirName != nullptr ? p.dirName : "";
      const std::string file = p.fileName;
      line = PcSourceLine{dir.empty() || file.front() == '/' ? file : absl::StrCat(dir, "/", file),
                          p.lineNumber};
    }
    std::free(p.fileName);  // CUPTI's allocations, the caller's to free
    std::free(p.dirName);
    return line;
  }

 private:
  absl::StatusOr<std::map<uint32_t, std::string>> Configure(CUcontext ctx, const PcConfig& config,
                                                            ContextState& state) {
    size_t count = 0;
    CUpti_PCSamplingGetNumStallReasonsParams num = {CUpti_PCSamplingGetNumStallReasonsParamsSize};
    num.ctx = ctx;
    num.numStallReasons = &count;
    if (CUptiResult r = cuptiPCSamplingGetNumStallReasons(&num); r != CUPTI_SUCCESS) {
      return Failed("cuptiPCSamplingGetNumStallReasons", r);
    }
    if (count == 0) return absl::UnavailableError("the device has no PC sampling stall reasons");
    std::vector<std::vector<char>> text(count, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
    std::vector<char*> names(count);
    for (size_t i = 0; i < count; ++i) names[i] = text[i].data();
    state.indices.assign(count, 0);
    CUpti_PCSamplingGetStallReasonsParams get = {CUpti_PCSamplingGetStallReasonsParamsSize};
    get.ctx = ctx;
    get.numStallReasons = count;
    get.stallReasonIndex = state.indices.data();
    get.stallReasons = names.data();
    if (CUptiResult r = cuptiPCSamplingGetStallReasons(&get); r != CUPTI_SUCCESS) {
      return Failed("cuptiPCSamplingGetStallReasons", r);
    }
    std::map<uint32_t, std::string> by_index;
    for (size_t i = 0; i < count; ++i) {
      text[i].back() = '\0';
      by_index[state.indices[i]] = text[i].data();
    }
    state.configured = std::make_unique<PcBuffer>(config.pcs_per_drain, count);
    state.drain = std::make_unique<PcBuffer>(config.pcs_per_drain, count);
    if (absl::Status s = SetAttributes(ctx, config, state); !s.ok()) return s;
    return by_index;
  }

  static absl::Status SetAttributes(CUcontext ctx, const PcConfig& config, ContextState& state) {
    std::vector<CUpti_PCSamplingConfigurationInfo> info(7);
    info[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
    info[0].attributeData.collectionModeData.collectionMode =
        CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
    info[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
    info[1].attributeData.samplingPeriodData.samplingPeriod = config.period;
    info[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
    info[2].attributeData.stallReasonData.stallReasonCount = state.indices.size();
    info[2].attributeData.stallReasonData.pStallReasonIndex = state.indices.data();
    info[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
    info[3].attributeData.scratchBufferSizeData.scratchBufferSize = config.scratch_bytes;
    info[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE;
    info[4].attributeData.hardwareBufferSizeData.hardwareBufferSize = config.hardware_bytes;
    info[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
    info[5].attributeData.samplingDataBufferData.samplingDataBuffer = &state.configured->data;
    info[6].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
    info[6].attributeData.enableStartStopControlData.enableStartStopControl = 1;
    CUpti_PCSamplingConfigurationInfoParams p = {CUpti_PCSamplingConfigurationInfoParamsSize};
    p.ctx = ctx;
    p.numAttributes = info.size();
    p.pPCSamplingConfigurationInfo = info.data();
    if (CUptiResult r = cuptiPCSamplingSetConfigurationAttribute(&p); r != CUPTI_SUCCESS) {
      for (const auto& i : info) {
        if (i.attributeStatus != CUPTI_SUCCESS) {
          return Failed(absl::StrCat("PC sampling configuration attribute ",
                                     static_cast<int>(i.attributeType))
                            .c_str(),
                        i.attributeStatus);
        }
      }
      return Failed("cuptiPCSamplingSetConfigurationAttribute", r);
    }
    return absl::OkStatus();
  }

  static void Disable(CUcontext ctx) {
    CUpti_PCSamplingDisableParams p = {CUpti_PCSamplingDisableParamsSize};
    p.ctx = ctx;
    cuptiPCSamplingDisable(&p);
  }

  ContextState* Find(CUcontext ctx) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = contexts_.find(ctx);
    return it != contexts_.end() ? it->second.get() : nullptr;
  }

  std::mutex mu_;  // contexts_ (a context's buffers are used by one caller at a time)
  std::map<CUcontext, std::unique_ptr<ContextState>> contexts_;
};

}  // namespace

std::unique_ptr<PcCalls> MakeCuptiPcCalls() { return std::make_unique<CuptiPcCalls>(); }

}  // namespace cuscope::collect
