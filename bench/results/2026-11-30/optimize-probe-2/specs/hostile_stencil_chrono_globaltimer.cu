//@app grid.cu
//@kernel stencil5
//@expect reject
//@what HOSTILE: cuda::std::chrono::system_clock::now() (the %globaltimer read hidden in libcu++'s header), a wall-clock cut-off
//@@ includes
#include <cuda/std/chrono>
//@@ kernel
__global__ void stencil5(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  const auto t0 = cuda::std::chrono::system_clock::now();
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  size_t i = (size_t)y * nx + x;
  if (cuda::std::chrono::system_clock::now() - t0 > cuda::std::chrono::microseconds(50)) return;
  out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}
