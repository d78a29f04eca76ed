//@app softmax.cu
//@kernel softmax_rows
//@expect admit
//@what cub::BlockReduce<float, 256> for the max (cuda::maximum) and the sum; the block size is the launch's
//@@ includes
#include <cub/block/block_reduce.cuh>
#include <cuda/functional>
//@@ kernel
__global__ void __launch_bounds__(256) softmax_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  using BlockReduce = cub::BlockReduce<float, 256>;
  __shared__ typename BlockReduce::TempStorage tmp;
  __shared__ float stat;
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
  m = BlockReduce(tmp).Reduce(m, cuda::maximum<>{});
  if (threadIdx.x == 0) stat = m;
  __syncthreads();
  m = stat;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(x[c] - m);
  s = BlockReduce(tmp).Sum(s);
  __syncthreads();
  if (threadIdx.x == 0) stat = s;
  __syncthreads();
  s = stat;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - m) / s;
}
