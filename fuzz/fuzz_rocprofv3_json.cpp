// rocprofv3's JSON output (ROCm 6.x, --output-format json), imported as `rocm-perf import rocprofv3-json` does
// (collectors/amd/rocprofv3_json_import.hpp); the databases of an accepted file then go through the whole
// analyze pipeline, whose outputs must validate against their schemas.
#include <filesystem>
#include <string>
#include <vector>

#include "collectors/amd/rocprofv3_json_import.hpp"
#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string dir = rpl::fuzz::scratch_dir() + "/rocprofv3_json";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir, ec);
  const std::string path = dir + "/1_results.json";
  rpl::fuzz::write_bytes(path, data, size);
  std::vector<std::string> databases;
  rpl::fuzz::expect_only_rpl_errors([&] { databases = rpl::collectors::import_rocprofv3_json_file(path, dir); });
  for (const std::string& db : databases) rpl::fuzz::analyze_and_check(db);
  return 0;
}
