//@app sgemm.cu
//@kernel sgemm_naive
//@expect admit
//@what a constexpr struct table of tile configurations, the chosen entry, file-scope static_asserts on it, and the 16x16 tiled kernel reading its fields; bit-exact
//@@ before
struct TileCfg {
  int bm, bn, bk;
};
constexpr TileCfg kTileCfgs[] = {{16, 16, 16}, {32, 32, 8}, {64, 64, 16}};
constexpr TileCfg kCfg = kTileCfgs[0];
static_assert(kCfg.bm == kCfg.bn && kCfg.bn == kCfg.bk, "square tiles: one element per thread");
static_assert(kCfg.bm * kCfg.bn == 256, "the app launches 16x16 blocks");
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int T = kCfg.bm;
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * T + tx;
  const int row = blockIdx.y * T + ty;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    const int kmax = min(T, K - k0);
    for (int kk = 0; kk < kmax; ++kk) acc += As[ty][kk] * Bs[kk][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
