//@app spmv.cu
//@kernel spmv_csr
//@expect admit
//@what [style of spmv_warp_per_row] the warp sum as a __noinline__ helper with a trailing return type; vector CSR: each warp walks the 32 rows its lanes own, lanes split each row's nonzeros (coalesced), __shfl_down_sync sum, lane r keeps row r's result
//@@ before
__device__ __noinline__ auto warp_sum_bcast(float v, unsigned mask) -> float {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(mask, v, o);
  return __shfl_sync(mask, v, 0);
}
//@@ kernel
__global__ void spmv_csr(int rows, const int* __restrict__ rowptr, const int* __restrict__ colidx,
                         const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y) {
  const int lane = threadIdx.x & 31;
  const int warp_first = (blockIdx.x * blockDim.x + threadIdx.x) - lane;
  const unsigned mask = __activemask();
  float mine = 0.0f;
  for (int r = 0; r < 32; ++r) {
    const int row = warp_first + r;
    if (row >= rows) break;
    const int begin = rowptr[row], end = rowptr[row + 1];
    float acc = 0.0f;
    for (int k = begin + lane; k < end; k += 32) acc += vals[k] * x[colidx[k]];
    acc = warp_sum_bcast(acc, mask);
    if (lane == r) mine = acc;
  }
  const int row = warp_first + lane;
  if (row < rows) y[row] = mine;
}
