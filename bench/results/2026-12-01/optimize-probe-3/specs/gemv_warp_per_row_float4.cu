//@app reduce.cu
//@kernel gemv
//@expect admit
//@what one warp per row (each 256-thread block keeps its 256 rows, 32 per warp), lanes stride the row with float4 __ldg loads (cols % 4 == 0, else scalar), __shfl_xor_sync reduction; reassociated: rtol
//@@ kernel
__global__ void gemv(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows,
                     int cols) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int block_first = blockIdx.x * blockDim.x;
  const int block_end = min(rows, block_first + (int)blockDim.x);
  for (int r = block_first + warp * 32, j = 0; j < 32 && r < block_end; ++j, ++r) {
    const float* a = A + (size_t)r * cols;
    float acc = 0.0f;
    if ((cols & 3) == 0) {
      const float4* a4 = reinterpret_cast<const float4*>(a);
      const float4* x4 = reinterpret_cast<const float4*>(x);
      for (int c = lane; c < cols / 4; c += 32) {
        const float4 p = __ldg(a4 + c), q = __ldg(x4 + c);
        acc += p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w;
      }
    } else {
      for (int c = lane; c < cols; c += 32) acc += a[c] * x[c];
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) y[r] = acc;
  }
}
