// NVTX ranges with known GPU work, for bench/cuda/nvtx_range_gpu.sh (issue 29: the GPU time of a range is the
// work launched inside it on its thread). Spin kernels of a fixed number of SM cycles; each range says in its
// name what it launches:
//   serial      4 kernels one after the other on one stream        -> 4 kernels, busy = their sum
//   concurrent  2 kernels at once on two streams                   -> 2 kernels, busy < their sum (overlap)
//   host_only   a host sleep, no launch                            -> 0 kernels
//   step (x3)   1 kernel each                                      -> count 3, 3 kernels
//   worker      on a second thread: 1 kernel, then a stream sync   -> 1 kernel
//   main_wait   on the main thread while `worker` runs: sleep only -> 0 kernels (the worker's launch is not its)
//   epoch       around the three steps (nesting)                   -> 3 kernels
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <thread>

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

#define CHECK(x)                                                                     \
  do {                                                                               \
    cudaError_t e = (x);                                                             \
    if (e != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));                   \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

int main() {
  CHECK(cudaFree(nullptr));  // CUDA first: the collector points NVTX at CUPTI when CUDA initialises
  int khz = 0;
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  const long long per_ms = khz;  // SM cycles per millisecond at the reported clock
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  spin<<<1, 1, 0, s1>>>(per_ms / 10);  // warm-up, outside every range
  CHECK(cudaDeviceSynchronize());

  nvtxRangePushA("serial");
  for (int i = 0; i < 4; ++i) spin<<<1, 1, 0, s1>>>(2 * per_ms);
  nvtxRangePop();
  CHECK(cudaDeviceSynchronize());

  nvtxRangePushA("concurrent");
  spin<<<1, 1, 0, s1>>>(3 * per_ms);
  spin<<<1, 1, 0, s2>>>(3 * per_ms);
  nvtxRangePop();
  CHECK(cudaDeviceSynchronize());

  nvtxRangePushA("host_only");
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  nvtxRangePop();

  nvtxRangePushA("epoch");
  for (int i = 0; i < 3; ++i) {
    nvtxRangePushA("step");
    spin<<<1, 1, 0, s1>>>(per_ms);
    CHECK(cudaStreamSynchronize(s1));
    nvtxRangePop();
  }
  nvtxRangePop();

  int worker_status = 0;
  std::thread worker([&] {
    nvtxRangePushA("worker");
    spin<<<1, 1, 0, s2>>>(4 * per_ms);
    worker_status = cudaStreamSynchronize(s2) == cudaSuccess ? 0 : 1;
    nvtxRangePop();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  nvtxRangePushA("main_wait");
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  nvtxRangePop();
  worker.join();
  CHECK(cudaDeviceSynchronize());
  std::printf("nvtx_ranges: done (clock %d kHz)\n", khz);
  return worker_status;
}
