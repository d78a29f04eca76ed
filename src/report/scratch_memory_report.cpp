#include "report/scratch_memory_report.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "rpl/version.hpp"
#include "support/atomic_file.hpp"

namespace rpl::report {

const char* const kScratchMemoryTraceHeader =
    R"("Kind","Operation","Agent_Id","Queue_Id","Thread_Id","Alloc_Flags","Start_Timestamp","End_Timestamp",)"
    R"("Allocation_Size")";

namespace {

// rocprofiler-sdk's operation names (rocprofiler_scratch_memory_operation_t) for rocpd's types.
const char* operation_name(ScratchOperation::Kind kind) {
  switch (kind) {
    case ScratchOperation::Kind::Alloc: return "SCRATCH_MEMORY_ALLOC";
    case ScratchOperation::Kind::Free: return "SCRATCH_MEMORY_FREE";
    case ScratchOperation::Kind::Realloc: return "SCRATCH_MEMORY_REALLOC";
    case ScratchOperation::Kind::Reclaim: return "SCRATCH_MEMORY_ASYNC_RECLAIM";
  }
  return "SCRATCH_MEMORY_ALLOC";
}

}  // namespace

void write_scratch_memory_csv(const std::string& path, const std::vector<ScratchOperation>& operations) {
  write_file_atomically(path, [&](std::FILE* f) {
    std::string out = std::string(kScratchMemoryTraceHeader) + "\n";
    for (const ScratchOperation& op : operations) {
      const std::string agent = op.agent_index < 0 ? std::string() : fmt::format("\"Agent {}\"", op.agent_index);
      out += fmt::format("\"SCRATCH_MEMORY\",\"{}\",{},{},{},{},{},{},{}\n", operation_name(op.kind), agent,
                         op.queue_id < 0 ? 0 : op.queue_id, op.tid, op.flags, op.start, op.end, op.size);
    }
    std::fwrite(out.data(), 1, out.size(), f);
  });
}

nlohmann::json scratch_memory_document(const analysis::ScratchSummary& s, const std::string& source) {
  nlohmann::json agents = nlohmann::json::array();
  for (const auto& a : s.agents)
    agents.push_back({{"pid", a.pid},
                      {"agent", a.agent.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.agent)},
                      {"agent_index", a.agent_index < 0 ? nlohmann::json(nullptr) : nlohmann::json(a.agent_index)},
                      {"allocations", a.allocations},
                      {"reallocations", a.reallocations},
                      {"frees", a.frees},
                      {"reclaims", a.reclaims},
                      {"bytes_allocated", a.bytes_allocated},
                      {"largest_allocation_bytes", a.largest_allocation},
                      {"allocation_ns", a.allocation_ns},
                      {"longest_allocation_ns", a.longest_allocation_ns}});
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : s.kernels)
    kernels.push_back(
        {{"name", k.name}, {"dispatches", k.dispatches}, {"max_bytes_per_work_item", k.max_bytes_per_work_item}});
  return {{"schema_version", "1.0"},
          {"tool", {{"name", "rocm-perf"}, {"version", kVersion}}},
          {"source", source},
          {"operations", s.operations},
          {"allocation_ns", s.allocation_ns},
          {"agents", agents},
          {"kernels", kernels}};
}

std::size_t write_scratch_outputs(const std::string& dir, const std::vector<ScratchOperation>& operations,
                                  const Trace& trace, const std::string& source) {
  const analysis::ScratchSummary summary = analysis::summarize_scratch(operations, trace);
  const std::string doc = scratch_memory_document(summary, source).dump(2) + "\n";
  write_file_atomically((std::filesystem::path(dir) / "scratch_memory.json").string(),
                        [&](std::FILE* f) { std::fwrite(doc.data(), 1, doc.size(), f); });
  if (!operations.empty())
    write_scratch_memory_csv((std::filesystem::path(dir) / "scratch_memory_trace.csv").string(), operations);
  return summary.kernels.size();
}

}  // namespace rpl::report
