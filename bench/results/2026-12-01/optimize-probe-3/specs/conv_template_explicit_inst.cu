//@app conv.cu
//@kernel conv2d_3x3
//@expect admit
//@what the per-pixel sum as a __device__ function template over the radius R (non-type), explicitly instantiated for R = 1, #pragma unroll over 2R+1; same order and border test: bit-exact
//@@ before
template <int R>
__device__ __forceinline__ float conv_point(const float* __restrict__ in, const float* sw, int C, int H, int W, int k, int y,
                                            int x, float acc) {
  constexpr int S = 2 * R + 1;
  for (int c = 0; c < C; ++c)
#pragma unroll
    for (int dy = -R; dy <= R; ++dy)
#pragma unroll
      for (int dx = -R; dx <= R; ++dx) {
        const int yy = y + dy, xx = x + dx;
        if (yy >= 0 && yy < H && xx >= 0 && xx < W)
          acc += in[((size_t)c * H + yy) * W + xx] * sw[((k * C + c) * S + (dy + R)) * S + (dx + R)];
      }
  return acc;
}
template __device__ float conv_point<1>(const float* __restrict__, const float*, int, int, int, int, int, int, float);
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
  out[((size_t)k * H + y) * W + x] = conv_point<1>(in, sw, C, H, W, k, y, x, bias[k]);
}
