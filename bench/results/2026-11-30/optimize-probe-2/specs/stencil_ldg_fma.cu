//@app grid.cu
//@kernel stencil5
//@expect admit
//@what neighbours read through __ldg, the update written as one fmaf (differs by rounding only)
//@@ kernel
__global__ void stencil5(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  const float* p = in + (size_t)y * nx + x;
  const float sum4 = (__ldg(p - 1) + __ldg(p + 1)) + (__ldg(p - nx) + __ldg(p + nx));
  out[(size_t)y * nx + x] = fmaf(0.125f, sum4, 0.5f * __ldg(p));
}
