//@app softmax.cu
//@kernel softmax_rows
//@expect admit
//@what one templated block all-reduce helper (if constexpr picks max or sum), a constexpr __host__ __device__ function, static_assert in the kernel
//@@ before
__host__ __device__ constexpr int warps_for(int threads) { return (threads + 31) / 32; }

template <bool kIsMax>
__device__ __forceinline__ float block_allreduce(float v, float* red) {
  auto op = [](float a, float b) {
    if constexpr (kIsMax) return fmaxf(a, b);
    else return a + b;
  };
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  __syncthreads();
  if (lane == 0) red[warp] = v;
  __syncthreads();
  float r = red[0];
  for (int w = 1; w < warps_for(blockDim.x); ++w) r = op(r, red[w]);
  return r;
}
//@@ kernel
__global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  static_assert(warps_for(1024) == 32, "one shared slot per warp of the largest block");
  __shared__ float red[warps_for(1024)];
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
  m = block_allreduce<true>(m, red);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(x[c] - m);
  s = block_allreduce<false>(s, red);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - m) / s;
}
