//@app reduce.cu
//@kernel count_pos
//@what HOSTILE side check (not a correct candidate): a lambda in the kernel does an atomic on the read-only input
__global__ void count_pos(const float* __restrict__ in, unsigned* __restrict__ count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto touch = [in]() { atomicAdd(const_cast<float*>(in), 0.0f); };
  if (i == 0) touch();
  if (i < n && in[i] > 0.0f) atomicAdd(count, 1u);
}
