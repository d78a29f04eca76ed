//@app dense.cu
//@kernel stencil
//@what the block's inputs and a 2-element halo staged in shared memory, same arithmetic per output
__global__ void stencil(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[256 + 4];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int t = threadIdx.x + 2;
  tile[t] = i < n ? in[i] : 0.0f;
  if (threadIdx.x < 2) {
    int left = i - 2, right = i + blockDim.x;
    tile[threadIdx.x] = left >= 0 && left < n ? in[left] : 0.0f;
    tile[t + blockDim.x] = right < n ? in[right] : 0.0f;
  }
  __syncthreads();
  if (i < 2 || i >= n - 2) return;
  out[i] = 0.1f * tile[t - 2] + 0.2f * tile[t - 1] + 0.4f * tile[t] + 0.2f * tile[t + 1] + 0.1f * tile[t + 2];
}
