//@app conv.cu
//@kernel conv2d_3x3
//@expect admit
//@what the dynamic shared memory the launch passes (K*C*9 floats) now holds only this block's output channel (C*9 floats, fewer than passed), weights read from it with the same values: bit-exact
//@@ kernel
__global__ void conv2d_3x3(const float* __restrict__ in, const float* __restrict__ wt, const float* __restrict__ bias,
                           float* __restrict__ out, int C, int K, int H, int W) {
  extern __shared__ float sw[];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int k = blockIdx.z;
  for (int j = tid; j < C * 9; j += blockDim.x * blockDim.y) sw[j] = wt[k * C * 9 + j];
  __syncthreads();
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  float acc = bias[k];
  for (int c = 0; c < C; ++c)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int yy = y + dy, xx = x + dx;
        if (yy >= 0 && yy < H && xx >= 0 && xx < W) acc += in[((size_t)c * H + yy) * W + xx] * sw[(c * 3 + (dy + 1)) * 3 + (dx + 1)];
      }
  out[((size_t)k * H + y) * W + x] = acc;
}
