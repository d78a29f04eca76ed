// attention: single-head attention as three kernels, out = softmax(Q K^T / sqrt(d)) V.
//   attention [--seq=2048] [--dim=64] [--iters=20] [--sync-each=1]
// --sync-each=1 synchronises after every kernel, so each runs alone on an idle GPU (as under ncu).
// qk_scores (S x S dot products), softmax_rows (one block per row), attn_v (S x D). Checked against a
// double-precision host reference on sampled rows.
#include <cmath>
#include <random>
#include <vector>

#include "common/app_util.hpp"

__global__ void qk_scores(const float* q, const float* k, float* scores, int seq, int dim, float scale) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (col >= seq) return;
  float acc = 0.f;
  for (int i = 0; i < dim; ++i) acc += q[row * dim + i] * k[col * dim + i];
  scores[row * seq + col] = acc * scale;
}

__global__ void softmax_rows(float* scores, int seq) {
  extern __shared__ float red[];
  float* row = scores + size_t(blockIdx.x) * seq;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < seq; c += blockDim.x) m = fmaxf(m, row[c]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.f;
  for (int c = threadIdx.x; c < seq; c += blockDim.x) {
    float e = expf(row[c] - m);
    row[c] = e;
    sum += e;
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  float inv = 1.f / red[0];
  for (int c = threadIdx.x; c < seq; c += blockDim.x) row[c] *= inv;
}

__global__ void attn_v(const float* probs, const float* v, float* out, int seq, int dim) {
  int d = threadIdx.x, row = blockIdx.x;
  if (d >= dim) return;
  float acc = 0.f;
  for (int c = 0; c < seq; ++c) acc += probs[size_t(row) * seq + c] * v[c * dim + d];
  out[row * dim + d] = acc;
}

int main(int argc, char** argv) {
  const int seq = static_cast<int>(app::option_long(argc, argv, "seq", 2048));
  const int dim = static_cast<int>(app::option_long(argc, argv, "dim", 64));
  const long iters = app::option_long(argc, argv, "iters", 20);
  const bool sync_each = app::option_long(argc, argv, "sync-each", 0) != 0;
  if (seq < 1 || dim < 1 || dim > 1024) {
    std::fprintf(stderr, "attention: need seq >= 1 and 1 <= dim <= 1024\n");
    return 2;
  }
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> q(size_t(seq) * dim), k(q.size()), v(q.size());
  for (auto* m : {&q, &k, &v})
    for (float& x : *m) x = dist(rng);

  float *dq, *dk, *dv, *dscores, *dout;
  const size_t bytes = q.size() * sizeof(float);
  HIP_CHECK(hipMalloc(&dq, bytes));
  HIP_CHECK(hipMalloc(&dk, bytes));
  HIP_CHECK(hipMalloc(&dv, bytes));
  HIP_CHECK(hipMalloc(&dout, bytes));
  HIP_CHECK(hipMalloc(&dscores, size_t(seq) * seq * sizeof(float)));
  HIP_CHECK(hipMemcpy(dq, q.data(), bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dk, k.data(), bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dv, v.data(), bytes, hipMemcpyHostToDevice));

  const float scale = 1.f / std::sqrt(float(dim));
  const int softmax_threads = 256;
  double t0 = app::now_s();
  for (long it = 0; it < iters; ++it) {
    hipLaunchKernelGGL(qk_scores, dim3((seq + 255) / 256, seq), dim3(256), 0, 0, dq, dk, dscores, seq, dim, scale);
    if (sync_each) HIP_CHECK(hipDeviceSynchronize());
    hipLaunchKernelGGL(softmax_rows, dim3(seq), dim3(softmax_threads), softmax_threads * sizeof(float), 0, dscores, seq);
    if (sync_each) HIP_CHECK(hipDeviceSynchronize());
    hipLaunchKernelGGL(attn_v, dim3(seq), dim3(dim), 0, 0, dscores, dv, dout, seq, dim);
    if (sync_each) HIP_CHECK(hipDeviceSynchronize());
  }
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  double loop_s = app::now_s() - t0;

  std::vector<float> out(q.size());
  HIP_CHECK(hipMemcpy(out.data(), dout, bytes, hipMemcpyDeviceToHost));
  double max_rel = 0;
  for (int row : {0, 1, seq / 3, seq / 2, seq - 1}) {
    std::vector<double> p(seq);
    double m = -1e300, sum = 0;
    for (int c = 0; c < seq; ++c) {
      double acc = 0;
      for (int i = 0; i < dim; ++i) acc += double(q[row * dim + i]) * k[c * dim + i];
      p[c] = acc * scale;
      m = std::max(m, p[c]);
    }
    for (double& x : p) sum += (x = std::exp(x - m));
    for (int d = 0; d < dim; ++d) {
      double want = 0;
      for (int c = 0; c < seq; ++c) want += p[c] / sum * v[c * dim + d];
      max_rel = std::max(max_rel, std::fabs(out[row * dim + d] - want) / (std::fabs(want) + 1e-3));
    }
  }
  if (!(max_rel < 1e-3)) {
    std::fprintf(stderr, "max relative error %.3g\n", max_rel);
    return app::fail("attention", "output differs from the host reference");
  }
  for (const char* name : {"qk_scores", "softmax_rows", "attn_v"}) app::expect_kernel(name, iters);
  std::printf("RPL_RESULT app=attention seq=%d dim=%d iters=%ld loop_s=%.6f max_rel_err=%.3g\n", seq, dim, iters,
              loop_s, max_rel);
  for (float* p : {dq, dk, dv, dout, dscores}) HIP_CHECK(hipFree(p));
  return 0;
}
