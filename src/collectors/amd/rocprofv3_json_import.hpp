#pragma once
// ROCm 6.2-6.4: rocprofv3 there writes no rocpd database; besides CSV (rocprofv3_csv_import.hpp) it writes one
// JSON document per run (`--output-format json`, <pid>_results.json). This importer reads it into rocpd
// databases, one per process, so that `analyze` works on those installs. The JSON carries what the CSV files
// lack: each copy's byte count, the kernels' mangled and demangled names side by side, code objects, and the
// counter values of a counter-collection run (stored for the dispatches the same run traced). Unvalidated on
// AMD hardware: tested against fixtures written to rocprofiler-sdk's own schema of this output
// (source/docs/rocprofv3-schema.json; tests/data/rocprofv3_json/README.md).
//
// Layout (per process, the elements of the top-level "rocprofiler-sdk-tool" array):
//   metadata {pid, init_time, fini_time, command?}   agents [{id{handle}, type (1 CPU, 2 GPU), node_id,
//   logical_node_id, name, product_name, cu_count, ...}]   counters [{id{handle}, agent_id{handle}, name,
//   description, block}]   strings {buffer_records [{kind, operations[]}] indexed by the records' kind and
//   operation numbers, marker_api [{key: correlation id, value: message}]}   code_objects   kernel_symbols
//   [{kernel_id, code_object_id, kernel_name, demangled_kernel_name, group/private_segment_size, ...}]
//   callback_records {counter_collection [{dispatch_data{dispatch_info{dispatch_id}}, records [{counter_id
//   {handle}, value}]}]}   buffer_records {kernel_dispatch, memory_copy (bytes), hip_api, hsa_api, marker_api,
//   rccl_api, scratch_memory: [{kind, operation, thread_id, correlation_id{internal}, start_timestamp,
//   end_timestamp, ...}]}
#include <string>
#include <vector>

namespace rpl::collectors {

// The rocprofv3 JSON result files at `path`: itself when it is a file, else every *results.json under it
// (recursively), in path order.
std::vector<std::string> find_rocprofv3_json(const std::string& path);

// Imports every process of one JSON file into `output_folder`/<pid>_results.db (each written whole or not at
// all). Returns the databases. Throws rpl::Error naming the file and the record: InputCorrupt for what is
// not JSON or not this layout, InputEmpty when a process holds no kernel, copy or API record.
std::vector<std::string> import_rocprofv3_json_file(const std::string& file, const std::string& output_folder);

// Every file find_rocprofv3_json finds; databases under `output_dir` in the files' relative folders (beside
// the files when `output_dir` is empty). InputMissing when there is none.
std::vector<std::string> import_rocprofv3_json(const std::string& path, const std::string& output_dir);

}  // namespace rpl::collectors
