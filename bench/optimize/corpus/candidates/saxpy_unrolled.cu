//@app dense.cu
//@kernel saxpy
//@what two elements per thread, the loads of both issued before the stores (independent work per thread)
__global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int half = (n + 1) / 2;
  if (i >= half) return;
  float x0 = x[i], y0 = y[i];
  bool second = i + half < n;
  float x1 = second ? x[i + half] : 0.0f, y1 = second ? y[i + half] : 0.0f;
  y[i] = a * x0 + y0;
  if (second) y[i + half] = a * x1 + y1;
}
