#pragma once
// ROCm 6.2-6.4: rocprofv3 there writes no rocpd database (`--output-format rocpd` came with ROCm 7.0), only
// CSV, JSON, pftrace and OTF2. This importer reads its CSV files into rocpd databases, one per process, so
// that `analyze` and `profile` work on those installs. Unvalidated on AMD hardware: tested against fixtures
// in the documented layouts (tests/data/rocprofv3_csv/).
//
// Files of one process share a folder and a prefix ("<pid>_" by default): <prefix>agent_info.csv,
// kernel_trace.csv, memory_copy_trace.csv, hip_api_trace.csv, hsa_api_trace.csv, marker_api_trace.csv,
// rccl_api_trace.csv. Columns are found by name in each file's header, so every layout reads:
//   ROCm 6.2  kernel_trace: Kind, Agent_Id (agent node id), Queue_Id, Kernel_Id, Kernel_Name, Correlation_Id,
//             Start_Timestamp, End_Timestamp, Private_Segment_Size, Group_Segment_Size, Workgroup_Size_X/Y/Z,
//             Grid_Size_X/Y/Z
//   ROCm 6.3  the same plus Thread_Id and Dispatch_Id
//   ROCm 6.4+ "Agent N" agent ids, Stream_Id, LDS_Block_Size, Scratch_Size, VGPR_Count, Accum_VGPR_Count,
//             SGPR_Count instead of the segment sizes (what `rocm-perf export csv` writes)
//   memory_copy_trace: Kind, Direction, Source_Agent_Id, Destination_Agent_Id, Correlation_Id, Start_Timestamp,
//             End_Timestamp (Stream_Id from 6.4); no byte counts in any version
//   *_api_trace: Domain, Function, Process_Id, Thread_Id, Correlation_Id, Start_Timestamp, End_Timestamp (no
//             arguments: the dependency edges that need a stream or event argument are not inferred)
//   agent_info: Node_Id, Logical_Node_Id, Agent_Type, Name (gfx942), Product_Name, Cu_Count, Simd_Per_Cu,
//             Max_Waves_Per_Simd, Wave_Front_Size, Lds_Size_In_Kb, Max_Engine_Clk_Fcompute, ...
#include <string>
#include <vector>

namespace rpl::collectors {

struct CsvProcessFiles {
  std::string folder;  // where the files are
  std::string prefix;  // "12345_"; "" when the files have none
};

// Every process's file set under `dir` (recursively), in path order.
std::vector<CsvProcessFiles> find_rocprofv3_csv(const std::string& dir);

// Imports one process's files into a rocpd database at `database` (written whole or not at all). Throws
// rpl::Error: InputNotRocpd-style format errors as InputCorrupt naming the file, line and column;
// InputEmpty when the set holds no kernel, copy or API record.
void import_rocprofv3_csv(const CsvProcessFiles& files, const std::string& database);

// Imports every process found under `dir`; each database goes to `output_dir`/<relative folder>/<pid>_results.db
// (beside the CSV files when `output_dir` is `dir`). Returns the databases written; InputMissing when
// there is no rocprofv3 CSV file under `dir`.
std::vector<std::string> import_rocprofv3_csv_dir(const std::string& dir, const std::string& output_dir);

}  // namespace rpl::collectors
