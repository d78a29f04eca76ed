//@app half.cu
//@kernel rmsnorm_bf16
//@expect reject
//@what HOSTILE (state across launches): a new __managed__ array caching each row's 1/rms, reused on the next launch
//@@ before
__managed__ float g_row_rs[1 << 16];
//@@ kernel
__global__ void rmsnorm_bf16(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                             __nv_bfloat16* __restrict__ y, int rows, int cols, float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float rs = g_row_rs[r & 0xffff];
  if (rs == 0.0f) {
    float ss = 0.0f;
    for (int c = 0; c < cols; ++c) {
      float v = __bfloat162float(x[(size_t)r * cols + c]);
      ss += v * v;
    }
    rs = rsqrtf(ss / cols + eps);
    g_row_rs[r & 0xffff] = rs;
  }
  for (int c = 0; c < cols; ++c)
    y[(size_t)r * cols + c] = __float2bfloat16(__bfloat162float(x[(size_t)r * cols + c]) * rs * __bfloat162float(w[c]));
}
