//@app conv.cu
//@kernel conv2d_3x3
//@expect admit
//@what a lambda 'tap' in the kernel, an interior fast path without border tests under __builtin_expect (interior pixels have every tap in range: the naive test is always true there), borders with the naive test; same order: bit-exact
//@@ kernel
__global__ void conv2d_3x3(const float* __restrict__ in, const float* __restrict__ wt, const float* __restrict__ bias,
                           float* __restrict__ out, int C, int K, int H, int W) {
  extern __shared__ float sw[];
  int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int j = tid; j < K * C * 9; j += blockDim.x * blockDim.y) sw[j] = wt[j];
  __syncthreads();
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  if (x >= W || y >= H) return;
  auto tap = [&](int c, int dy, int dx) {
    return in[((size_t)c * H + y + dy) * W + x + dx] * sw[((k * C + c) * 3 + (dy + 1)) * 3 + (dx + 1)];
  };
  float acc = bias[k];
  if (__builtin_expect(x > 0 && y > 0 && x < W - 1 && y < H - 1, 1)) {
    for (int c = 0; c < C; ++c)
#pragma unroll
      for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx) acc += tap(c, dy, dx);
  } else {
    for (int c = 0; c < C; ++c)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int yy = y + dy, xx = x + dx;
          if (yy >= 0 && yy < H && xx >= 0 && xx < W) acc += tap(c, dy, dx);
        }
  }
  out[((size_t)k * H + y) * W + x] = acc;
}
