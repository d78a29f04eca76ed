#pragma once
// Library calls known only by their count, not as timed marker ranges: rocBLAS puts no ROCTx range around its
// calls, but its profile log (ROCBLAS_LAYER=4) lists each function with its performance-critical arguments and
// how often it was called with them (collectors/amd/rocblas_profile_log.hpp). No times, so no GPU work either.
#include <cstdint>
#include <string>

namespace rpl {

struct LibraryCallCount {
  std::string library;    // "rocBLAS"
  std::string function;   // "rocblas_sgemm"
  std::string arguments;  // the log's other fields as written: "transA: 'N', transB: 'T', M: 128, ..."
  int64_t calls = 0;
};

}  // namespace rpl
