//@app hist.cu
//@kernel histogram256
//@expect reject
//@what HOSTILE: an atomicOr on the read-only input bytes' 32-bit words inside a lambda (marks processed data in the input)
//@@ kernel
__global__ void histogram256(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto mark = [&](int j) { atomicOr(reinterpret_cast<unsigned int*>(const_cast<unsigned char*>(data)) + j / 4, 0u); };
  if (i < n) {
    atomicAdd(&bins[data[i]], 1u);
    if ((i & 3) == 0) mark(i);
  }
}
