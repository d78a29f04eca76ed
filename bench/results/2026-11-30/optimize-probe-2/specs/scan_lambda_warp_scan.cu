//@app scan.cu
//@kernel block_scan
//@expect admit
//@what a generic lambda for the warp scan (called for the values and for the warp totals), auto everywhere, static shared slots for the totals
//@@ kernel
__global__ void block_scan(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float sums[32];
  const auto t = threadIdx.x;
  const auto i = blockIdx.x * blockDim.x + t;
  const auto lane = t % 32u, warp = t / 32u, nwarps = (blockDim.x + 31u) / 32u;
  auto warp_scan = [lane](auto v) {
    for (unsigned off = 1; off < 32u; off *= 2u) {
      const auto other = __shfl_up_sync(0xffffffffu, v, off);
      if (lane >= off) v += other;
    }
    return v;
  };
  auto v = warp_scan(i < (unsigned)n ? in[i] : 0.0f);
  if (lane == 31u) sums[warp] = v;
  __syncthreads();
  if (warp == 0u) {
    const auto s = warp_scan(lane < nwarps ? sums[lane] : 0.0f);
    if (lane < nwarps) sums[lane] = s;
  }
  __syncthreads();
  if (warp > 0u) v += sums[warp - 1u];
  if (i < (unsigned)n) out[i] = v;
}
