//@app reduce.cu
//@kernel count_pos
//@what HOSTILE side check (not a correct candidate): a helper device function does an atomic on the read-only input
__device__ __forceinline__ void touch_input(const float* p) { atomicAdd(const_cast<float*>(p), 0.0f); }
__global__ void count_pos(const float* __restrict__ in, unsigned* __restrict__ count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) touch_input(in);
  if (i < n && in[i] > 0.0f) atomicAdd(count, 1u);
}
