// pointer_chase: every thread follows its own chain of dependent loads through one random cycle over MIB MiB
// of indices (Sattolo's algorithm), at full occupancy. Each load's address is the previous load's value, so
// a warp can do nothing but wait for memory; the random 4-byte reads use a small part of each sector, so no
// bandwidth roof is reached. Built to be latency bound.
//   pointer_chase [--mib=24] [--steps=2048] [--launches=5]
#include <cstdint>
#include <vector>

#include "common/app_util.hpp"

__global__ void pointer_chase(const uint32_t* __restrict__ next, uint32_t* out, int steps, uint32_t n) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t p = static_cast<uint32_t>((uint64_t(t) * 2654435761u) % n);
  for (int k = 0; k < steps; ++k) p = next[p];
  out[t] = p;
}

int main(int argc, char** argv) {
  const long mib = app::option_long(argc, argv, "mib", 24);
  const int steps = static_cast<int>(app::option_long(argc, argv, "steps", 2048));
  const long launches = app::option_long(argc, argv, "launches", 5);
  const uint32_t n = static_cast<uint32_t>(mib * (1L << 20) / 4);
  if (n < 2) return app::fail("pointer_chase", "--mib must be positive");
  // One random cycle through all n slots (Sattolo), from a fixed-seed xorshift: reproducible runs.
  std::vector<uint32_t> next(n);
  for (uint32_t i = 0; i < n; ++i) next[i] = i;
  uint64_t s = 0x9E3779B97F4A7C15ull;
  for (uint32_t i = n - 1; i > 0; --i) {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    uint32_t j = static_cast<uint32_t>(s % i);
    std::swap(next[i], next[j]);
  }
  hipDeviceProp_t prop{};
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  const int threads = 256, blocks = prop.multiProcessorCount * 8;  // one full wave: 64 warps per SM
  const int total = threads * blocks;
  uint32_t *d_next = nullptr, *d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_next, size_t(n) * 4));
  HIP_CHECK(hipMalloc(&d_out, size_t(total) * 4));
  HIP_CHECK(hipMemcpy(d_next, next.data(), size_t(n) * 4, hipMemcpyHostToDevice));

  double t0 = app::now_s();
  for (long l = 0; l < launches; ++l)
    hipLaunchKernelGGL(pointer_chase, dim3(blocks), dim3(threads), 0, 0, d_next, d_out, steps, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  double loop_s = app::now_s() - t0;

  std::vector<uint32_t> out(total);
  HIP_CHECK(hipMemcpy(out.data(), d_out, size_t(total) * 4, hipMemcpyDeviceToHost));
  for (int t : {0, total / 3, total - 1}) {
    uint32_t p = static_cast<uint32_t>((uint64_t(t) * 2654435761u) % n);
    for (int k = 0; k < steps; ++k) p = next[p];
    if (out[t] != p) return app::fail("pointer_chase", "a chain ended somewhere else than on the host");
  }
  app::expect_kernel("pointer_chase", launches);
  std::printf("RPL_RESULT app=pointer_chase kernels=%ld loop_s=%.6f ns_per_load=%.1f\n", launches, loop_s,
              1e9 * loop_s / double(launches) / steps);
  HIP_CHECK(hipFree(d_next));
  HIP_CHECK(hipFree(d_out));
  return 0;
}
