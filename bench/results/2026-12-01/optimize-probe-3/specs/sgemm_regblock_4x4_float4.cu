//@app sgemm.cu
//@kernel sgemm_naive
//@expect admit
//@what register blocking: a 16x16 block computes a 64x64 tile, each thread 4x4 outputs, A tile stored transposed, float4 loads/stores (M,N % 64 == 0, K % 16 == 0, blockDim 16x16: true for 512^3; otherwise the naive body); blocks past the 8x8 tiles return; each C element's k order is the naive one: bit-exact
//@@ before
#define RB_TM 64
#define RB_TN 64
#define RB_TK 16
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  const bool fast = (M % RB_TM == 0) && (N % RB_TN == 0) && (K % RB_TK == 0) && blockDim.x == 16 && blockDim.y == 16;
  if (!fast) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
      C[row * N + col] = acc;
    }
    return;
  }
  if (blockIdx.x >= N / RB_TN || blockIdx.y >= M / RB_TM) return;
  __shared__ __align__(16) float As[RB_TK][RB_TM];
  __shared__ __align__(16) float Bs[RB_TK][RB_TN];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int row0 = blockIdx.y * RB_TM, col0 = blockIdx.x * RB_TN;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += RB_TK) {
    {
      const int r = tid >> 2, c = (tid & 3) * 4;
      const float4 a = *reinterpret_cast<const float4*>(&A[(size_t)(row0 + r) * K + k0 + c]);
      As[c + 0][r] = a.x; As[c + 1][r] = a.y; As[c + 2][r] = a.z; As[c + 3][r] = a.w;
    }
    {
      const int r = tid >> 4, c = (tid & 15) * 4;
      *reinterpret_cast<float4*>(&Bs[r][c]) = *reinterpret_cast<const float4*>(&B[(size_t)(k0 + r) * N + col0 + c]);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < RB_TK; ++kk) {
      const float4 a4 = *reinterpret_cast<const float4*>(&As[kk][ty * 4]);
      const float4 b4 = *reinterpret_cast<const float4*>(&Bs[kk][tx * 4]);
      const float a[4] = {a4.x, a4.y, a4.z, a4.w}, b[4] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
    *reinterpret_cast<float4*>(&C[(size_t)(row0 + ty * 4 + i) * N + col0 + tx * 4]) =
        make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
}
//@@ after
#undef RB_TM
#undef RB_TN
#undef RB_TK
