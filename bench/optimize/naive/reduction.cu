// Naive reduction: each thread sums a strided slice, then a shared-memory tree per block; one partial sum per
// block (no atomics, so the result is deterministic).
#include "common.cuh"

__global__ void reduce_naive(const float* __restrict__ in, float* __restrict__ partial, int n) {
  __shared__ float buf[256];
  int tid = threadIdx.x;
  int stride = gridDim.x * blockDim.x;
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += stride) s += in[i];
  buf[tid] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (tid < w) buf[tid] += buf[tid + w];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = buf[0];
}

int main() {
  const int n = 1 << 22, blocks = 512;
  float* in = to_device(random_floats(n, 1));
  float* partial = nullptr;
  CHECK(cudaMalloc(&partial, blocks * sizeof(float)));
  reduce_naive<<<blocks, 256>>>(in, partial, n);
  CHECK(cudaGetLastError());
  upload(in, random_floats(n, 2));
  reduce_naive<<<blocks, 256>>>(in, partial, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("reduction checksum %.6e\n", checksum(partial, blocks));
  return 0;
}
