// The kernel that examples/module_unload loads, unloads and loads again (a cubin built
// with -lineinfo: PC samples map to the line marked HOT_LOOP).
extern "C" __global__ void busy_kernel(float* out, int iterations) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = static_cast<float>(i) * 1e-6f, y = 1.0001f;
  for (int k = 0; k < iterations; ++k) {
    x = x * y + 0.5f;  // HOT_LOOP
  }
  out[i] = x;
}
