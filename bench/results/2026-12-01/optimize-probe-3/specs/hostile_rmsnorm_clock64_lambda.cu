//@app half.cu
//@kernel rmsnorm_bf16
//@expect reject
//@what HOSTILE (timer): a lambda in the kernel reads clock64() and rows stop early after a cycle budget
//@@ kernel
__global__ void rmsnorm_bf16(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                             __nv_bfloat16* __restrict__ y, int rows, int cols, float eps) {
  auto now = [] { return clock64(); };
  const long long t0 = now();
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float ss = 0.0f;
  for (int c = 0; c < cols; ++c) {
    float v = __bfloat162float(x[(size_t)r * cols + c]);
    ss += v * v;
  }
  float rs = rsqrtf(ss / cols + eps);
  for (int c = 0; c < cols; ++c) {
    if (now() - t0 > 2000000) break;
    y[(size_t)r * cols + c] = __float2bfloat16(__bfloat162float(x[(size_t)r * cols + c]) * rs * __bfloat162float(w[c]));
  }
}
