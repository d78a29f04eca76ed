// rpl_ceilings_bench: measures empirical roofline ceilings on one NVIDIA GPU, for `rocm-perf ceilings`.
// Built with nvcc where the CUDA toolkit is found; installed next to rocm-perf. Prints one line per result
// on stdout (nothing else), so rocm-perf can parse it:
//   RPL_DEVICE index=<i> arch=sm_<XY> sms=<n> clock_mhz=<n> name=<product name, to the end of the line>
//   RPL_CEILING key=<hbm|vector_f64|vector_f32|vector_f16|matrix_f16> value=<GB/s or GFLOP/s> best_ms=<t> reps=<n>
// Exit status: 0 done, 2 bad arguments, 3 no usable CUDA device, 4 a CUDA error while measuring.
//   rpl_ceilings_bench [--device N] [--reps N]
//
// Each ceiling is the best of `reps` timed launches (after a warm-up launch), timed with CUDA events: a
// ceiling is what the hardware can reach, so the fastest repetition is the estimate and slower ones are
// interference. Every kernel does a known amount of work that the compiler cannot remove (its results are
// stored), sized to run for milliseconds so event resolution does not matter.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

namespace {

#define BENCH_CHECK(expr)                                                                      \
  do {                                                                                         \
    cudaError_t e_ = (expr);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "rpl_ceilings_bench: %s failed: %s\n", #expr, cudaGetErrorString(e_)); \
      std::exit(4);                                                                            \
    }                                                                                          \
  } while (0)

constexpr int kChains = 8;  // independent FMA chains per thread: enough to cover the pipe latency

// ---- device-memory bandwidth: a 16-byte-vector copy, one element per thread (reads + writes counted).
__global__ void copy_kernel(const float4* __restrict__ a, float4* __restrict__ b, long n) {
  long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) b[i] = a[i];
}

// ---- vector FMA throughput per precision: kChains chains of dependent FMAs; 2 FLOPs per FMA per lane.
template <typename T>
__device__ T fma_op(T x, T a, T b);
template <>
__device__ float fma_op(float x, float a, float b) { return fmaf(x, a, b); }
template <>
__device__ double fma_op(double x, double a, double b) { return fma(x, a, b); }
template <>
__device__ __half2 fma_op(__half2 x, __half2 a, __half2 b) { return __hfma2(x, a, b); }  // 2 lanes: 4 FLOPs

template <typename T>
__device__ T from_float(float v);
template <>
__device__ float from_float(float v) { return v; }
template <>
__device__ double from_float(float v) { return v; }
template <>
__device__ __half2 from_float(float v) { return __float2half2_rn(v); }

template <typename T>
__global__ void fma_kernel(T* out, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  T x[kChains];
  const T a = from_float<T>(0.999f), b = from_float<T>(0.001f);
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = from_float<T>(0.01f * (threadIdx.x % 7 + c));
  for (int k = 0; k < iters; ++k) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = fma_op(x[c], a, b);
  }
  T s = x[0];
#pragma unroll
  for (int c = 1; c < kChains; ++c) s = fma_op(s, a, x[c]);
  out[i] = s;
}

// ---- matrix throughput: warp-level 16x16x16 fp16 MMA with fp32 accumulation (wmma, mma.sync), four
// independent accumulators per warp. 2 x 16^3 FLOPs per MMA.
constexpr int kAccumulators = 4;
__global__ void wmma_kernel(const __half* a, const __half* b, float* out, int iters) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kAccumulators];
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
#pragma unroll
  for (int j = 0; j < kAccumulators; ++j) wmma::fill_fragment(acc[j], 0.0f);
  for (int k = 0; k < iters; ++k) {
#pragma unroll
    for (int j = 0; j < kAccumulators; ++j) wmma::mma_sync(acc[j], fa, fb, acc[j]);
  }
  for (int j = 1; j < kAccumulators; ++j)
    for (int e = 0; e < acc[0].num_elements; ++e) acc[0].x[e] += acc[j].x[e];
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  wmma::store_matrix_sync(out + static_cast<long>(warp) * 256, acc[0], 16, wmma::mem_row_major);
}

// Best time (ms) of `reps` launches after one warm-up.
double best_ms(int reps, const std::function<void()>& launch) {
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  launch();
  BENCH_CHECK(cudaGetLastError());
  BENCH_CHECK(cudaDeviceSynchronize());
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    BENCH_CHECK(cudaEventRecord(start));
    launch();
    BENCH_CHECK(cudaEventRecord(stop));
    BENCH_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
    best = std::min(best, static_cast<double>(ms));
  }
  BENCH_CHECK(cudaGetLastError());
  BENCH_CHECK(cudaEventDestroy(start));
  BENCH_CHECK(cudaEventDestroy(stop));
  return best;
}

void report(const char* key, double per_second_1e9, double ms, int reps) {
  std::printf("RPL_CEILING key=%s value=%.1f best_ms=%.4f reps=%d\n", key, per_second_1e9, ms, reps);
  std::fflush(stdout);
}

void measure_copy(const cudaDeviceProp& prop, int reps) {
  size_t free_bytes = 0, total = 0;
  BENCH_CHECK(cudaMemGetInfo(&free_bytes, &total));
  // Two buffers of up to 1 GiB each (far beyond any L2), at most a quarter of free memory each.
  size_t bytes = std::min<size_t>(size_t(1) << 30, free_bytes / 4) / sizeof(float4) * sizeof(float4);
  (void)prop;
  const long n = static_cast<long>(bytes / sizeof(float4));
  float4 *a = nullptr, *b = nullptr;
  BENCH_CHECK(cudaMalloc(&a, bytes));
  BENCH_CHECK(cudaMalloc(&b, bytes));
  BENCH_CHECK(cudaMemset(a, 1, bytes));
  const int threads = 256;
  const long blocks = (n + threads - 1) / threads;
  double ms = best_ms(reps, [&] { copy_kernel<<<blocks, threads>>>(a, b, n); });
  report("hbm", 2.0 * double(bytes) / (ms * 1e-3) / 1e9, ms, reps);
  BENCH_CHECK(cudaFree(a));
  BENCH_CHECK(cudaFree(b));
}

template <typename T>
void measure_fma(const cudaDeviceProp& prop, const char* key, int iters, double flops_per_fma, int reps) {
  const int threads = 256, blocks = prop.multiProcessorCount * 32;  // 4 full waves at 8 blocks per SM
  T* out = nullptr;
  BENCH_CHECK(cudaMalloc(&out, sizeof(T) * threads * blocks));
  double ms = best_ms(reps, [&] { fma_kernel<T><<<blocks, threads>>>(out, iters); });
  const double flops = flops_per_fma * (double(kChains) * iters + kChains - 1) * threads * blocks;
  report(key, flops / (ms * 1e-3) / 1e9, ms, reps);
  BENCH_CHECK(cudaFree(out));
}

void measure_wmma(const cudaDeviceProp& prop, int reps) {
  const int threads = 256, blocks = prop.multiProcessorCount * 16, iters = 4096;
  const int warps = blocks * threads / 32;
  __half *a = nullptr, *b = nullptr;
  float* out = nullptr;
  BENCH_CHECK(cudaMalloc(&a, 256 * sizeof(__half)));
  BENCH_CHECK(cudaMalloc(&b, 256 * sizeof(__half)));
  BENCH_CHECK(cudaMemset(a, 0, 256 * sizeof(__half)));
  BENCH_CHECK(cudaMemset(b, 0, 256 * sizeof(__half)));
  BENCH_CHECK(cudaMalloc(&out, sizeof(float) * 256 * static_cast<size_t>(warps)));
  double ms = best_ms(reps, [&] { wmma_kernel<<<blocks, threads>>>(a, b, out, iters); });
  const double flops = 2.0 * 16 * 16 * 16 * double(kAccumulators) * iters * warps;
  report("matrix_f16", flops / (ms * 1e-3) / 1e9, ms, reps);
  BENCH_CHECK(cudaFree(a));
  BENCH_CHECK(cudaFree(b));
  BENCH_CHECK(cudaFree(out));
}

int parse_int(const char* text, const char* what) {
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 0 || v > 1000000) {
    std::fprintf(stderr, "rpl_ceilings_bench: %s '%s' is not a non-negative integer\n", what, text);
    std::exit(2);
  }
  return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
  int device = 0, reps = 10;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--device") && i + 1 < argc) device = parse_int(argv[++i], "--device");
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(1, parse_int(argv[++i], "--reps"));
    else {
      std::fprintf(stderr, "usage: rpl_ceilings_bench [--device N] [--reps N]\n");
      return 2;
    }
  }
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::fprintf(stderr, "rpl_ceilings_bench: no CUDA device (%s)\n",
                 e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports 0 devices");
    return 3;
  }
  if (device >= count) {
    std::fprintf(stderr, "rpl_ceilings_bench: --device %d, but there are %d device(s)\n", device, count);
    return 3;
  }
  BENCH_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, device));
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device);
  std::printf("RPL_DEVICE index=%d arch=sm_%d%d sms=%d clock_mhz=%d name=%s\n", device, prop.major, prop.minor,
              prop.multiProcessorCount, clock_khz / 1000, prop.name);
  measure_copy(prop, reps);
  measure_fma<double>(prop, "vector_f64", 4096, 2.0, reps);
  measure_fma<float>(prop, "vector_f32", 8192, 2.0, reps);
  measure_fma<__half2>(prop, "vector_f16", 8192, 4.0, reps);
  if (prop.major >= 7) measure_wmma(prop, reps);  // tensor cores from Volta on
  return 0;
}
