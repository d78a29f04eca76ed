//@app softmax.cu
//@kernel layernorm_rows
//@expect admit
//@what [style of layernorm_cg_float4, helper_math.h style] __device__ operator overloads for float4 (float4 - float, float4 * float4, float4 + float4) that the original never uses (float4 has no built-in operators), cg::reduce in the kernel with the namespace alias inside the kernel
//@@ includes
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdint>
//@@ before
__device__ __forceinline__ float4 operator-(float4 a, float b) { return make_float4(a.x - b, a.y - b, a.z - b, a.w - b); }
__device__ __forceinline__ float4 operator*(float4 a, float b) { return make_float4(a.x * b, a.y * b, a.z * b, a.w * b); }
__device__ __forceinline__ float4 operator*(float4 a, float4 b) { return make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w); }
__device__ __forceinline__ float4 operator+(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
//@@ kernel
__global__ void layernorm_rows(const float* in, const float* gamma, const float* beta, float* out, int cols, float eps) {
  namespace cg = cooperative_groups;
  __shared__ float red[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int row = blockIdx.x;
  const float* x = in + (size_t)row * cols;
  float* o = out + (size_t)row * cols;
  const int nwarps = (int)((block.size() + 31) / 32);
  const bool vec = cols % 4 == 0 && ((reinterpret_cast<std::uintptr_t>(x) | reinterpret_cast<std::uintptr_t>(o) |
                                      reinterpret_cast<std::uintptr_t>(gamma) | reinterpret_cast<std::uintptr_t>(beta)) & 15u) == 0;
  auto block_sum = [&](float v) {
    v = cg::reduce(warp, v, cg::plus<float>());
    block.sync();
    if (warp.thread_rank() == 0) red[warp.meta_group_rank()] = v;
    block.sync();
    float r = 0.0f;
    for (int w = 0; w < nwarps; ++w) r += red[w];
    return r;
  };
  float s = 0.0f;
  for (int c = block.thread_rank(); c < cols; c += block.size()) s += x[c];
  const float mean = block_sum(s) / cols;
  float q = 0.0f;
  for (int c = block.thread_rank(); c < cols; c += block.size()) q += (x[c] - mean) * (x[c] - mean);
  const float rstd = rsqrtf(block_sum(q) / cols + eps);
  if (vec) {
    for (int c = block.thread_rank(); c < cols / 4; c += block.size()) {
      const float4 v = reinterpret_cast<const float4*>(x)[c];
      reinterpret_cast<float4*>(o)[c] = (v - mean) * rstd * reinterpret_cast<const float4*>(gamma)[c] + reinterpret_cast<const float4*>(beta)[c];
    }
  } else {
    for (int c = block.thread_rank(); c < cols; c += block.size()) o[c] = (x[c] - mean) * rstd * gamma[c] + beta[c];
  }
}
