//@app grid.cu
//@kernel stencil5
//@expect admit
//@what shared-memory tile of the block with a one-point halo (padded row), every thread reaches the barrier, same arithmetic (bit-exact)
//@@ before
#define ST_BX 32
#define ST_BY 8
//@@ kernel
__global__ void __launch_bounds__(ST_BX * ST_BY) stencil5(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  __shared__ float tile[ST_BY + 2][ST_BX + 2 + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * blockDim.x + tx;
  const int y = blockIdx.y * blockDim.y + ty;
  const bool tiled = blockDim.x == ST_BX && blockDim.y == ST_BY;
  if (tiled) {
    auto load = [&](int gx, int gy) { return (gx >= 0 && gx < nx && gy >= 0 && gy < ny) ? in[(size_t)gy * nx + gx] : 0.0f; };
    tile[ty + 1][tx + 1] = load(x, y);
    if (tx == 0) tile[ty + 1][0] = load(x - 1, y);
    if (tx == ST_BX - 1) tile[ty + 1][ST_BX + 1] = load(x + 1, y);
    if (ty == 0) tile[0][tx + 1] = load(x, y - 1);
    if (ty == ST_BY - 1) tile[ST_BY + 1][tx + 1] = load(x, y + 1);
    __syncthreads();
  }
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  const size_t i = (size_t)y * nx + x;
  if (tiled)
    out[i] = 0.5f * tile[ty + 1][tx + 1] + 0.125f * (tile[ty + 1][tx] + tile[ty + 1][tx + 2] + tile[ty][tx + 1] + tile[ty + 2][tx + 1]);
  else
    out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}
//@@ after
#undef ST_BX
#undef ST_BY
