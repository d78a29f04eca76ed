//@app half.cu
//@kernel hgemm_naive
//@expect admit
//@what inline PTX mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, fragments loaded straight from global memory in the PTX ISA's layout (a0..a3 half2 of A rows g/g+8, cols 2t/2t+8; b0,b1 packed from B's k rows 2t,2t+1 / 2t+8,2t+9 at column g), one warp per 16x16 tile as two n8 mmas; M,N,K % 16 else naive; rtol (sum order)
//@@ before
__device__ __forceinline__ unsigned pack_half2(__half lo, __half hi) {
  __half2 h = __halves2half2(lo, hi);
  return *reinterpret_cast<unsigned*>(&h);
}
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
//@@ kernel
__global__ void hgemm_naive(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K) {
  if ((M | N | K) & 15) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
      C[row * N + col] = acc;
    }
    return;
  }
  const int lane = threadIdx.x + threadIdx.y * blockDim.x;
  const int warp = lane >> 5;
  const int warps_per_block = (blockDim.x * blockDim.y) >> 5;
  const int tile = (blockIdx.y * gridDim.x + blockIdx.x) * warps_per_block + warp;
  const int tiles_n = N / 16;
  if (tile >= (M / 16) * tiles_n) return;
  const int r0 = (tile / tiles_n) * 16, c0 = (tile % tiles_n) * 16;
  const int g = (lane & 31) >> 2, t = lane & 3;
  float d[2][4] = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    unsigned a[4];
    a[0] = *reinterpret_cast<const unsigned*>(A + (size_t)(r0 + g) * K + k0 + 2 * t);
    a[1] = *reinterpret_cast<const unsigned*>(A + (size_t)(r0 + g + 8) * K + k0 + 2 * t);
    a[2] = *reinterpret_cast<const unsigned*>(A + (size_t)(r0 + g) * K + k0 + 2 * t + 8);
    a[3] = *reinterpret_cast<const unsigned*>(A + (size_t)(r0 + g + 8) * K + k0 + 2 * t + 8);
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int n = c0 + j * 8 + g;
      const unsigned b0 = pack_half2(B[(size_t)(k0 + 2 * t) * N + n], B[(size_t)(k0 + 2 * t + 1) * N + n]);
      const unsigned b1 = pack_half2(B[(size_t)(k0 + 2 * t + 8) * N + n], B[(size_t)(k0 + 2 * t + 9) * N + n]);
      mma_16816(d[j], a, b0, b1);
    }
  }
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    float* c = C + (size_t)(r0 + g) * N + c0 + j * 8 + 2 * t;
    c[0] = d[j][0];
    c[1] = d[j][1];
    c[(size_t)8 * N] = d[j][2];
    c[(size_t)8 * N + 1] = d[j][3];
  }
}
