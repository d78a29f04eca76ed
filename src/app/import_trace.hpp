#pragma once
// `rocm-perf import rocprofv3-csv DIR` / `import rocprofv3-json PATH`: the CSV or JSON output of ROCm
// 6.2-6.4's rocprofv3 (which writes no rocpd database) converted into rocpd databases that `analyze` reads
// (collectors/amd/rocprofv3_csv_import.hpp, rocprofv3_json_import.hpp). Unvalidated on AMD hardware.
#include <string>
#include <vector>

namespace rpl::app {

// One database per process found under `input_dir`, written under `output_dir` (empty: beside the CSV
// files) as <pid>_results.db. Returns their paths. Throws rpl::Error naming the file that cannot be read.
std::vector<std::string> import_rocprofv3_csv(const std::string& input_dir, const std::string& output_dir);

// One database per process of every rocprofv3 JSON file at `path` (a *results.json file, or a folder searched
// for them), written under `output_dir` (empty: beside the JSON files) as <pid>_results.db.
std::vector<std::string> import_rocprofv3_json(const std::string& path, const std::string& output_dir);

}  // namespace rpl::app
