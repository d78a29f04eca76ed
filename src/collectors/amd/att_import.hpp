#pragma once
// Importer for rocprofv3 --att output folders (as ncu_csv is for ncu's CSV): finds the decoded per-dispatch
// folders and reads their documents. The deep analysis computed from them is analysis::analyze_att_dispatch.
#include <cstdint>
#include <string>
#include <vector>

#include "model/att_documents.hpp"

namespace rpl::collectors {

struct AttDispatchOutput {
  std::string path;          // the ui_output_agent_<agent>_dispatch_<id> folder
  std::string agent;         // the agent handle as written in the name
  int64_t dispatch_id = 0;
  std::string stats_csv;     // the matching stats_*.csv beside it, if present
  std::string kernel;        // the dispatch's kernel, when the run's trace names it (run_rocprof_att_pass)
};
// Every decoded per-dispatch output under `root`, recursively, sorted by dispatch id. Ties each result to
// its dispatch id (never "the newest folder").
std::vector<AttDispatchOutput> find_att_outputs(const std::string& root);
// Why `root` holds nothing to analyse, when find_att_outputs is empty: raw .att files without decoded
// folders mean the decoder library was missing (reference §8 #1). Empty string when outputs exist.
std::string diagnose_att_root(const std::string& root);
// Reads one per-dispatch output's documents. Throws rpl::Error(InputMissing) when the folder or a file is
// unreadable and (InputInvalid) for malformed JSON.
AttDispatchDocuments read_att_dispatch(const AttDispatchOutput& output);

}  // namespace rpl::collectors
