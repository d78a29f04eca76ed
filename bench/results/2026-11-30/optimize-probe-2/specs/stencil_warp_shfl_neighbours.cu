//@app grid.cu
//@kernel stencil5
//@expect admit
//@what left and right neighbours from the adjacent lanes (__shfl_up_sync / __shfl_down_sync: a warp is one row of 32 when blockDim.x is 32), edge lanes read global; same arithmetic (bit-exact)
//@@ kernel
__global__ void stencil5(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (blockDim.x != 32) {
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
    const size_t i = (size_t)y * nx + x;
    out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
    return;
  }
  const unsigned lane = threadIdx.x;
  const bool inside = x < nx && y < ny;
  const size_t i = (size_t)y * nx + x;
  const float c = inside ? __ldg(in + i) : 0.0f;
  float l = __shfl_up_sync(0xffffffffu, c, 1);
  float r = __shfl_down_sync(0xffffffffu, c, 1);
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  if (lane == 0) l = __ldg(in + i - 1);
  if (lane == 31) r = __ldg(in + i + 1);
  out[i] = 0.5f * c + 0.125f * (l + r + __ldg(in + i - nx) + __ldg(in + i + nx));
}
