// graph_launch: three kernels captured into a graph, the graph launched G times. A tracer must show
// every node's kernel per launch (3 G kernels), not one opaque graph.
//   graph_launch [--launches=10]
#include "common/app_util.hpp"

__global__ void graph_add_one(int* x) { atomicAdd(x, 1); }
__global__ void graph_add_two(int* x) { atomicAdd(x, 2); }
__global__ void graph_add_three(int* x) { atomicAdd(x, 3); }

int main(int argc, char** argv) {
  const long launches = app::option_long(argc, argv, "launches", 10);
  int* x = nullptr;
  HIP_CHECK(hipMalloc(&x, sizeof(int)));
  HIP_CHECK(hipMemset(x, 0, sizeof(int)));
  hipStream_t s;
  HIP_CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));

  hipGraph_t graph;
  hipGraphExec_t exec;
  HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  hipLaunchKernelGGL(graph_add_one, dim3(1), dim3(1), 0, s, x);
  hipLaunchKernelGGL(graph_add_two, dim3(1), dim3(1), 0, s, x);
  hipLaunchKernelGGL(graph_add_three, dim3(1), dim3(1), 0, s, x);
  HIP_CHECK(hipStreamEndCapture(s, &graph));
  HIP_CHECK(hipGraphInstantiateWithFlags(&exec, graph, 0));
  for (long i = 0; i < launches; ++i) HIP_CHECK(hipGraphLaunch(exec, s));
  HIP_CHECK(hipStreamSynchronize(s));

  int got = 0;
  HIP_CHECK(hipMemcpy(&got, x, sizeof got, hipMemcpyDeviceToHost));
  if (got != 6 * launches) {
    std::fprintf(stderr, "sum %d, expected %ld\n", got, 6 * launches);
    return app::fail("graph_launch", "graph nodes did not all run");
  }
  for (const char* name : {"graph_add_one", "graph_add_two", "graph_add_three"}) app::expect_kernel(name, launches);
  std::printf("RPL_RESULT app=graph_launch launches=%ld graph_nodes=3\n", launches);
  HIP_CHECK(hipGraphExecDestroy(exec));
  HIP_CHECK(hipGraphDestroy(graph));
  HIP_CHECK(hipStreamDestroy(s));
  HIP_CHECK(hipFree(x));
  return 0;
}
