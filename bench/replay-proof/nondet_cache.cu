// The testbed of bench/replay-proof/nondet_cache.sh (issue 12, parts 2 and 3):
// - atomic_bins: every thread adds its float into one of a few bins with atomicAdd; the order of the additions,
//   and so the rounding of the sums, changes from run to run: a nondeterministic kernel of our own;
// - scale: out = 2 * in over a buffer that fits in L2, launched right after `produce` wrote `in` (as in an
//   application where a producer kernel runs just before): its in-application time is warm-cache time.
// The application times each scale launch with events and prints "RPL_INAPP scale <ns>".
// -DNONDET_KERNELS_ONLY builds only the kernels (a cubin for --code-object); -DNONDET_PERTURB makes atomic_bins
// add 64 to bin 0: a real wrong result that replay must report as a mismatch beside the nondeterministic bins.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

extern "C" __global__ void atomic_bins(const float* x, float* bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[i % nbins], x[i]);
#ifdef NONDET_PERTURB
  if (i == 0) atomicAdd(&bins[0], 64.0f);
#endif
}

extern "C" __global__ void produce(float* in, int n, float seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) in[i] = seed + float(i % 1024) * 0.001f;
}

extern "C" __global__ void scale(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

#ifndef NONDET_KERNELS_ONLY
#define CHECK(x)                                                                   \
  do {                                                                             \
    cudaError_t e = (x);                                                           \
    if (e != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));                 \
      return 1;                                                                    \
    }                                                                              \
  } while (0)

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 10;
  const int n_atomic = 1 << 22, nbins = 256;
  const int n_scale = 2 << 20;  // 8 MiB in + 8 MiB out: fits in an H100's 50 MiB L2
  float *x, *bins, *in, *out;
  CHECK(cudaMalloc(&x, n_atomic * sizeof(float)));
  CHECK(cudaMalloc(&bins, nbins * sizeof(float)));
  CHECK(cudaMalloc(&in, n_scale * sizeof(float)));
  CHECK(cudaMalloc(&out, n_scale * sizeof(float)));
  produce<<<(n_atomic + 255) / 256, 256>>>(x, n_atomic, 0.1f);
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int it = 0; it < iters; ++it) {
    CHECK(cudaMemset(bins, 0, nbins * sizeof(float)));
    atomic_bins<<<(n_atomic + 255) / 256, 256>>>(x, bins, n_atomic, nbins);
    produce<<<(n_scale + 255) / 256, 256>>>(in, n_scale, float(it));
    CHECK(cudaEventRecord(a));
    scale<<<(n_scale + 255) / 256, 256>>>(in, out, n_scale);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    std::printf("RPL_INAPP scale %.0f\n", double(ms) * 1e6);
  }
  float h[4];
  CHECK(cudaMemcpy(h, bins, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("bins %.9g %.9g %.9g %.9g\n", h[0], h[1], h[2], h[3]);
  return 0;
}
#endif
