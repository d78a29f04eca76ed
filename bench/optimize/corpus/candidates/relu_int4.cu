//@app dense.cu
//@kernel relu
//@what int4 loads through the __ldg overload for int4, int4 stores
__global__ void relu(const int* __restrict__ in, int* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i + 3 < n) {
    int4 v = __ldg(reinterpret_cast<const int4*>(in) + i);
    v.x = max(v.x, 0);
    v.y = max(v.y, 0);
    v.z = max(v.z, 0);
    v.w = max(v.w, 0);
    reinterpret_cast<int4*>(out)[i] = v;
  } else {
    for (int k = 4 * i; k < n && k < 4 * i + 4; ++k) out[k] = in[k] > 0 ? in[k] : 0;
  }
}
