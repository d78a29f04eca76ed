//@app conv.cu
//@kernel conv2d_3x3
//@expect admit
//@what each thread loads only the centre column of its 3 input rows; x-1 and x+1 come from neighbouring lanes by __shfl_up_sync/__shfl_down_sync of width 16 (a warp = 2 rows of the 16-wide block), the segment's edge lanes load theirs; every lane reaches the shuffles (store guarded, no early return); blockDim.x != 16: the naive body; same order and border test: bit-exact
//@@ kernel
__global__ void conv2d_3x3(const float* __restrict__ in, const float* __restrict__ wt, const float* __restrict__ bias,
                           float* __restrict__ out, int C, int K, int H, int W) {
  extern __shared__ float sw[];
  int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int j = tid; j < K * C * 9; j += blockDim.x * blockDim.y) sw[j] = wt[j];
  __syncthreads();
  if (blockDim.x != 16 || (blockDim.x * blockDim.y) % 32 != 0) {
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
  const int tx = threadIdx.x;
  const int x = blockIdx.x * blockDim.x + tx;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  float acc = bias[k];
  for (int c = 0; c < C; ++c)
    for (int dy = -1; dy <= 1; ++dy) {
      const int yy = y + dy;
      const bool rowok = yy >= 0 && yy < H;
      const float* inrow = in + ((size_t)c * H + (rowok ? yy : 0)) * W;
      const float centre = (rowok && x < W) ? inrow[x] : 0.0f;
      float left = __shfl_up_sync(0xffffffffu, centre, 1, 16);
      float right = __shfl_down_sync(0xffffffffu, centre, 1, 16);
      if (tx == 0) left = (rowok && x - 1 >= 0 && x - 1 < W) ? inrow[x - 1] : 0.0f;
      if (tx == 15) right = (rowok && x + 1 < W) ? inrow[x + 1] : 0.0f;
      const float v[3] = {left, centre, right};
      for (int dx = -1; dx <= 1; ++dx) {
        const int xx = x + dx;
        if (rowok && xx >= 0 && xx < W) acc += v[dx + 1] * sw[((k * C + c) * 3 + (dy + 1)) * 3 + (dx + 1)];
      }
    }
  if (x < W && y < H) out[((size_t)k * H + y) * W + x] = acc;
}
