//@app softmax.cu
//@kernel softmax_rows
//@expect admit
//@what online softmax (one pass for max and sum, rescaled; differs from the original only for NaN inputs, which the capture-based inputs never hold), float4 loads and stores when the row is 16-byte aligned, a struct and a merge helper, structured bindings
//@@ includes
#include <cstdint>
//@@ before
struct MaxSum {
  float m;
  float s;
};

__device__ __forceinline__ MaxSum merge_max_sum(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return {m, 0.0f};
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

__device__ __forceinline__ MaxSum warp_merge(MaxSum v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    MaxSum other{__shfl_xor_sync(0xffffffffu, v.m, o), __shfl_xor_sync(0xffffffffu, v.s, o)};
    v = merge_max_sum(v, other);
  }
  return v;
}
//@@ kernel
__global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ MaxSum red[32];
  __shared__ MaxSum total;
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  const bool vec = (cols % 4 == 0) && ((reinterpret_cast<std::uintptr_t>(x) | reinterpret_cast<std::uintptr_t>(y)) % 16 == 0);
  MaxSum acc{-INFINITY, 0.0f};
  auto add = [&acc](float v) { acc = merge_max_sum(acc, MaxSum{v, 1.0f}); };
  if (vec) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    for (int c = threadIdx.x; c < cols / 4; c += blockDim.x) {
      const float4 v = x4[c];
      add(v.x); add(v.y); add(v.z); add(v.w);
    }
  } else {
    for (int c = threadIdx.x; c < cols; c += blockDim.x) add(x[c]);
  }
  acc = warp_merge(acc);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
  if (lane == 0) red[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    MaxSum v = lane < nwarps ? red[lane] : MaxSum{-INFINITY, 0.0f};
    v = warp_merge(v);
    if (lane == 0) total = v;
  }
  __syncthreads();
  const auto [m, s] = total;
  if (vec) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (int c = threadIdx.x; c < cols / 4; c += blockDim.x) {
      const float4 v = x4[c];
      y4[c] = make_float4(expf(v.x - m) / s, expf(v.y - m) / s, expf(v.z - m) / s, expf(v.w - m) / s);
    }
  } else {
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - m) / s;
  }
}
