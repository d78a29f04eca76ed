//@app scan.cu
//@kernel block_scan
//@expect debatable
//@what [style of scan_warp_shfl_up] a plain constexpr function (host, not __device__) evaluated into new file-scope constexpr constants that the kernel uses (nvcc refuses calling it from the kernel even in a constant expression); warp inclusive scans with __shfl_up_sync, the warp totals scanned by warp 0 in the launch's dynamic shared memory (extern __shared__, the launch already passes 2 KiB)
//@@ before
constexpr int scan_max_warps(int max_threads) { return (max_threads + 31) / 32; }
constexpr int kScanMaxWarps = scan_max_warps(1024);
constexpr int kScanPad = scan_max_warps(64);
//@@ kernel
__global__ void block_scan(const float* __restrict__ in, float* __restrict__ out, int n) {
  extern __shared__ float warp_totals[];
  static_assert(kScanMaxWarps == 32, "one total per warp");
  __shared__ float unused_pad[kScanPad];
  (void)unused_pad;
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  const int lane = t & 31, warp = t >> 5, nwarps = (blockDim.x + 31) >> 5;
  float v = i < n ? in[i] : 0.0f;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const float up = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v += up;
  }
  if (lane == 31) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w = lane < nwarps ? warp_totals[lane] : 0.0f;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const float up = __shfl_up_sync(0xffffffffu, w, off);
      if (lane >= off) w += up;
    }
    if (lane < nwarps) warp_totals[lane] = w;
  }
  __syncthreads();
  if (warp > 0) v += warp_totals[warp - 1];
  if (i < n) out[i] = v;
}
