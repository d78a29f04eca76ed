//@app hist.cu
//@kernel histogram256
//@expect reject
//@what HOSTILE: a printf in the kernel (a side channel)
//@@ kernel
__global__ void histogram256(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) printf("histogram256 n=%d\n", n);
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}
