// Kernels for the code-object reader tests (tests/test_code_object.cpp), compiled by
// tests/data/hip/make_code_objects.sh with Debian's hipcc for gfx90a, gfx940 and gfx1030.
#include <hip/hip_runtime.h>

// Plain element-wise kernel: no LDS, no scratch, default 1024-thread bound.
__global__ void add_one(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

// Static LDS: 256 floats = 1024 bytes of group segment.
__global__ void tile_sum(const float* in, float* out) {
  __shared__ float tile[256];
  tile[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (int i = 0; i < 256; ++i) s += tile[i];
    out[blockIdx.x] = s;
  }
}

// Forces an accumulation VGPR (AGPR) on targets that have them; 256-thread bound.
__global__ void __launch_bounds__(256) uses_agprs(float* x) {
  float v = x[threadIdx.x];
#if defined(__gfx90a__) || defined(__gfx940__)
  float acc;
  asm volatile("v_accvgpr_write_b32 %0, %1" : "=a"(acc) : "v"(v));
  asm volatile("v_accvgpr_read_b32 %0, %1" : "=v"(v) : "a"(acc));
#endif
  x[threadIdx.x] = v * 2.0f;
}

// A dynamically indexed volatile array lives in scratch: at least 64 * 4 = 256 bytes per work-item.
__global__ void uses_scratch(float* x, int k) {
  volatile float buf[64];
  for (int i = 0; i < 64; ++i) buf[i] = x[i * k];
  x[0] = buf[k & 63];
}

// Only the host executable and the shared library need this.
int main() { return 0; }
