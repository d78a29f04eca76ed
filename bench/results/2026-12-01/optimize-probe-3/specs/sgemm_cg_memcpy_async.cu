//@app sgemm.cu
//@kernel sgemm_naive
//@expect admit
//@what 16x16 tiles copied with cooperative_groups::memcpy_async by 16-thread tiles (each copies one 64-byte row of the A and B tiles), cg::wait then block.sync; file-scope namespace alias cg; fast path when M,N,K % 16 == 0 and blockDim 16x16 (512^3), else naive; same k order: bit-exact
//@@ includes
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
//@@ before
namespace cg = cooperative_groups;
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (M % 16 || N % 16 || K % 16 || blockDim.x != 16 || blockDim.y != 16) {
    if (row < M && col < N) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
      C[row * N + col] = acc;
    }
    return;
  }
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> rowg = cg::tiled_partition<16>(block);
  const int ty = threadIdx.y, tx = threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    cg::memcpy_async(rowg, &As[ty][0], &A[(size_t)(blockIdx.y * 16 + ty) * K + k0], 16 * sizeof(float));
    cg::memcpy_async(rowg, &Bs[ty][0], &B[(size_t)(k0 + ty) * N + blockIdx.x * 16], 16 * sizeof(float));
    cg::wait(rowg);
    block.sync();
    for (int kk = 0; kk < 16; ++kk) acc += As[ty][kk] * Bs[kk][tx];
    block.sync();
  }
  C[row * N + col] = acc;
}
