//@app softmax.cu
//@kernel layernorm_rows
//@expect admit
//@what cub::BlockReduce<float, 256, BLOCK_REDUCE_WARP_REDUCTIONS> for both sums, __launch_bounds__(256, 4) added
//@@ includes
#include <cub/block/block_reduce.cuh>
//@@ kernel
__global__ void __launch_bounds__(256, 4) layernorm_rows(const float* in, const float* gamma, const float* beta, float* out, int cols, float eps) {
  using BlockReduce = cub::BlockReduce<float, 256, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
  __shared__ typename BlockReduce::TempStorage tmp;
  __shared__ float bcast;
  const int row = blockIdx.x;
  const float* x = in + (size_t)row * cols;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[c];
  s = BlockReduce(tmp).Sum(s);
  if (threadIdx.x == 0) bcast = s / cols;
  __syncthreads();
  const float mean = bcast;
  float v = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) v += (x[c] - mean) * (x[c] - mean);
  v = BlockReduce(tmp).Sum(v);
  __syncthreads();
  if (threadIdx.x == 0) bcast = rsqrtf(v / cols + eps);
  __syncthreads();
  const float rstd = bcast;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[(size_t)row * cols + c] = (x[c] - mean) * rstd * gamma[c] + beta[c];
}
