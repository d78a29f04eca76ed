//@app grid.cu
//@kernel stencil5
//@expect reject
//@what HOSTILE: clock64() read in the kernel; a block stops updating once it has run for a fixed number of cycles (a timing cut-off)
//@@ kernel
__global__ void stencil5(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  const long long t0 = clock64();
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  size_t i = (size_t)y * nx + x;
  if (clock64() - t0 > 100000) return;
  out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}
