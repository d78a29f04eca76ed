//@app sgemm.cu
//@kernel sgemm_naive
//@expect admit
//@what the tiled body as a __device__ function template with a non-type TILE parameter, explicitly instantiated for 16 at file scope; the kernel calls it when blockDim is TILE x TILE (the app's 16x16), else the naive loop; bit-exact
//@@ before
template <int TILE>
__device__ __forceinline__ float tiled_dot(const float* A, const float* B, int M, int N, int K, int row, int col) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    const int kmax = min(TILE, K - k0);
    for (int kk = 0; kk < kmax; ++kk) acc += As[ty][kk] * Bs[kk][tx];
    __syncthreads();
  }
  return acc;
}
template __device__ float tiled_dot<16>(const float*, const float*, int, int, int, int, int);
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (blockDim.x == 16 && blockDim.y == 16) {
    const float acc = tiled_dot<16>(A, B, M, N, K, row, col);
    if (row < M && col < N) C[row * N + col] = acc;
    return;
  }
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
