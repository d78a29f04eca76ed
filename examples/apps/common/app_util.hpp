#pragma once
// Shared by the testbed apps: error checks, arguments, timing, and the lines the GPU test suite reads.
//   RPL_EXPECT kernel=<name> count=<n>    what the app launched (the suite checks the trace against it)
//   RPL_RESULT app=<name> key=value ...   measured figures (loop time, per-launch time)
// Every app verifies its own result and exits 1 on a wrong one, 2 on a CUDA/HIP error.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "hip_compat.hpp"

#define HIP_CHECK(expr)                                                                          \
  do {                                                                                           \
    hipError_t rpl_err_ = (expr);                                                                \
    if (rpl_err_ != hipSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,                 \
                   hipGetErrorString(rpl_err_));                                                 \
      std::exit(2);                                                                              \
    }                                                                                            \
  } while (0)

#define HIP_CHECK_LAUNCH() HIP_CHECK(hipGetLastError())

namespace app {

// "--name=value" or "--name value"; returns fallback when absent.
inline std::string option(int argc, char** argv, const char* name, const std::string& fallback) {
  std::string flag = std::string("--") + name;
  for (int i = 1; i < argc; ++i) {
    if (flag == argv[i] && i + 1 < argc) return argv[i + 1];
    if (std::strncmp(argv[i], flag.c_str(), flag.size()) == 0 && argv[i][flag.size()] == '=')
      return argv[i] + flag.size() + 1;
  }
  return fallback;
}

inline long option_long(int argc, char** argv, const char* name, long fallback) {
  std::string v = option(argc, argv, name, "");
  if (v.empty()) return fallback;
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (*end != '\0' || n < 0) {
    std::fprintf(stderr, "--%s=%s: expected a non-negative integer\n", name, v.c_str());
    std::exit(2);
  }
  return n;
}

// The first argument not starting with '-' as a positive count (launch_bound's N), or fallback. Options
// next to a positional count must use the "--name=value" form.
inline long positional_long(int argc, char** argv, long fallback) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    char* end = nullptr;
    long n = std::strtol(argv[i], &end, 10);
    if (*end == '\0' && n > 0) return n;
  }
  return fallback;
}

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline void expect_kernel(const char* name, long count) { std::printf("RPL_EXPECT kernel=%s count=%ld\n", name, count); }

inline int fail(const char* app, const char* what) {
  std::fprintf(stderr, "%s: WRONG RESULT: %s\n", app, what);
  return 1;
}

}  // namespace app
