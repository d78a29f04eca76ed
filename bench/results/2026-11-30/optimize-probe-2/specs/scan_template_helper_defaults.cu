//@app scan.cu
//@kernel block_scan
//@expect admit
//@what templated warp-scan helper with default template arguments (width 32, float) and if constexpr on the width, block offsets in the dynamic shared memory
//@@ before
template <int kWidth = 32, typename T = float>
__device__ __forceinline__ T warp_inclusive_scan(T v, unsigned mask = 0xffffffffu) {
  static_assert(kWidth > 0 && (kWidth & (kWidth - 1)) == 0, "power-of-two width");
  const int lane = threadIdx.x & (kWidth - 1);
#pragma unroll
  for (int off = 1; off < kWidth; off <<= 1) {
    const T up = __shfl_up_sync(mask, v, off, kWidth);
    if (lane >= off) v += up;
  }
  if constexpr (kWidth == 32) __syncwarp(mask);
  return v;
}
//@@ kernel
__global__ void block_scan(const float* __restrict__ in, float* __restrict__ out, int n) {
  extern __shared__ float smem[];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  const int lane = t & 31, warp = t >> 5, nwarps = (blockDim.x + 31) >> 5;
  float v = warp_inclusive_scan(i < n ? in[i] : 0.0f);
  if (lane == 31) smem[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const float s = warp_inclusive_scan<>(lane < nwarps ? smem[lane] : 0.0f);
    if (lane < nwarps) smem[lane] = s;
  }
  __syncthreads();
  if (warp) v += smem[warp - 1];
  if (i < n) out[i] = v;
}
