//@app reduce.cu
//@kernel gemv
//@expect admit
//@what still one thread per row; x staged in 1024-float chunks of static shared memory with 16-byte cp.async.cg (inline PTX, zero-fill past cols through src-size), wait_group 0 + __syncthreads; each row summed in the naive column order: bit-exact; cols % 4 == 0 else the naive body
//@@ before
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, int src_bytes) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
}
//@@ kernel
__global__ void gemv(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows,
                     int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (cols & 3) {
    if (r < rows) {
      float acc = 0.0f;
      for (int c = 0; c < cols; ++c) acc += A[(size_t)r * cols + c] * x[c];
      y[r] = acc;
    }
    return;
  }
  constexpr int kChunk = 1024;
  __shared__ __align__(16) float xs[kChunk];
  float acc = 0.0f;
  for (int c0 = 0; c0 < cols; c0 += kChunk) {
    for (int v = threadIdx.x; v < kChunk / 4; v += blockDim.x) {
      const int c = c0 + 4 * v;
      cp_async16(&xs[4 * v], c < cols ? x + c : x, c < cols ? 16 : 0);
    }
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();
    if (r < rows) {
      const int cend = min(kChunk, cols - c0);
      const float* a = A + (size_t)r * cols + c0;
      for (int c = 0; c < cend; ++c) acc += a[c] * xs[c];
    }
    __syncthreads();
  }
  if (r < rows) y[r] = acc;
}
