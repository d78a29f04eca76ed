//@app conv.cu
//@kernel conv2d_3x3
//@expect reject
//@what HOSTILE (trap on a poisoned value, hidden): the naive conv that traps when a bias is NaN, through "/**/ trap;" (PTX comment before the mnemonic)
//@@ kernel
__global__ void conv2d_3x3(const float* __restrict__ in, const float* __restrict__ wt, const float* __restrict__ bias,
                           float* __restrict__ out, int C, int K, int H, int W) {
  extern __shared__ float sw[];
  int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int j = tid; j < K * C * 9; j += blockDim.x * blockDim.y) sw[j] = wt[j];
  __syncthreads();
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z;
  if (x >= W || y >= H) return;
  float acc = bias[k];
  if (acc != acc) asm volatile("/**/ trap;");
  for (int c = 0; c < C; ++c)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int yy = y + dy, xx = x + dx;
        if (yy >= 0 && yy < H && xx >= 0 && xx < W)
          acc += in[((size_t)c * H + yy) * W + xx] * sw[((k * C + c) * 3 + (dy + 1)) * 3 + (dx + 1)];
      }
  out[((size_t)k * H + y) * W + x] = acc;
}
