//@app softmax.cu
//@kernel layernorm_rows
//@expect admit
//@what cooperative groups (cg::reduce over tiled_partition<32>, block.sync), float4 loads of the row, gamma and beta and float4 stores when aligned; scalar path otherwise
//@@ includes
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdint>
//@@ before
namespace cg = cooperative_groups;

__device__ __forceinline__ bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }
//@@ kernel
__global__ void layernorm_rows(const float* in, const float* gamma, const float* beta, float* out, int cols, float eps) {
  __shared__ float red[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int row = blockIdx.x;
  const float* x = in + (size_t)row * cols;
  float* o = out + (size_t)row * cols;
  const int nwarps = (int)((block.size() + 31) / 32);
  const bool vec = cols % 4 == 0 && aligned16(x) && aligned16(o) && aligned16(gamma) && aligned16(beta);
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
  if (vec) {
    for (int c = block.thread_rank(); c < cols / 4; c += block.size()) {
      const float4 v = reinterpret_cast<const float4*>(x)[c];
      s += (v.x + v.y) + (v.z + v.w);
    }
  } else {
    for (int c = block.thread_rank(); c < cols; c += block.size()) s += x[c];
  }
  const float mean = block_sum(s) / cols;
  float q = 0.0f;
  for (int c = block.thread_rank(); c < cols; c += block.size()) q += (x[c] - mean) * (x[c] - mean);
  const float rstd = rsqrtf(block_sum(q) / cols + eps);
  if (vec) {
    for (int c = block.thread_rank(); c < cols / 4; c += block.size()) {
      const float4 v = reinterpret_cast<const float4*>(x)[c];
      const float4 g = reinterpret_cast<const float4*>(gamma)[c];
      const float4 b = reinterpret_cast<const float4*>(beta)[c];
      reinterpret_cast<float4*>(o)[c] = make_float4((v.x - mean) * rstd * g.x + b.x, (v.y - mean) * rstd * g.y + b.y,
                                                     (v.z - mean) * rstd * g.z + b.z, (v.w - mean) * rstd * g.w + b.w);
    }
  } else {
    for (int c = block.thread_rank(); c < cols; c += block.size()) o[c] = (x[c] - mean) * rstd * gamma[c] + beta[c];
  }
}
