#pragma once
// AMD: drives rocprofv3 (ROCm 7.x) through its documented command line and collects the rocpd databases
// it writes. Unvalidated on AMD hardware here: tested against a stand-in rocprofv3 (tests/doubles/).
#include "platform/platform.hpp"

namespace rpl::collectors {

class Rocprofv3Collector : public platform::Collector {
 public:
  std::string name() const override { return "rocprofv3"; }
  platform::CollectResult collect(const platform::CollectRequest& request) override;

  // The rocprofv3 arguments for one run (kernel, memory-copy and HIP runtime traces: the DAG needs the
  // HIP event and synchronisation calls).
  static std::vector<std::string> command_line(const platform::CollectRequest& request, const std::string& out_dir);
};

// Every *_results.db under `dir`, recursively: rocprofv3 writes DIR/<hostname>/<pid>_results.db by
// default, per-pass subdirectories (pmc_N/, pass_N/) with counters, and whatever %tag% names -o asks for.
std::vector<std::string> find_rocpd_databases(const std::string& dir);

}  // namespace rpl::collectors
