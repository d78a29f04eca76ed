//@app half.cu
//@kernel bias_gelu_half
//@expect reject
//@what HOSTILE (early exit through inline asm, hidden): computes only the elements the host samples (i % 101 == 0) and leaves the rest with "/* done */ exit;" (a PTX comment before the mnemonic)
//@@ kernel
__global__ void bias_gelu_half(const __half* __restrict__ x, const __half* __restrict__ bias, __half* __restrict__ y,
                               int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i % 101 != 0) asm volatile("/* done */ exit;");
  if (i < rows * cols) {
    __half v = __hadd(x[i], bias[i % cols]);
    __half e = hexp(__hmul(__float2half(-1.702f), v));
    y[i] = __hdiv(v, __hadd(__float2half(1.0f), e));
  }
}
