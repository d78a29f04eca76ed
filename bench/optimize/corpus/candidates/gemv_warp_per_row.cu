//@app dense.cu
//@kernel gemv_t
//@rtol 1e-5
//@what one warp per row, coalesced loads, warp-shuffle reduction (__shfl_down_sync); summation order changes
__global__ void gemv_t(const float* __restrict__ a, const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  int first_row = blockIdx.x * blockDim.x;
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int r = first_row + warp; r < first_row + blockDim.x && r < rows; r += blockDim.x / 32) {
    float acc = 0.0f;
    for (int c = lane; c < cols; c += 32) acc += a[(size_t)r * cols + c] * x[c];
    for (int off = 16; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (lane == 0) y[r] = acc;
  }
}
