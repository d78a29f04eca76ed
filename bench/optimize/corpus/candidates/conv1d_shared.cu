//@app tiles.cu
//@kernel conv1d
//@what the block's input window and the taps staged in shared memory, taps loop unrolled by 8
__global__ void conv1d(const float* __restrict__ in, const float* __restrict__ w, float* __restrict__ out, int n, int taps) {
  __shared__ float sw[64];
  __shared__ float win[256 + 64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (taps > 64) {  // not what the app uses, kept correct anyway
    if (i >= n - taps) return;
    float acc = 0.0f;
    for (int t = 0; t < taps; ++t) acc += in[i + t] * w[t];
    out[i] = acc;
    return;
  }
  if (threadIdx.x < taps) sw[threadIdx.x] = w[threadIdx.x];
  for (int j = threadIdx.x; j < blockDim.x + taps; j += blockDim.x) {
    int g = blockIdx.x * blockDim.x + j;
    win[j] = g < n ? in[g] : 0.0f;
  }
  __syncthreads();
  if (i >= n - taps) return;
  float acc = 0.0f;
#pragma unroll 8
  for (int t = 0; t < taps; ++t) acc += win[threadIdx.x + t] * sw[t];
  out[i] = acc;
}
