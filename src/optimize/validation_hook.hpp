#pragma once
// `optimize --validate-command CMD` (the seeds' "optional numerical validation hooks"): a command of the user's
// run on every equivalence input after the built-in comparison (--rtol / --atol) passed, to judge the replayed
// outputs by the user's own rule (a norm, a residual, a domain check). Exit status 0 admits the candidate on
// that input; anything else rejects it. The command runs under /bin/sh -c with
//   {ORIGINAL} / $RPL_ORIGINAL_DUMP    the original kernel's replay dump (one r<ID>.bin per memory region)
//   {CANDIDATE} / $RPL_CANDIDATE_DUMP  the candidate's replay dump on the same input
//   {CAPTURE} / $RPL_CAPTURE_DIR       the input's capture (manifest.json says which region is which)
//   {INPUT} / $RPL_INPUT               the input's name ("launch1-captured", "poisoned", ...)
// (placeholders replaced by the shell-quoted value). Its output goes to a log file beside the candidate's dumps.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace rpl::optimize {

struct ValidationRun {
  std::string input;
  std::filesystem::path original_dump, candidate_dump, capture;
  std::filesystem::path log_file;  // the command's stdout and stderr
};

struct ValidationOutcome {
  bool passed = false;
  std::string status;       // "exited with status 0", "killed by signal 9 ...", "timed out ..."
  std::string output_tail;  // the end of its output, for the evidence
  nlohmann::json to_json(const std::string& command, const ValidationRun& run) const;
};

// The command with its placeholders replaced (shell-quoted), as it is run.
std::string expand_validation_command(const std::string& command, const ValidationRun& run);

// Runs the command (timeout_s: 0 none). Throws rpl::Error(OutputFailed) only when its log cannot be written.
ValidationOutcome run_validation_command(const std::string& command, const ValidationRun& run, double timeout_s);

}  // namespace rpl::optimize
