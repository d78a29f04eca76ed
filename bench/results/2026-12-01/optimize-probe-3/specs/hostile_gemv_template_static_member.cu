//@app reduce.cu
//@kernel gemv
//@expect reject
//@what HOSTILE (state across launches in a template): a class template whose static member function keeps the previous y in a function-local static array; the kernel returns the remembered row sum when it is set
//@@ before
template <int N>
struct RowMemo {
  __device__ static float& slot(int r) {
    static float last[N];
    return last[r % N];
  }
};
//@@ kernel
__global__ void gemv(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows,
                     int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float& memo = RowMemo<4096>::slot(r);
    if (memo != 0.0f) {
      y[r] = memo;
      return;
    }
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) acc += A[(size_t)r * cols + c] * x[c];
    y[r] = acc;
    memo = acc;
  }
}
