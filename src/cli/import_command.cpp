// rocm-perf import rocprofv3-csv DIR | rocprofv3-json PATH [-o OUT]: ROCm 6.x rocprofv3 output into rocpd databases.
#include <fmt/core.h>

#include <memory>

#include "app/import_trace.hpp"
#include "cli/commands.hpp"
#include "support/log.hpp"

namespace rpl::cli {
namespace {

struct ImportArgs {
  bool json = false;  // rocprofv3-json, else rocprofv3-csv
  std::string input_dir;
  std::string output_dir;
  CommonOptions common;
};

int run_import_command(const ImportArgs& a) {
  set_log_level(a.common);
  const auto databases = a.json ? app::import_rocprofv3_json(a.input_dir, a.output_dir)
                                 : app::import_rocprofv3_csv(a.input_dir, a.output_dir);
  for (const auto& db : databases) fmt::print("{}\n", db);
  log::info("imported {} process(es); analyse them with rocm-perf analyze DB... (unvalidated on AMD hardware)",
            databases.size());
  return 0;
}

}  // namespace

Action register_import(CLI::App& app) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand("import", "Convert other tools' trace output into rocpd databases");
  CLI::App* csv = cmd->add_subcommand(
      "rocprofv3-csv",
      "ROCm 6.x rocprofv3 CSV output (--output-format csv: kernel, memory-copy, HIP/HSA/marker/RCCL API "
      "traces, agent_info.csv) into one rocpd database per process (<pid>_results.db), which analyze reads; "
      "prints their paths. Unvalidated on AMD hardware (docs/rocpd.md)");
  cmd->require_subcommand(1);
  csv->add_option("dir", args->input_dir, "the folder rocprofv3 wrote into (its -d); searched recursively")->required();
  csv->add_option("-o,--output-dir", args->output_dir, "where the databases go (default: beside the CSV files)");
  add_common_flags(csv, args->common, {nullptr, "warnings only on stderr", "verbose logs on stderr"});
  CLI::App* js = cmd->add_subcommand(
      "rocprofv3-json",
      "ROCm 6.x rocprofv3 JSON output (--output-format json, <pid>_results.json: kernels, copies with their "
      "byte counts, HIP/HSA/marker/RCCL API calls, scratch memory, counter values) into one rocpd database per "
      "process (<pid>_results.db), which analyze reads; prints their paths. Unvalidated on AMD hardware "
      "(docs/rocpd.md)");
  js->add_option("path", args->input_dir, "a *results.json file, or a folder searched recursively for them")->required();
  js->add_option("-o,--output-dir", args->output_dir, "where the databases go (default: beside the JSON files)");
  add_common_flags(js, args->common, {nullptr, "warnings only on stderr", "verbose logs on stderr"});
  return [csv, js, args]() -> int {
    args->json = js->parsed();
    return csv->parsed() || js->parsed() ? run_import_command(*args) : -1;
  };
}

}  // namespace rpl::cli
