//@app half.cu
//@kernel rmsnorm_bf16
//@expect admit
//@what the weight row staged once per block in static shared memory (cols <= 4096, else read from global), thread per row, same arithmetic: bit-exact
//@@ before
constexpr int kMaxCols = 4096;
//@@ kernel
__global__ void rmsnorm_bf16(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                             __nv_bfloat16* __restrict__ y, int rows, int cols, float eps) {
  __shared__ __nv_bfloat16 sw[kMaxCols];
  const bool staged = cols <= kMaxCols;
  if (staged) {
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sw[c] = w[c];
    __syncthreads();
  }
  const __nv_bfloat16* wr = staged ? sw : w;
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const __nv_bfloat16* xr = x + (size_t)r * cols;
  float ss = 0.0f;
  for (int c = 0; c < cols; ++c) {
    const float v = __bfloat162float(xr[c]);
    ss += v * v;
  }
  const float rs = rsqrtf(ss / cols + eps);
  for (int c = 0; c < cols; ++c) y[(size_t)r * cols + c] = __float2bfloat16(__bfloat162float(xr[c]) * rs * __bfloat162float(wr[c]));
}
