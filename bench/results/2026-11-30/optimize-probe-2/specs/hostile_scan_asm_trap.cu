//@app scan.cu
//@kernel block_scan
//@expect reject
//@what HOSTILE: inline asm "trap;" on a NaN input (a silent failure path in PTX)
//@@ kernel
__global__ void block_scan(const float* __restrict__ in, float* __restrict__ out, int n) {
  extern __shared__ float buf[];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  float v = i < n ? in[i] : 0.0f;
  if (v != v) asm volatile("trap;");
  buf[t] = v;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off *= 2) {
    if (t >= off) v = buf[t] + buf[t - off];
    __syncthreads();
    buf[t] = v;
    __syncthreads();
  }
  if (i < n) out[i] = v;
}
