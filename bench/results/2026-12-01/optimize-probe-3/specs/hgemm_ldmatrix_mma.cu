//@app half.cu
//@kernel hgemm_naive
//@expect admit
//@what per-warp 16x16 A and B tiles staged in shared memory with 16-byte loads, fragments by ldmatrix.x4 (A) and ldmatrix.x4.trans (B: k-rows, giving the col-layout b0/b1 of both n8 halves), mma.sync m16n8k16 f32 accumulate; __syncwarp around the staging; M,N,K % 16 else naive; rtol (sum order)
//@@ before
__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], const void* smem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
__device__ __forceinline__ void ldsm_x4_trans(unsigned (&r)[4], const void* smem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
//@@ kernel
__global__ void hgemm_naive(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K) {
  if (((M | N | K) & 15) || blockDim.x * blockDim.y != 256) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
      C[row * N + col] = acc;
    }
    return;
  }
  __shared__ __align__(16) __half As[8][16][16];
  __shared__ __align__(16) __half Bs[8][16][16];
  const int tid = threadIdx.x + threadIdx.y * blockDim.x;
  const int warp = tid >> 5, lane = tid & 31;
  const int tile = (blockIdx.y * gridDim.x + blockIdx.x) * 8 + warp;
  const int tiles_n = N / 16;
  if (tile >= (M / 16) * tiles_n) return;
  const int r0 = (tile / tiles_n) * 16, c0 = (tile % tiles_n) * 16;
  const int g = lane >> 2, t = lane & 3;
  const int lrow = lane >> 1, lcol = (lane & 1) * 8;
  const int m = lane >> 3, mr = lane & 7;
  float d[2][4] = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    *reinterpret_cast<uint4*>(&As[warp][lrow][lcol]) = *reinterpret_cast<const uint4*>(A + (size_t)(r0 + lrow) * K + k0 + lcol);
    *reinterpret_cast<uint4*>(&Bs[warp][lrow][lcol]) = *reinterpret_cast<const uint4*>(B + (size_t)(k0 + lrow) * N + c0 + lcol);
    __syncwarp();
    unsigned a[4], b[4];
    ldsm_x4(a, &As[warp][(m & 1) * 8 + mr][(m >> 1) * 8]);
    ldsm_x4_trans(b, &Bs[warp][(m & 1) * 8 + mr][(m >> 1) * 8]);
#pragma unroll
    for (int j = 0; j < 2; ++j)
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
          : "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[2 * j]), "r"(b[2 * j + 1]));
    __syncwarp();
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
