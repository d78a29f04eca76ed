// A PyTorch C++/CUDA extension with a naive kernel, compiled at run time by torch.utils.cpp_extension.load
// (app.py): the optimizer's real-workload case for a kernel that lives inside a PyTorch process.
#include <torch/extension.h>

// One thread per row, summing its columns in order: consecutive threads read addresses a row apart.
__global__ void row_sum(const float* __restrict__ x, float* __restrict__ out, int rows, int cols) {
  // The block's rows are read 32 columns at a time through shared memory, a warp reading 32 consecutive floats of
  // one row (coalesced); each thread then adds its own row's 32 values in column order, as the original does.
  __shared__ float tile[256][33];
  const int row0 = blockIdx.x * blockDim.x, row = row0 + threadIdx.x;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  float acc = 0.0f;
  for (int c0 = 0; c0 < cols; c0 += 32) {
    for (int r = warp; r < blockDim.x; r += warps) {
      const int gr = row0 + r, gc = c0 + lane;
      tile[r][lane] = gr < rows && gc < cols ? x[(size_t)gr * cols + gc] : 0.0f;
    }
    __syncthreads();
    const int n = cols - c0 < 32 ? cols - c0 : 32;
    for (int k = 0; k < n; ++k) acc += tile[threadIdx.x][k];
    __syncthreads();
  }
  if (row < rows) out[row] = acc;
}

torch::Tensor row_sums(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.scalar_type() == torch::kFloat32, "x: a 2-D float32 CUDA tensor");
  auto xc = x.contiguous();
  auto out = torch::empty({xc.size(0)}, xc.options());
  const int rows = int(xc.size(0)), cols = int(xc.size(1));
  row_sum<<<(rows + 255) / 256, 256>>>(xc.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("row_sums", &row_sums, "sum of each row"); }
