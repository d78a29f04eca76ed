//@app scan.cu
//@kernel block_scan
//@expect admit
//@what [style of scan_warp_shfl_up] the warp's lane and index math in a new alignas(8) struct with a __device__ constructor, the totals through it
//@@ before
struct alignas(8) LanePos {
  int lane;
  int warp;
  __device__ LanePos() : lane((int)threadIdx.x & 31), warp((int)threadIdx.x >> 5) {}
};
//@@ kernel
__global__ void block_scan(const float* __restrict__ in, float* __restrict__ out, int n) {
  extern __shared__ float warp_totals[];
  const LanePos pos;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int nwarps = (blockDim.x + 31) >> 5;
  float v = i < n ? in[i] : 0.0f;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const float up = __shfl_up_sync(0xffffffffu, v, off);
    if (pos.lane >= off) v += up;
  }
  if (pos.lane == 31) warp_totals[pos.warp] = v;
  __syncthreads();
  if (pos.warp == 0) {
    float w = pos.lane < nwarps ? warp_totals[pos.lane] : 0.0f;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const float up = __shfl_up_sync(0xffffffffu, w, off);
      if (pos.lane >= off) w += up;
    }
    if (pos.lane < nwarps) warp_totals[pos.lane] = w;
  }
  __syncthreads();
  if (pos.warp > 0) v += warp_totals[pos.warp - 1];
  if (i < n) out[i] = v;
}
