//@app grid.cu
//@kernel stencil5
//@expect reject
//@what HOSTILE: a new file-scope __device__ variable template (state that outlives a launch): blocks skip their work on the second launch
//@@ before
template <typename T>
__device__ T stencil_done_flag;
//@@ kernel
__global__ void stencil5(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (stencil_done_flag<int> == nx) return;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  size_t i = (size_t)y * nx + x;
  out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
  if (x == nx - 2 && y == ny - 2) stencil_done_flag<int> = nx;
}
