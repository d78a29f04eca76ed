#pragma once
// Outputs of --scratch-memory-trace: scratch_memory_trace.csv (rocprofv3's CSV of the same name: its columns,
// and the allocation size rocprofiler-sdk's other writers add) and scratch_memory.json
// (schemas/scratch-memory.schema.json).
//
//   scratch_memory_trace.csv  "Kind","Operation","Agent_Id","Queue_Id","Thread_Id","Alloc_Flags",
//                             "Start_Timestamp","End_Timestamp","Allocation_Size"
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/scratch_memory.hpp"

namespace rpl::report {

extern const char* const kScratchMemoryTraceHeader;

// Writes the CSV atomically (header and one row per operation); throws rpl::Error(OutputFailed).
void write_scratch_memory_csv(const std::string& path, const std::vector<ScratchOperation>& operations);
// `source` says what recorded the operations (or why there are none).
nlohmann::json scratch_memory_document(const analysis::ScratchSummary& summary, const std::string& source);
// scratch_memory.json (the operations summarised with `trace`'s kernels) and, when there are operations,
// scratch_memory_trace.csv into `dir`; returns the number of kernels that need scratch. Throws OutputFailed.
std::size_t write_scratch_outputs(const std::string& dir, const std::vector<ScratchOperation>& operations,
                                  const Trace& trace, const std::string& source);

}  // namespace rpl::report
