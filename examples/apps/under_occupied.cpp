// under_occupied: a sum over a large array launched with one block of 64 threads per SM (2 of up to 64
// resident warps). Each warp waits on its loads with nothing else to switch to; neither memory nor compute
// is near its roof. Built to be under-occupied.
//   under_occupied [--mib=256] [--launches=5] [--threads=64]
#include <vector>

#include "common/app_util.hpp"

__global__ void under_occupied_sum(const float4* __restrict__ in, long n, float* partial) {
  float s = 0;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n; i += static_cast<long>(gridDim.x) * blockDim.x) {
    float4 v = in[i];
    s += (v.x + v.y) + (v.z + v.w);
  }
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
  if ((threadIdx.x & 31) == 0) partial[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = s;
}

int main(int argc, char** argv) {
  const long mib = app::option_long(argc, argv, "mib", 256);
  const long launches = app::option_long(argc, argv, "launches", 5);
  const int threads = static_cast<int>(app::option_long(argc, argv, "threads", 64));
  if (threads % 32 != 0 || threads == 0) return app::fail("under_occupied", "--threads must be a multiple of 32");
  hipDeviceProp_t prop{};
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount;
  const long n = mib * (1L << 20) / static_cast<long>(sizeof(float4));
  std::vector<float4> host(n, make_float4(1.f, 1.f, 1.f, 1.f));  // integer sums stay exact in float
  float4* in = nullptr;
  float* partial = nullptr;
  const int warps = blocks * threads / 32;
  HIP_CHECK(hipMalloc(&in, n * sizeof(float4)));
  HIP_CHECK(hipMalloc(&partial, warps * sizeof(float)));
  HIP_CHECK(hipMemcpy(in, host.data(), n * sizeof(float4), hipMemcpyHostToDevice));

  double t0 = app::now_s();
  for (long l = 0; l < launches; ++l)
    hipLaunchKernelGGL(under_occupied_sum, dim3(blocks), dim3(threads), 0, 0, in, n, partial);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  double loop_s = app::now_s() - t0;

  std::vector<float> out(warps);
  HIP_CHECK(hipMemcpy(out.data(), partial, warps * sizeof(float), hipMemcpyDeviceToHost));
  double total = 0;
  for (float v : out) total += v;
  if (total != 4.0 * double(n)) return app::fail("under_occupied", "the sum is not 4 x the element count");
  app::expect_kernel("under_occupied_sum", launches);
  std::printf("RPL_RESULT app=under_occupied kernels=%ld loop_s=%.6f warps_per_sm=%d\n", launches, loop_s, threads / 32);
  HIP_CHECK(hipFree(in));
  HIP_CHECK(hipFree(partial));
  return 0;
}
