__constant__ float coeffs[16];
__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a * coeffs[i & 15];
}
__global__ void block_sum(const float* in, float* out) {
  extern __shared__ float dyn[];
  __shared__ float tile[256];
  tile[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x] + dyn[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) { float s = 0; for (int i = 0; i < 256; ++i) s += tile[i]; out[blockIdx.x] = s; }
}
