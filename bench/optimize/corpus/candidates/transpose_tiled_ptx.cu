//@app tiles.cu
//@kernel transpose
//@what the block's 8x32 strip staged in a padded shared-memory tile, read with ld.global.nc and written with streaming stores (st.global.cs)
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[8][33];
  int c = blockIdx.x * 32 + threadIdx.x;
  int r0 = blockIdx.y * 8;
  // the launch is (cols/32, rows/8) blocks of 32x8: each block moves a 32-wide, 8-tall strip
  for (int j = threadIdx.y; j < 8; j += blockDim.y)
    if (r0 + j < rows && c < cols) {
      float v;
      asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(in + (size_t)(r0 + j) * cols + c));
      tile[j][threadIdx.x] = v;
    }
  __syncthreads();
  // write back: out row = input column, 8 consecutive input rows per output row
  int tid = threadIdx.y * 32 + threadIdx.x;  // 0..255
  int oc = tid % 8, orow = tid / 8;         // 32 output rows x 8 output columns
  int out_row = blockIdx.x * 32 + orow, out_col = r0 + oc;
  if (out_row < cols && out_col < rows)
    asm volatile("st.global.cs.f32 [%0], %1;" :: "l"(out + (size_t)out_row * rows + out_col), "f"(tile[oc][orow]) : "memory");
}
