#pragma once
// AMD: drives rocprofv3 through its documented command line and collects the rocpd databases it writes
// (ROCm 7.x), or, where it has no rocpd output (ROCm 6.2-6.4: `rocprofv3 --help` lists no "rocpd" among its
// formats), its CSV files imported into rocpd databases beside them (amd/rocprofv3_csv_import.hpp).
// Unvalidated on AMD hardware here: tested against a stand-in rocprofv3 (tests/doubles/).
#include <string>
#include <utility>
#include <vector>

#include "platform/platform.hpp"

namespace rpl::collectors {

class Rocprofv3Collector : public platform::Collector {
 public:
  std::string name() const override { return "rocprofv3"; }
  platform::CollectResult collect(const platform::CollectRequest& request) override;

  // The rocprofv3 arguments for one run (kernel, memory-copy and HIP runtime traces: the DAG needs the
  // HIP event and synchronisation calls).
  // `rocpd` false: rocprofv3 of ROCm 6.x, asked for CSV instead.
  static std::vector<std::string> command_line(const platform::CollectRequest& request, const std::string& out_dir,
                                               bool rocpd = true);
};

// The environment a traced run gets when library calls are asked for (TraceDomains::library_calls):
// HIPBLASLT_ENABLE_MARKER=1 and MIOPEN_ENABLE_LOGGING_ROCTX=1, each unless the user set it already.
std::vector<std::pair<std::string, std::string>> library_marker_environment();

// Whether the rocprofv3 on PATH writes rocpd databases: "rocpd" among the output formats its --help lists
// (ROCm 7.0 and later). Its help text is kept in `help_file`. RPL_ROCPROFV3_OUTPUT=csv|rocpd overrides.
bool rocprofv3_writes_rocpd(const std::string& help_file);

// Every *_results.db under `dir`, recursively: rocprofv3 writes DIR/<hostname>/<pid>_results.db by
// default, per-pass subdirectories (pmc_N/, pass_N/) with counters, and whatever %tag% names -o asks for.
std::vector<std::string> find_rocpd_databases(const std::string& dir);

}  // namespace rpl::collectors
