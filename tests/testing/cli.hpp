#pragma once
// Runs the rocm-perf binary as a user would and captures what it prints.
#include <string>
#include <utility>
#include <vector>

namespace rpl::test {

struct CliResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// args after "rocm-perf"; env entries are added to the environment.
CliResult run_cli(const std::vector<std::string>& args,
                  const std::vector<std::pair<std::string, std::string>>& env = {});

// Validates a JSON file against schemas/<schema>.schema.json with python3-jsonschema. Returns "" when
// valid, otherwise the validator's messages.
std::string validate_against_schema(const std::string& schema, const std::string& json_file);

std::string read_file(const std::string& path);

}  // namespace rpl::test
