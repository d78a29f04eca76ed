//@app half.cu
//@kernel rmsnorm_bf16
//@expect admit
//@what one warp per row: a 256-thread block owns the same 256 rows as before, each warp 32 of them in turn; lanes read __nv_bfloat162 pairs (cols even, else scalar), fp32 sum of squares reduced with __shfl_xor_sync (reassociated: rtol), same per-element output formula
//@@ kernel
__global__ void rmsnorm_bf16(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                             __nv_bfloat16* __restrict__ y, int rows, int cols, float eps) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int rows_per_warp = 32;
  const int first = blockIdx.x * blockDim.x + warp * rows_per_warp;
  for (int j = 0; j < rows_per_warp; ++j) {
    const int r = first + j;
    if (r >= rows || r >= (int)(blockIdx.x + 1) * (int)blockDim.x) break;
    const __nv_bfloat16* xr = x + (size_t)r * cols;
    float ss = 0.0f;
    if ((cols & 1) == 0) {
      const __nv_bfloat162* x2 = reinterpret_cast<const __nv_bfloat162*>(xr);
      for (int c = lane; c < cols / 2; c += 32) {
        const float2 v = __bfloat1622float2(x2[c]);
        ss += v.x * v.x + v.y * v.y;
      }
    } else {
      for (int c = lane; c < cols; c += 32) {
        const float v = __bfloat162float(xr[c]);
        ss += v * v;
      }
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
    const float rs = rsqrtf(ss / cols + eps);
    for (int c = lane; c < cols; c += 32)
      y[(size_t)r * cols + c] = __float2bfloat16(__bfloat162float(xr[c]) * rs * __bfloat162float(w[c]));
  }
}
