//@app sgemm.cu
//@kernel sgemm_naive
//@expect admit
//@what 16x16 shared-memory tiles (tile = the app's 16x16 block; zero-filled edges), k summed in the same order: fma chain identical to the naive one, bit-exact; a new file-scope constexpr tile size
//@@ before
constexpr int kTile = 16;
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[kTile][kTile];
  __shared__ float Bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * kTile + tx;
  const int row = blockIdx.y * kTile + ty;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    const int kmax = min(kTile, K - k0);
    for (int kk = 0; kk < kmax; ++kk) acc += As[ty][kk] * Bs[kk][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
