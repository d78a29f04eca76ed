#pragma once
// The decoded documents of one rocprofv3 --att per-dispatch output (reference amd-profiling-stack.md §5.2), as
// collectors/amd/att_import reads them from disk and analysis/ computes the deep analysis from them: the
// file walking stays with the importer, the analysis only computes.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpl {

struct AttDispatchDocuments {
  std::string path;                         // the ui_output_agent_<agent>_dispatch_<id> folder
  std::optional<nlohmann::json> code;       // code.json
  std::string code_file;
  std::optional<std::string> stats_csv;     // the stats_*.csv beside the folder, read when there is no code.json
  std::string stats_csv_file;
  std::optional<nlohmann::json> occupancy;  // occupancy.json
  std::vector<nlohmann::json> waves;        // se<N>_sm<N>_sl<N>_wv<N>.json, in file-name order
};

}  // namespace rpl
