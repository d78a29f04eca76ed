#pragma once
// `rocm-perf export csv`: the trace as the CSV files rocprofv3 writes with `--output-format csv`, with the
// same file names, columns, column order and value formats, so that scripts written for rocprofv3's output
// read ours unchanged (docs/export.md lists the columns and where each value comes from):
//
//   kernel_trace.csv       "Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id",
//                          "Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size",
//                          "Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X",
//                          "Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"
//   memory_copy_trace.csv  "Kind","Direction","Stream_Id","Source_Agent_Id","Destination_Agent_Id",
//                          "Correlation_Id","Start_Timestamp","End_Timestamp"
//   counter_collection.csv "Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id",
//                          "Grid_Size","Kernel_Id","Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size",
//                          "VGPR_Count","Accum_VGPR_Count","SGPR_Count","Counter_Name","Counter_Value",
//                          "Start_Timestamp","End_Timestamp"  (only when the trace holds counter values)
//   <domain>_api_trace.csv "Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp",
//                          "End_Timestamp"  (hip_, hsa_, marker_, rccl_ as rocprofv3; cuda_ for CUDA traces)
//   library_trace.csv      the madengine guide's library calls (report/library_trace.hpp): those the markers
//                          name, and those the libraries' API logs list (NVIDIA; RocprofCsvOptions::logged_calls)
//
// As rocprofv3: every header and string value is in double quotes, numbers are bare, a file whose table is
// empty is not written, one set of files per process. Agents are "Agent N" (N = logical index, rocprofv3's
// default `--agent-index relative`, or the absolute index). LDS_Block_Size is the kernel's static LDS rounded
// up to rocprofv3's 512-byte allocation block. Rows are in start order (end descending on ties) per process.
#include <string>
#include <vector>

#include "model/logged_library_calls.hpp"
#include "model/trace.hpp"

namespace rpl::report {

enum class AgentIndex { Relative, Absolute };

struct RocprofCsvOptions {
  std::string output_dir = ".";
  std::string prefix;  // "P" -> P_kernel_trace.csv, as rocprofv3's -o P
  AgentIndex agent_index = AgentIndex::Relative;
  // The calls of the libraries' API logs (cuBLAS, cuBLASLt, cuDNN; `profile --library-trace` keeps them in the run
  // folder's library_logs/), on the trace's clock: listed in library_trace.csv beside the marker ranges' calls,
  // linked to kernels as profile links them.
  std::vector<LoggedLibraryCall> logged_calls;
};

// The exact header lines (without the newline), for tests and docs.
extern const char* const kKernelTraceHeader;
extern const char* const kMemoryCopyTraceHeader;
extern const char* const kApiTraceHeader;
extern const char* const kCounterCollectionHeader;

// The file an API category goes to: "HIP_RUNTIME_API_EXT" -> "hip_api_trace", "CUDA_DRIVER_API" ->
// "cuda_api_trace", "MARKER_CORE_API" -> "marker_api_trace".
std::string api_trace_file_stem(std::string_view category);

// Writes the files (each atomically) into options.output_dir, creating it; returns the paths written.
// Throws rpl::Error(OutputFailed) when a file or the folder cannot be written.
std::vector<std::string> write_rocprof_csv(const Trace& trace, const RocprofCsvOptions& options);

}  // namespace rpl::report
