#include "optimize/validation_hook.hpp"

#include <fmt/core.h>

#include "support/process.hpp"

namespace rpl::optimize {
namespace fs = std::filesystem;
namespace {

// 'text' for /bin/sh, a quote inside written as '\''.
std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

}  // namespace

std::string expand_validation_command(const std::string& command, const ValidationRun& run) {
  std::string out = command;
  replace_all(out, "{ORIGINAL}", shell_quoted(run.original_dump.string()));
  replace_all(out, "{CANDIDATE}", shell_quoted(run.candidate_dump.string()));
  replace_all(out, "{CAPTURE}", shell_quoted(run.capture.string()));
  replace_all(out, "{INPUT}", shell_quoted(run.input));
  return out;
}

ValidationOutcome run_validation_command(const std::string& command, const ValidationRun& run, double timeout_s) {
  std::error_code ec;
  fs::create_directories(run.log_file.parent_path(), ec);
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "exec 2>&1\n" + expand_validation_command(command, run)};  // one log, in order
  spec.env = {{"RPL_ORIGINAL_DUMP", run.original_dump.string()},
              {"RPL_CANDIDATE_DUMP", run.candidate_dump.string()},
              {"RPL_CAPTURE_DIR", run.capture.string()},
              {"RPL_INPUT", run.input}};
  spec.stdout_file = run.log_file.string();
  spec.timeout_s = timeout_s;
  const ProcessResult r = run_process(spec);
  ValidationOutcome out;
  out.passed = r.ok();
  out.status = r.describe();
  out.output_tail = tail_of_file(run.log_file.string());
  return out;
}

nlohmann::json ValidationOutcome::to_json(const std::string& command, const ValidationRun& run) const {
  return {{"command", command}, {"passed", passed}, {"status", status}, {"log", run.log_file.string()},
          {"output_tail", output_tail}};
}

}  // namespace rpl::optimize
