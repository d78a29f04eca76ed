//@app conv.cu
//@kernel conv2d_3x3
//@expect admit
//@what coarsening over output channels: the z == 0 blocks compute all K outputs of their pixels (K <= 8, registers; each input value loaded once with __ldg for all K), blocks z > 0 return before any barrier (block-uniform); K > 8: the naive body; each output's c, dy, dx order unchanged: bit-exact
//@@ before
#define CONV_MAX_K 8
//@@ kernel
__global__ void conv2d_3x3(const float* __restrict__ in, const float* __restrict__ wt, const float* __restrict__ bias,
                           float* __restrict__ out, int C, int K, int H, int W) {
  if (K <= CONV_MAX_K && blockIdx.z != 0) return;
  extern __shared__ float sw[];
  int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int j = tid; j < K * C * 9; j += blockDim.x * blockDim.y) sw[j] = wt[j];
  __syncthreads();
  if (K > CONV_MAX_K) {
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
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  float acc[CONV_MAX_K];
#pragma unroll
  for (int k = 0; k < CONV_MAX_K; ++k) acc[k] = k < K ? bias[k] : 0.0f;
  for (int c = 0; c < C; ++c)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int yy = y + dy, xx = x + dx;
        if (yy >= 0 && yy < H && xx >= 0 && xx < W) {
          const float v = __ldg(&in[((size_t)c * H + yy) * W + xx]);
#pragma unroll
          for (int k = 0; k < CONV_MAX_K; ++k)
            if (k < K) acc[k] += v * sw[((k * C + c) * 3 + (dy + 1)) * 3 + (dx + 1)];
        }
      }
#pragma unroll
  for (int k = 0; k < CONV_MAX_K; ++k)
    if (k < K) out[((size_t)k * H + y) * W + x] = acc[k];
}
