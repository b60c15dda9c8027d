// Copied from shared/device/cupti-floor/floor.cc (the project's reference floor), unchanged
// but for this line, so that it travels to the GPU machine with the repository.
// The cost floor of any CUPTI activity tracer: an injection library that enables the
// activity kinds named in CUPTI_FLOOR_KINDS (comma list of kernel, runtime, driver,
// memcpy, sync, marker; default kernel,runtime) and only counts the records.
// Build:  g++ -O2 -fPIC -shared floor.cc -I/usr/local/cuda/include \
//           -L/usr/local/cuda/lib64 -lcupti -o libcupti_floor.so
// Use:    CUDA_INJECTION64_PATH=$PWD/libcupti_floor.so CUPTI_FLOOR_KINDS=kernel,runtime ./app
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
std::atomic<long> g_kernels{0}, g_other{0};

void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8 << 20;
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI OnBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
      ++g_kernels;
    else
      ++g_other;
  }
  free(buffer);
}

void AtExit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped);
  fprintf(stderr, "[cupti-floor] kernels=%ld other=%ld dropped=%zu\n", g_kernels.load(),
          g_other.load(), dropped);
}
}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  const char* kinds = getenv("CUPTI_FLOOR_KINDS");
  if (kinds == nullptr) kinds = "kernel,runtime";
  cuptiActivityRegisterCallbacks(OnBufferRequested, OnBufferCompleted);
  if (strstr(kinds, "kernel")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (strstr(kinds, "runtime")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
  if (strstr(kinds, "driver")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
  if (strstr(kinds, "memcpy")) {
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  }
  if (strstr(kinds, "sync")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  if (strstr(kinds, "marker")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER);
  atexit(AtExit);
  return 1;
}
