//@app conv.cu
//@kernel conv2d_3x3
//@expect admit
//@what the input tile with a 1-pixel halo in static shared memory (C <= 4 channels, 16x16 blocks as launched; else the naive body), weights still in the launch's dynamic shared memory, same taps skipped at the border and the same c, dy, dx order: bit-exact
//@@ before
constexpr int kBlk = 16;
constexpr int kMaxC = 4;
//@@ kernel
__global__ void conv2d_3x3(const float* __restrict__ in, const float* __restrict__ wt, const float* __restrict__ bias,
                           float* __restrict__ out, int C, int K, int H, int W) {
  extern __shared__ float sw[];
  int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int j = tid; j < K * C * 9; j += blockDim.x * blockDim.y) sw[j] = wt[j];
  __syncthreads();
  __shared__ float tile[kMaxC][kBlk + 2][kBlk + 2];
  if (C > kMaxC || blockDim.x != kBlk || blockDim.y != kBlk) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z;
  if (x >= W || y >= H) return;
  float acc = bias[k];
  for (int c = 0; c < C; ++c)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int yy = y + dy, xx = x + dx;
        if (yy >= 0 && yy < H && xx >= 0 && xx < W)
          acc += in[((size_t)c * H + yy) * W + xx] * sw[((k * C + c) * 3 + (dy + 1)) * 3 + (dx + 1)];
      }
  out[((size_t)k * H + y) * W + x] = acc;
    return;
  }
  for (int j = tid; j < C * (kBlk + 2) * (kBlk + 2); j += kBlk * kBlk) {
    const int c = j / ((kBlk + 2) * (kBlk + 2)), rem = j % ((kBlk + 2) * (kBlk + 2));
    const int gy = blockIdx.y * kBlk + rem / (kBlk + 2) - 1, gx = blockIdx.x * kBlk + rem % (kBlk + 2) - 1;
    tile[c][rem / (kBlk + 2)][rem % (kBlk + 2)] = (gy >= 0 && gy < H && gx >= 0 && gx < W) ? in[((size_t)c * H + gy) * W + gx] : 0.0f;
  }
  __syncthreads();
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * kBlk + tx, y = blockIdx.y * kBlk + ty, k = blockIdx.z;
  if (x >= W || y >= H) return;
  float acc = bias[k];
  for (int c = 0; c < C; ++c)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int yy = y + dy, xx = x + dx;
        if (yy >= 0 && yy < H && xx >= 0 && xx < W)
          acc += tile[c][ty + 1 + dy][tx + 1 + dx] * sw[((k * C + c) * 3 + (dy + 1)) * 3 + (dx + 1)];
      }
  out[((size_t)k * H + y) * W + x] = acc;
}
