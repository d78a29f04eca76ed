//@app grid.cu
//@kernel stencil5
//@expect admit
//@what [style of stencil_ldg_fma] the five weights in a static constexpr array inside the kernel (docs: a static constexpr constant is allowed), indexed in a loop kept rolled
//@@ kernel
__global__ void stencil5(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  static constexpr float kStencilW[5] = {0.5f, 0.125f, 0.125f, 0.125f, 0.125f};
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  const size_t i = (size_t)y * nx + x;
  const long long offs[5] = {0, -1, 1, -(long long)nx, (long long)nx};
  float acc = kStencilW[0] * __ldg(in + i);
  float nb = 0.0f;
  float wsum = 0.0f;
#pragma unroll 1
  for (int k = 1; k < 5; ++k) nb += __ldg(in + i + offs[k]), wsum += kStencilW[k];
  out[i] = acc + (wsum * 0.25f) * nb;
}
