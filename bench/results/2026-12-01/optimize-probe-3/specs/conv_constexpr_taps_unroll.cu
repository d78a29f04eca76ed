//@app conv.cu
//@kernel conv2d_3x3
//@expect admit
//@what kernel-local static constexpr tap tables (dy, dx), a fully unrolled 9-tap loop (#pragma unroll with a constexpr trip count), the channel's 9 weights in registers; taps in the naive order with the same border test: bit-exact
//@@ kernel
__global__ void conv2d_3x3(const float* __restrict__ in, const float* __restrict__ wt, const float* __restrict__ bias,
                           float* __restrict__ out, int C, int K, int H, int W) {
  extern __shared__ float sw[];
  int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int j = tid; j < K * C * 9; j += blockDim.x * blockDim.y) sw[j] = wt[j];
  __syncthreads();
  static constexpr int kTaps = 9;
  static constexpr int kDy[kTaps] = {-1, -1, -1, 0, 0, 0, 1, 1, 1};
  static constexpr int kDx[kTaps] = {-1, 0, 1, -1, 0, 1, -1, 0, 1};
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  if (x >= W || y >= H) return;
  float acc = bias[k];
  for (int c = 0; c < C; ++c) {
    float wr[kTaps];
#pragma unroll
    for (int t = 0; t < kTaps; ++t) wr[t] = sw[(k * C + c) * kTaps + t];
#pragma unroll
    for (int t = 0; t < kTaps; ++t) {
      const int yy = y + kDy[t], xx = x + kDx[t];
      if (yy >= 0 && yy < H && xx >= 0 && xx < W) acc += in[((size_t)c * H + yy) * W + xx] * wr[t];
    }
  }
  out[((size_t)k * H + y) * W + x] = acc;
}
