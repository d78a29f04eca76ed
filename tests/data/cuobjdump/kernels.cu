__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
__global__ void block_sum(const float* in, float* out) {
  __shared__ float tile[256];
  tile[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (int i = 0; i < 256; ++i) s += tile[i];
    out[blockIdx.x] = s;
  }
}
__device__ __noinline__ float deep(float* p, int k) { float buf[64]; for (int i=0;i<64;++i) buf[i]=p[i*k]; return buf[k&63]; }
__global__ void with_stack(float* p, int k) { p[0] = deep(p, k); }
int main() { return 0; }
