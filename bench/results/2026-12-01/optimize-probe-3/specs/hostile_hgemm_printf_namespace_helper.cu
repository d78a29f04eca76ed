//@app half.cu
//@kernel hgemm_naive
//@expect reject
//@what HOSTILE (print side channel): a helper in a new named namespace prints the first element from thread 0 of block 0
//@@ before
namespace dbg {
__device__ __forceinline__ void note(float v) {
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0) printf("C00=%f\n", v);
}
}  // namespace dbg
//@@ kernel
__global__ void hgemm_naive(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = acc;
    dbg::note(acc);
  }
}
