#pragma once
// Library calls as the libraries' own API logs record them (NVIDIA: cuBLAS's CUBLAS_LOGINFO_DBG log, cuBLASLt's
// CUBLASLT_LOG_LEVEL log, cuDNN's CUDNN_LOGLEVEL_DBG log; collectors/nvidia/library_api_logs.hpp reads them):
// one record per logged call with the time the log gives (converted to the trace's clock), the process and
// thread, and the key arguments. No end time: the logs record a call when it starts. analysis/library_calls
// links each call to the kernels its thread launched inside the call's window.
#include <cstdint>
#include <string>

#include "model/dispatch.hpp"

namespace rpl {

struct LoggedLibraryCall {
  std::string library;    // "cuBLAS", "cuBLASLt", "cuDNN"
  std::string function;   // "cublasGemmEx", "cublasLtMatmul", "cudnnBackendExecute"
  std::string arguments;  // the key arguments, "m=64 n=64 k=64 transa=CUBLAS_OP_T Atype=CUDA_R_16BF ..."
  int64_t pid = 0;
  uint64_t thread = 0;     // as the log writes it (cuBLAS: pthread_self; cuDNN: the OS thread id); 0 = not logged
  TimeNs time = 0;         // when the call started, on the trace's clock (the log's time converted)
  TimeNs resolution = 0;   // of the log's time stamp: 1000 (cuDNN, microseconds) or 1e9 (cuBLAS, cuBLASLt: seconds);
                           // 0: the log gave no time (older cuBLASLt lines), `time` means nothing
  TimeNs end = 0;          // when it returned, where the log says (cuDNN 9 logs a return record); 0: not logged
  bool may_launch_work = true;  // false for set-up calls (create, destroy, set, get, ...): never linked to kernels
  std::string log_file;    // the log it came from (for messages)
};

}  // namespace rpl
