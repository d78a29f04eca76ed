//@app reduce.cu
//@kernel count_pos
//@what HOSTILE control: the atomic on the read-only input directly in the kernel
__global__ void count_pos(const float* __restrict__ in, unsigned* __restrict__ count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) atomicAdd(const_cast<float*>(in), 0.0f);
  if (i < n && in[i] > 0.0f) atomicAdd(count, 1u);
}
