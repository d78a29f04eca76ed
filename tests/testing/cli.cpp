#include "testing/cli.hpp"

#include <fstream>
#include <sstream>

#include "support/process.hpp"
#include "testing/tmpdir.hpp"

namespace rpl::test {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CliResult run_cli(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env) {
  TempDir tmp;
  ProcessSpec spec;
  spec.argv.push_back(RPL_CLI_PATH);
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = env;
  spec.stdout_file = tmp.file("stdout");
  spec.stderr_file = tmp.file("stderr");
  ProcessResult r = run_process(spec);
  CliResult out;
  out.exit_code = r.signal ? 128 + r.signal : r.exit_code;
  out.out = read_file(tmp.file("stdout"));
  out.err = read_file(tmp.file("stderr"));
  return out;
}

std::string validate_against_schema(const std::string& schema, const std::string& json_file) {
  TempDir tmp;
  ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", std::string(RPL_SOURCE_DIR) + "/tests/tools/validate_json.py",
               std::string(RPL_SOURCE_DIR) + "/schemas", schema, json_file};
  spec.stderr_file = tmp.file("stderr");
  spec.stdout_file = tmp.file("stdout");
  ProcessResult r = run_process(spec);
  if (r.ok()) return "";
  std::string msg = read_file(tmp.file("stderr"));
  return msg.empty() ? "validator " + r.describe() : msg;
}

}  // namespace rpl::test
