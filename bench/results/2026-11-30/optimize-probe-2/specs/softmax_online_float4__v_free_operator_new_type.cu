//@app softmax.cu
//@kernel softmax_rows
//@expect admit
//@what [style of softmax_online_float4] the merge of two (max, sum) pairs as a free operator+ of the new struct (a __device__ operator function for a type the original does not have)
//@@ includes
#include <cstdint>
//@@ before
struct MaxSum {
  float m;
  float s;
};

__device__ __forceinline__ MaxSum operator+(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return {m, 0.0f};
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

__device__ __forceinline__ MaxSum warp_merge(MaxSum v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = v + MaxSum{__shfl_xor_sync(0xffffffffu, v.m, o), __shfl_xor_sync(0xffffffffu, v.s, o)};
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
  MaxSum acc{-INFINITY, 0.0f};
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc = acc + MaxSum{x[c], 1.0f};
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
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - m) / s;
}
