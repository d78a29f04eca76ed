#include "app/import_trace.hpp"

#include <fmt/core.h>

#include <filesystem>

#include "collectors/amd/rocprofv3_csv_import.hpp"
#include "collectors/amd/rocprofv3_json_import.hpp"
#include "support/errors.hpp"

namespace rpl::app {

std::vector<std::string> import_rocprofv3_csv(const std::string& input_dir, const std::string& output_dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(input_dir, ec))
    throw Error(ExitCode::InputMissing, fmt::format("{}: not a folder (give the folder rocprofv3 wrote its CSV "
                                                    "files into, its -d)", input_dir));
  return collectors::import_rocprofv3_csv_dir(input_dir, output_dir.empty() ? input_dir : output_dir);
}

std::vector<std::string> import_rocprofv3_json(const std::string& path, const std::string& output_dir) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error(ExitCode::InputMissing, fmt::format("{}: no such file or folder (give rocprofv3's <pid>_results.json "
                                                    "or the folder it wrote into, its -d)", path));
  return collectors::import_rocprofv3_json(path, output_dir);
}

}  // namespace rpl::app
