//@app sgemm.cu
//@kernel sgemm_naive
//@expect admit
//@what 16x16 tiles double-buffered with cp.async (inline PTX, src-size 0 zero-fills edges, __cvta_generic_to_shared), commit_group / wait_group; helpers __forceinline__; the k order is the naive one: bit-exact
//@@ before
__device__ __forceinline__ void cp_async_f32(float* smem, const float* gmem, bool pred) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int bytes = pred ? 4 : 0;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int Pending>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending)); }
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[2][16][16];
  __shared__ float Bs[2][16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * 16 + tx;
  const int row = blockIdx.y * 16 + ty;
  const int tiles = (K + 15) / 16;
  auto load = [&](int t, int buf) {
    const int ka = t * 16 + tx, kb = t * 16 + ty;
    const bool pa = row < M && ka < K, pb = kb < K && col < N;
    cp_async_f32(&As[buf][ty][tx], pa ? &A[row * K + ka] : A, pa);
    cp_async_f32(&Bs[buf][ty][tx], pb ? &B[kb * N + col] : B, pb);
    cp_async_commit();
  };
  float acc = 0.0f;
  load(0, 0);
  for (int t = 0; t < tiles; ++t) {
    if (t + 1 < tiles) {
      load(t + 1, (t + 1) & 1);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const int kmax = min(16, K - t * 16);
    for (int kk = 0; kk < kmax; ++kk) acc += As[t & 1][ty][kk] * Bs[t & 1][kk][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
