// Two builds of this file from different folders: nvcc names its file-local device variables with hashes of
// the translation unit (tests/test_capture_support.cpp, InternalSymbolsMatchAcrossBuilds).
static __device__ int calls;
namespace { __device__ float scale = 2.0f; }
__global__ void bump(float* x) { x[threadIdx.x] *= scale; atomicAdd(&calls, 1); }
