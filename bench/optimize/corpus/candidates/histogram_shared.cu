//@app reduce.cu
//@kernel histogram
//@what privatized histogram: shared-memory atomics per block, one global atomic per non-empty bin
__global__ void histogram(const int* __restrict__ v, unsigned* __restrict__ bins, int n) {
  __shared__ unsigned local[64];
  for (int b = threadIdx.x; b < 64; b += blockDim.x) local[b] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = v[i];
    // the app's values index 64 bins; any other value goes straight to global memory, as before
    if (b >= 0 && b < 64) atomicAdd(&local[b], 1u);
    else atomicAdd(&bins[b], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 64; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}
