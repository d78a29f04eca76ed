//@app conv.cu
//@kernel conv2d_3x3
//@expect reject
//@what by specification: the weights in a new file-scope __constant__ array filled by cudaMemcpyToSymbol in the host code (new device data and a host change)
//@replace ["  for (int rep = 0; rep < 2; ++rep) conv2d_3x3", "  cudaMemcpyToSymbol(c_wt, hw.data(), hw.size() * sizeof(float));\n  for (int rep = 0; rep < 2; ++rep) conv2d_3x3"]
//@@ before
__constant__ float c_wt[8 * 4 * 9];
//@@ kernel
__global__ void conv2d_3x3(const float* __restrict__ in, const float* __restrict__ wt, const float* __restrict__ bias,
                           float* __restrict__ out, int C, int K, int H, int W) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  if (x >= W || y >= H) return;
  float acc = bias[k];
  for (int c = 0; c < C; ++c)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int yy = y + dy, xx = x + dx;
        if (yy >= 0 && yy < H && xx >= 0 && xx < W) acc += in[((size_t)c * H + yy) * W + xx] * c_wt[((k * C + c) * 3 + (dy + 1)) * 3 + (dx + 1)];
      }
  out[((size_t)k * H + y) * W + x] = acc;
}
