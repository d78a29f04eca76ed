// Measures every compiled configuration of one space: checks its result against a naive reference kernel,
// then times it with CUDA events (median of several launches after a warm-up). One JSON line per
// configuration on the output file, flushed at once, so a crash loses nothing and the script can resume at
// the next configuration (--start).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels.cuh"

std::vector<KernelEntry> kernel_table(const std::string& space);

namespace {

__global__ void sgemm_reference(int M, int N, int K, const float* A, const float* B, float* C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  double sum = 0.0;
  for (int k = 0; k < K; ++k) sum += (double)A[(size_t)row * K + k] * (double)B[(size_t)k * N + col];
  C[(size_t)row * N + col] = (float)sum;
}

__global__ void conv2d_reference(int W, int H, const ConvFilter filter, const float* in, float* out) {
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= H || x >= W) return;
  const int in_w = W + kConvFilter - 1;
  double sum = 0.0;
  for (int fy = 0; fy < kConvFilter; ++fy)
    for (int fx = 0; fx < kConvFilter; ++fx)
      sum += (double)in[(size_t)(y + fy) * in_w + x + fx] * (double)filter.w[fy * kConvFilter + fx];
  out[(size_t)y * W + x] = (float)sum;
}

// Counts elements that differ from the reference beyond a relative tolerance (NaN counts as wrong: the
// output is filled with NaN before the checked launch, so an element never written is caught too).
__global__ void count_mismatches(const float* out, const float* ref, size_t n, float tolerance,
                                 unsigned long long* mismatches) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const float d = fabsf(out[i] - ref[i]);
    if (!(d <= tolerance * (1.0f + fabsf(ref[i])))) atomicAdd(mismatches, 1ULL);
  }
}

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return false;
}

void fill_random(std::vector<float>& v, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& x : v) x = dist(rng);
}

float* device_copy(const std::vector<float>& host) {
  float* d = nullptr;
  if (!check(cudaMalloc(&d, host.size() * sizeof(float)), "cudaMalloc")) std::exit(3);
  cudaMemcpy(d, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
  return d;
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string space, output, names_csv;
  size_t start = 0;
  double deadline_s = 1e9;  // seconds from now; configurations not reached are left out
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--space") space = argv[i + 1];
    else if (flag == "--out") output = argv[i + 1];
    else if (flag == "--start") start = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--deadline") deadline_s = std::atof(argv[i + 1]);
    else if (flag == "--names") names_csv = argv[i + 1];
  }
  if (space.empty() || output.empty() || names_csv.empty()) {
    std::fprintf(stderr, "usage: driver --space gemm|conv --out FILE.jsonl --names A,B,.. [--start I] [--deadline S]\n");
    return 2;
  }
  std::vector<std::string> names;
  for (size_t pos = 0;;) {
    const size_t comma = names_csv.find(',', pos);
    names.push_back(names_csv.substr(pos, comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  const auto t_begin = std::chrono::steady_clock::now();
  const std::vector<KernelEntry> table = kernel_table(space);
  Problem p;
  size_t out_elems = 0;
  float* reference = nullptr;
  float* result = nullptr;
  if (space == "gemm") {
    p.M = p.N = p.K = 2048;
    std::vector<float> a((size_t)p.M * p.K), b((size_t)p.K * p.N);
    fill_random(a, 1);
    fill_random(b, 2);
    p.A = device_copy(a);
    p.B = device_copy(b);
    out_elems = (size_t)p.M * p.N;
    cudaMalloc(&reference, out_elems * sizeof(float));
    sgemm_reference<<<dim3(p.N / 16, p.M / 16), dim3(16, 16)>>>(p.M, p.N, p.K, p.A, p.B, reference);
  } else if (space == "conv") {
    p.W = p.H = 4096;
    std::vector<float> in((size_t)(p.W + kConvFilter - 1) * (p.H + kConvFilter - 1));
    fill_random(in, 3);
    std::vector<float> w(kConvFilter * kConvFilter);
    fill_random(w, 4);
    std::copy(w.begin(), w.end(), p.filter.w);
    p.in = device_copy(in);
    out_elems = (size_t)p.W * p.H;
    cudaMalloc(&reference, out_elems * sizeof(float));
    conv2d_reference<<<dim3(p.W / 16, p.H / 16), dim3(16, 16)>>>(p.W, p.H, p.filter, p.in, reference);
  } else {
    std::fprintf(stderr, "unknown space %s\n", space.c_str());
    return 2;
  }
  if (!check(cudaDeviceSynchronize(), "reference")) return 3;
  cudaMalloc(&result, out_elems * sizeof(float));
  if (space == "gemm") p.C = result; else p.out = result;
  unsigned long long* mismatches = nullptr;
  cudaMalloc(&mismatches, sizeof(unsigned long long));
  cudaEvent_t ev0, ev1;
  cudaEventCreate(&ev0);
  cudaEventCreate(&ev1);
  cudaEvent_t marks[21];
  for (cudaEvent_t& m : marks) cudaEventCreate(&m);

  FILE* out = std::fopen(output.c_str(), "a");
  if (!out) { std::perror(output.c_str()); return 2; }
  for (size_t index = start; index < table.size(); ++index) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_begin).count();
    if (elapsed > deadline_s) {
      std::fprintf(stderr, "deadline reached at configuration %zu of %zu\n", index, table.size());
      break;
    }
    const KernelEntry& entry = table[index];
    std::string line = "{\"index\":" + std::to_string(index);
    for (size_t k = 0; k < names.size() && k < 6; ++k)
      line += ",\"" + names[k] + "\":" + std::to_string(entry.params[k]);
    cudaFuncAttributes attributes{};
    entry.attributes(&attributes);
    line += ",\"registers\":" + std::to_string(attributes.numRegs) +
            ",\"static_smem\":" + std::to_string(attributes.sharedSizeBytes) +
            ",\"local_bytes\":" + std::to_string(attributes.localSizeBytes);
    // Checked launch on a NaN-filled output.
    cudaMemset(result, 0xFF, out_elems * sizeof(float));
    cudaMemset(mismatches, 0, sizeof(unsigned long long));
    std::string invalid;
    cudaError_t e = entry.launch(p);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    bool context_lost = false;
    if (e != cudaSuccess) {
      invalid = std::string("launch failed: ") + cudaGetErrorString(e);
      // Errors that poison the context: record this configuration, then let the script restart the
      // process at the next one.
      context_lost = e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure ||
                     e == cudaErrorMisalignedAddress || e == cudaErrorIllegalInstruction ||
                     e == cudaErrorHardwareStackError || e == cudaErrorLaunchTimeout;
    } else {
      count_mismatches<<<264, 256>>>(result, reference, out_elems, 1e-3f, mismatches);
      unsigned long long wrong = 0;
      cudaMemcpy(&wrong, mismatches, sizeof(wrong), cudaMemcpyDeviceToHost);
      if (wrong) invalid = "wrong result: " + std::to_string(wrong) + " of " + std::to_string(out_elems) + " elements differ";
    }
    if (!invalid.empty()) {
      line += ",\"valid\":false,\"reason\":\"" + json_escape(invalid) + "\"}";
      if (context_lost) {
        std::fprintf(out, "%s\n", line.c_str());
        std::fclose(out);
        return 4;
      }
    } else {
      // Warm-up, then as many launches as fit in ~10 ms (3 to 20). The launches are queued back to back with
      // an event between each two, so the GPU never waits for the host (the host may be busy compiling the
      // next space) and each interval is one kernel's time.
      entry.launch(p);
      cudaEventRecord(ev0);
      entry.launch(p);
      cudaEventRecord(ev1);
      cudaEventSynchronize(ev1);
      float first_ms = 0;
      cudaEventElapsedTime(&first_ms, ev0, ev1);
      const int reps = std::clamp((int)(10.0f / std::max(first_ms, 1e-3f)), 3, 20);
      entry.launch(p);  // keeps the GPU busy while the timed launches are queued
      for (int r = 0; r < reps; ++r) {
        cudaEventRecord(marks[r]);
        entry.launch(p);
      }
      cudaEventRecord(marks[reps]);
      cudaEventSynchronize(marks[reps]);
      std::vector<float> times;
      for (int r = 0; r < reps; ++r) {
        float ms = 0;
        cudaEventElapsedTime(&ms, marks[r], marks[r + 1]);
        times.push_back(ms);
      }
      std::sort(times.begin(), times.end());
      const float median = times.size() % 2 ? times[times.size() / 2]
                                             : 0.5f * (times[times.size() / 2 - 1] + times[times.size() / 2]);
      char buf[160];
      std::snprintf(buf, sizeof buf, ",\"valid\":true,\"time_ms\":%.6f,\"min_ms\":%.6f,\"max_ms\":%.6f,\"launches\":%d}",
                    median, times.front(), times.back(), reps);
      line += buf;
      e = cudaGetLastError();
      if (e != cudaSuccess) std::fprintf(stderr, "config %zu: %s\n", index, cudaGetErrorString(e));
    }
    std::fprintf(out, "%s\n", line.c_str());
    std::fflush(out);
  }
  std::fclose(out);
  return 0;
}
