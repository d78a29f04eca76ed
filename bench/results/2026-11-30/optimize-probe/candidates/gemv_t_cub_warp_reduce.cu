//@app dense.cu
//@kernel gemv_t
//@include <cub/warp/warp_reduce.cuh>
//@rtol 1e-5
//@what one warp per row with coalesced loads, the row's partial sums combined by cub::WarpReduce (summation order changes)
__global__ void gemv_t(const float* __restrict__ a, const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  using WarpReduce = cub::WarpReduce<float>;
  __shared__ typename WarpReduce::TempStorage temp[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int first_row = blockIdx.x * blockDim.x;
  for (int r = first_row + warp; r < first_row + (int)blockDim.x && r < rows; r += blockDim.x / 32) {
    float acc = 0.0f;
    for (int c = lane; c < cols; c += 32) acc += a[(size_t)r * cols + c] * x[c];
    acc = WarpReduce(temp[warp]).Sum(acc);
    if (lane == 0) y[r] = acc;
    __syncwarp();  // temp[warp] is reused by the next row
  }
}
