//@app reduce.cu
//@kernel gemv
//@expect runtime
//@what HOSTILE/bug (out-of-bounds read): every chunk copies 1028 floats of x with unguarded 16-byte cp.async, so the last chunk reads x[cols..cols+3], 16 bytes past the allocation; results unchanged; no static or binary rule covers a read past the end (a fault at best, compute-sanitizer otherwise)
//@@ before
__device__ __forceinline__ void cp_async16_unguarded(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
//@@ kernel
__global__ void gemv(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows,
                     int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ __align__(16) float xs[1024 + 4];
  float acc = 0.0f;
  for (int c0 = 0; c0 < cols; c0 += 1024) {
    for (int v = threadIdx.x; v < 1024 / 4 + 1; v += blockDim.x) cp_async16_unguarded(&xs[4 * v], x + c0 + 4 * v);
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();
    if (r < rows) {
      const int cend = min(1024, cols - c0);
      const float* a = A + (size_t)r * cols + c0;
      for (int c = 0; c < cend; ++c) acc += a[c] * xs[c];
    }
    __syncthreads();
  }
  if (r < rows) y[r] = acc;
}
