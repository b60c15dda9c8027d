// Development probe: how to make a rotate set's counter image cheaper than
// re-initializing 1,591 MiB after every set (H200, session 10: CUPTI's initialization of
// the sol image for 2,048 ranges takes 530-620 ms, the zero fill before it 160-190 ms;
// values are the same without the fill).
//   image_size_probe
// Three questions, each answered by one printed block:
//  append: a used image, not re-initialized, given to the next set (SetConfig pass 0):
//          does CUPTI refuse, overwrite range 0, or append after the ranges it holds?
//  cut:    sets whose later passes hold fewer launches or none (rotate's cut sets):
//          how many ranges each adds to the image.
//  uneven: sets cut in a later pass (W, W, k, 0, ...), then a set of other launches:
//          where CUPTI writes after each shape.
//  grow:   a 64-range image, then a new 2,048-range one through SetConfig alone, with a
//          set of 600 launches a pass: does it decode 600 ranges in order?
//  resize: a new, smaller image given to SetConfig on the same Range Profiler object:
//          does the next set decode into it (session 5 saw the old one used)?
//  sizes:  Disable + Enable, then an image of 64..2048 ranges: the time of each step,
//          and whether a set decodes right into it.
//  grow-after: the sampler's own sequence before its failed growth (H200, session 11:
//          a set of 581 launches a pass decoded 128 ranges, 0 dropped, from a new
//          2,048-range image): sets cut or whole in 64- and 128-range images, then the
//          buffer grown to 2,048 ranges for 600 launches a pass; with and without a
//          Disable + Enable before the growth.
//   image_size_probe [case ...]   (no argument: every case)
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include "probe_cupti.h"
#include "probe_sol.cuh"

namespace {

struct Rig {
  int n = 1 << 24;
  float* x = nullptr;
  float* y = nullptr;
  CUpti_RangeProfiler_Object* profiler = nullptr;
  HostConfig config;

  bool SetConfig(std::vector<uint8_t>& data, size_t max_ranges) {
    return ProbeOk(TrySetRangeConfig(profiler, config.image, data, CUPTI_AutoRange, CUPTI_UserReplay,
                                max_ranges, 0),
              "SetConfig");
  }
  // One set of `launches` launches a pass, every pass (`later`: in the passes after
  // the first, -1 for as many); then DecodeData.
  bool RunSet(int launches, size_t* dropped, int later = -1) {
    return RunShape({launches, later < 0 ? launches : later}, 0, dropped, /*halve=*/false);
  }
  // One set whose pass k has counts[k] launches (the last count repeats), launch j of a
  // pass on n >> shift elements, halved j times with `halve` (so that its duration tells
  // it apart); then DecodeData.
  bool RunShape(const std::vector<int>& counts, int shift, size_t* dropped, bool halve = true) {
    return RunPasses([&](size_t pass) { return counts[std::min(pass, counts.size() - 1)]; },
                     [&](int j) { return n >> (shift + (halve ? j : 0)); }, dropped);
  }
  // A set of `launches` launches every pass, launch j on n >> (j % 4) elements.
  bool RunCycle(int launches, size_t* dropped) {
    return RunPasses([&](size_t) { return launches; }, [&](int j) { return n >> (j % 4); },
                     dropped);
  }
  // Passes until CUPTI has them all: pass k launches count(k) SAXPYs, launch j on
  // size(j) elements; then DecodeData.
  template <typename Count, typename Size>
  bool RunPasses(Count count, Size size, size_t* dropped) {
    bool all = false;
    for (size_t pass = 0; !all && pass < 64; ++pass) {
      CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
      st.pRangeProfilerObject = profiler;
      if (!ProbeOk(cuptiRangeProfilerStart(&st), "Start")) return false;
      for (int j = 0; j < count(pass); ++j) {
        const int m = size(j);
        saxpy<<<(m + 255) / 256, 256>>>(m, 2, x, y);
      }
      CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
      sp.pRangeProfilerObject = profiler;
      if (!ProbeOk(cuptiRangeProfilerStop(&sp), "Stop")) return false;
      all = sp.isAllPassSubmitted;
    }
    CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = profiler;
    if (!ProbeOk(cuptiRangeProfilerDecodeData(&dd), "DecodeData")) return false;
    *dropped = dd.numOfRangeDropped;
    return true;
  }
  // Whether the ranges of a RunCycle set follow its sizes: the median duration of each
  // size class (j % 4), and how many ranges are out of order (a range not shorter than
  // the one before it within a cycle) or do not evaluate.
  void DescribeCycle(std::vector<uint8_t>& data, int launches) {
    std::vector<double> dur(launches, 0);
    int bad = 0;
    for (int i = 0; i < launches; ++i) {
      std::vector<double> v = EvaluateRange(config.host, data, i, kSol);
      dur[i] = v[0];
      if (!(v[0] > 0) || !(v[1] >= 0)) ++bad;
    }
    int out_of_order = 0;
    for (int i = 0; i < launches; ++i) {
      if (i % 4 != 0 && !(dur[i] < dur[i - 1])) ++out_of_order;
    }
    std::vector<double> median;
    for (int r = 0; r < 4; ++r) {
      std::vector<double> c;
      for (int i = r; i < launches; i += 4) c.push_back(dur[i]);
      std::sort(c.begin(), c.end());
      median.push_back(c[c.size() / 2]);
    }
    printf("  cycle: median duration by size n, n/2, n/4, n/8: %.0f %.0f %.0f %.0f ns; %d of %d "
           "out of order, %d not evaluated\n",
           median[0], median[1], median[2], median[3], out_of_order, launches, bad);
  }
  // "N ranges; durations r0 r1 ..." of an image.
  void Describe(const char* label, std::vector<uint8_t>& data) {
    CUpti_RangeProfiler_GetCounterDataInfo_Params inf = {
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    inf.pCounterDataImage = data.data();
    inf.counterDataImageSize = data.size();
    if (!ProbeOk(cuptiRangeProfilerGetCounterDataInfo(&inf), "GetCounterDataInfo")) return;
    printf("  %s: %zu ranges; duration (ns) / SM %% of each:", label, inf.numTotalRanges);
    for (size_t i = 0; i < inf.numTotalRanges && i < 12; ++i) {
      std::vector<double> v = EvaluateRange(config.host, data, i, kSol);
      printf(" %.0f/%.1f", v[0], v[1]);
    }
    printf("\n");
  }
};

void Append(Rig& rig) {
  printf("append: a 2048-range image, 4 launches a set, not re-initialized between sets\n");
  std::vector<uint8_t> data = RangeCounterData(rig.profiler, kSol, 2048);
  for (int s = 0; s < 3; ++s) {
    size_t dropped = 0;
    if (!rig.SetConfig(data, 2048) || !rig.RunSet(4, &dropped)) return;
    printf("  set %d: %zu dropped\n", s, dropped);
    rig.Describe("image", data);
  }
}

// Rotate cuts a set short (the sequence left its period) by submitting its remaining
// passes empty; a set can also be cut before its first launch.
void Cut(Rig& rig) {
  printf("cut: sets with passes after the first empty, appended to one 64-range image\n");
  std::vector<uint8_t> data = RangeCounterData(rig.profiler, kSol, 64);
  const int sets[][2] = {{4, 4}, {4, 0}, {4, 2}, {0, 0}, {3, 3}, {6, 6}};
  for (const auto& set : sets) {
    size_t dropped = 0;
    if (!rig.SetConfig(data, 64) || !rig.RunSet(set[0], &dropped, set[1])) return;
    printf("  set of %d launches, %d in later passes: %zu dropped\n", set[0], set[1], dropped);
    rig.Describe("image", data);
  }
}

// Rotate's cut sets as they come: W launches in the first passes, k < W in the pass
// where the sequence left its period, none in the passes after it. Each shape on a
// fresh image (launches of 2^24, 2^23, 2^22, 2^21 elements), then a set of 3 launches
// a pass on 2^18, 2^17, 2^16 elements: where its (shorter) durations land says where
// CUPTI wrote it.
void Uneven(Rig& rig) {
  printf("uneven: a cut set, then a set of 3 (durations tell the sets apart)\n");
  const std::vector<std::vector<int>> shapes = {{4, 4, 2, 0}, {4, 4, 4, 4, 4, 4, 4, 4, 2},
                                                {4, 4, 0},    {4, 3, 2, 1, 0},
                                                {4, 4, 4, 4, 4, 4, 4, 2, 0}, {0}};
  for (const auto& shape : shapes) {
    std::vector<uint8_t> data = RangeCounterData(rig.profiler, kSol, 64);
    std::string text;
    for (int k : shape) text += std::to_string(k) + " ";
    size_t dropped = 0;
    if (shape[0] == 0) {  // a set cut before any launch, after a set of 4 launches
      if (!rig.SetConfig(data, 64) || !rig.RunShape({4}, 0, &dropped)) return;
      rig.Describe("a set of 4 first", data);
    }
    if (!rig.SetConfig(data, 64) || !rig.RunShape(shape, 0, &dropped)) return;
    printf("  shape %s(last repeats): %zu dropped\n", text.c_str(), dropped);
    rig.Describe("after it", data);
    if (!rig.SetConfig(data, 64) || !rig.RunShape({3}, 6, &dropped)) return;
    rig.Describe("after the set of 3", data);
  }
}

void Resize(Rig& rig) {
  printf("resize: a new 64-range image given to SetConfig, no Disable/Enable\n");
  std::vector<uint8_t> old_image = RangeCounterData(rig.profiler, kSol, 2048);
  size_t dropped = 0;
  if (!rig.SetConfig(old_image, 2048) || !rig.RunSet(4, &dropped)) return;
  rig.Describe("first set, 2048-range image", old_image);
  std::vector<uint8_t> small = RangeCounterData(rig.profiler, kSol, 64);
  if (!rig.SetConfig(small, 64) || !rig.RunSet(4, &dropped)) return;
  printf("  second set: %zu dropped\n", dropped);
  rig.Describe("second set, 64-range image", small);
  rig.Describe("second set, the 2048-range image", old_image);
}

// Per-set sizing needs an image to grow: a small image for the warm-up's short sets,
// then a large one for a set of the step's period, given through SetConfig alone (no
// Disable/Enable). Session 5's per-set sizing saw a set decode "the 64 ranges of the
// image it had before". A set of 600 launches a pass (sizes cycling n, n/2, n/4, n/8)
// into a new 2,048-range image after a 64-range one: ranges decoded, dropped, and
// whether the durations cycle as launched; then back to 64 and up to 2,048 again.
void Grow(Rig& rig) {
  printf("grow: 64-range image, then the buffer resized to 2048 ranges, SetConfig alone\n");
  const std::vector<int> sizes = {64, 2048, 64, 2048};
  std::vector<uint8_t> data;  // one buffer, resized as the sampler's (RangeProfiler)
  for (size_t k = 0; k < sizes.size(); ++k) {
    const size_t ranges = sizes[k];
    data.resize(RangeCounterDataSize(rig.profiler, kSol, ranges));
    InitializeRangeCounterData(rig.profiler, data);
    const int launches = ranges == 64 ? 4 : 600;
    size_t dropped = 0;
    auto t0 = std::chrono::steady_clock::now();
    if (!rig.SetConfig(data, ranges) || !rig.RunCycle(launches, &dropped)) return;
    printf("  image of %zu ranges, set of %d launches a pass: %.0f ms, %zu dropped\n", ranges,
           launches, Ms(t0), dropped);
    rig.Describe("decoded", data);
    if (launches > 12) rig.DescribeCycle(data, launches);
  }
}

// Re-enables the Range Profiler on the current context (frees CUPTI's state for it).
bool Reenable(Rig& rig) {
  rig.profiler = ReenableRangeProfiler(rig.profiler);
  return rig.profiler != nullptr;
}

void GrowAfter(Rig& rig) {
  printf("grow-after: sets in small images, then the buffer grown to 2048 ranges\n");
  struct Step {
    size_t capacity;
    std::vector<int> shape;  // launches in each pass (the last repeats)
  };
  struct Scenario {
    const char* name;
    std::vector<Step> steps;
    bool reenable;
  };
  const std::vector<Scenario> scenarios = {
      {"whole set in 128, grow", {{128, {53}}}, false},
      {"cut set in 128 (53 16 0), grow", {{128, {53, 16, 0}}}, false},
      {"64: 34 34 34 32 0; 128: 53 53 53 44 0; 128: 53 16 0; grow",
       {{64, {34, 34, 34, 32, 0}}, {128, {53, 53, 53, 44, 0}}, {128, {53, 16, 0}}},
       false},
      {"whole set in 128, 2048 after Disable + Enable", {{128, {53}}}, true},
      {"cut set in 128 (53 16 0), 2048 after Disable + Enable", {{128, {53, 16, 0}}}, true},
  };
  for (const Scenario& sc : scenarios) {
    printf(" %s\n", sc.name);
    std::vector<uint8_t> data;  // one buffer, as the sampler's
    size_t dropped = 0;
    for (const Step& st : sc.steps) {
      data.resize(RangeCounterDataSize(rig.profiler, kSol, st.capacity));
      InitializeRangeCounterData(rig.profiler, data);
      if (!rig.SetConfig(data, st.capacity) || !rig.RunShape(st.shape, 0, &dropped, false)) return;
      rig.Describe("  before", data);
    }
    if (sc.reenable && !Reenable(rig)) return;
    data.resize(RangeCounterDataSize(rig.profiler, kSol, 2048));
    InitializeRangeCounterData(rig.profiler, data);
    if (!rig.SetConfig(data, 2048) || !rig.RunCycle(600, &dropped)) return;
    printf("  600 launches a pass into 2048: %zu dropped\n", dropped);
    rig.Describe("  decoded", data);
    rig.DescribeCycle(data, 600);
  }
}

void Sizes(Rig& rig) {
  printf("sizes: Disable + Enable, then an image of N ranges\n");
  for (size_t ranges : {2048, 1024, 512, 256, 64}) {
    auto t0 = std::chrono::steady_clock::now();
    CUpti_RangeProfiler_Disable_Params dis = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dis.pRangeProfilerObject = rig.profiler;
    if (!ProbeOk(cuptiRangeProfilerDisable(&dis), "Disable")) return;
    const double disable_ms = Ms(t0);
    t0 = std::chrono::steady_clock::now();
    CUcontext ctx;
    cuCtxGetCurrent(&ctx);
    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    if (!ProbeOk(cuptiRangeProfilerEnable(&en), "Enable")) return;
    rig.profiler = en.pRangeProfilerObject;
    const double enable_ms = Ms(t0);
    t0 = std::chrono::steady_clock::now();
    std::vector<uint8_t> data(RangeCounterDataSize(rig.profiler, kSol, ranges));
    const double size_ms = Ms(t0);
    t0 = std::chrono::steady_clock::now();
    InitializeRangeCounterData(rig.profiler, data);
    const double init_ms = Ms(t0);
    t0 = std::chrono::steady_clock::now();
    if (!rig.SetConfig(data, ranges)) return;
    const double config_ms = Ms(t0);
    t0 = std::chrono::steady_clock::now();
    size_t dropped = 0;
    if (!rig.RunSet(4, &dropped)) return;
    const double set_ms = Ms(t0);
    printf("  %zu ranges (%.1f MiB): disable %.1f ms, enable %.1f ms, size %.1f ms, "
           "initialize %.1f ms, SetConfig %.1f ms, set of 4 launches %.1f ms, %zu dropped\n",
           ranges, data.size() / 1048576.0, disable_ms, enable_ms, size_ms, init_ms, config_ms,
           set_ms, dropped);
    rig.Describe("decoded", data);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Rig rig;
  cudaMalloc(&rig.x, rig.n * 4);
  cudaMalloc(&rig.y, rig.n * 4);
  cudaMemset(rig.x, 0, rig.n * 4);
  cudaMemset(rig.y, 0, rig.n * 4);
  saxpy<<<rig.n / 256, 256>>>(rig.n, 2, rig.x, rig.y);
  cudaDeviceSynchronize();
  rig.profiler = EnableRangeProfiler();
  rig.config = MakeHostConfig(ProbeChip(), CUPTI_PROFILER_TYPE_RANGE_PROFILER, kSol);
  printf("sol: %zu passes\n", rig.config.passes);
  const std::vector<std::pair<const char*, void (*)(Rig&)>> cases = {
      {"append", Append}, {"cut", Cut},       {"uneven", Uneven},       {"grow", Grow},
      {"resize", Resize}, {"sizes", Sizes},   {"grow-after", GrowAfter}};
  for (const auto& [name, run] : cases) {
    bool wanted = argc <= 1;
    for (int i = 1; i < argc; ++i) wanted = wanted || strcmp(argv[i], name) == 0;
    if (wanted) run(rig);
  }
  ReleaseHostConfig(rig.config);
  return 0;
}
