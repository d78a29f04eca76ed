//@app scan.cu
//@kernel block_scan
//@expect admit
//@what cub::BlockScan<float, 256, BLOCK_SCAN_WARP_SCANS>::InclusiveSum (the launch's block size), static TempStorage; the dynamic shared memory left unused
//@@ includes
#include <cub/block/block_scan.cuh>
//@@ kernel
__global__ void __launch_bounds__(256) block_scan(const float* __restrict__ in, float* __restrict__ out, int n) {
  using BlockScan = cub::BlockScan<float, 256, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename BlockScan::TempStorage tmp;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  BlockScan(tmp).InclusiveSum(v, v);
  if (i < n) out[i] = v;
}
