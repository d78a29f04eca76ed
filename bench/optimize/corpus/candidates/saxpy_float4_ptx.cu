//@app dense.cu
//@kernel saxpy
//@what four elements per thread through hand-written PTX: ld.global.nc.v4 for x, ld/st.global.v4 for y, a scalar tail
__global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int n4 = n / 4;
  for (int k = i; k < n4; k += gridDim.x * blockDim.x) {
    float x0, x1, x2, x3, y0, y1, y2, y3;
    asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(x0), "=f"(x1), "=f"(x2), "=f"(x3) : "l"(x + 4 * k));
    asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(y0), "=f"(y1), "=f"(y2), "=f"(y3) : "l"(y + 4 * k));
    y0 = a * x0 + y0;
    y1 = a * x1 + y1;
    y2 = a * x2 + y2;
    y3 = a * x3 + y3;
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};"
                 :: "l"(y + 4 * k), "f"(y0), "f"(y1), "f"(y2), "f"(y3) : "memory");
  }
  if (i == 0)
    for (int k = n4 * 4; k < n; ++k) y[k] = a * x[k] + y[k];
}
