#pragma once
// Replacing the user's kernel source so that a run killed at any instant (SIGKILL included) leaves the file
// either exactly the original or exactly a candidate that passed the guard, never a mix:
//   begin(): the original is copied to FILE.orig (FILE.orig.1, .2, ... when an earlier backup is there), then
//            a journal FILE.rocm-perf-journal names the backup; each written under a temporary name and renamed;
//   apply(): the candidate is written beside the source and renamed over it (one atomic rename);
//   commit(): the journal is removed (the backup stays);
//   rollback(): the backup's text is renamed back over the source, then the journal is removed.
// recover() is what the next run does first: a journal left by a killed run means its trial never
// finished, so the original comes back from the backup the journal names.
#include <functional>
#include <optional>
#include <string>

namespace rpl::optimize {

// Called at every step with its name ("backup", "journal", "apply", "commit", "rollback"...); tests kill the
// process there.
using StepHook = std::function<void(const std::string& step)>;

class SourceTransaction {
 public:
  explicit SourceTransaction(std::string source_path, StepHook hook = {});
  void begin(const std::string& original_text);
  void apply(const std::string& candidate_text);
  void commit();
  void rollback();
  const std::string& backup_path() const { return backup_; }
  std::string journal_path() const { return source_ + ".rocm-perf-journal"; }

  // Restores the source after a killed run; returns the backup restored from, or nothing when there was no
  // unfinished trial.
  static std::optional<std::string> recover(const std::string& source_path);

 private:
  void step(const std::string& name) { if (hook_) hook_(name); }
  std::string source_, backup_, original_;
  StepHook hook_;
  bool open_ = false;
};

std::string read_text_file(const std::string& path);  // throws rpl::Error(InputMissing)
void write_text_file_atomically(const std::string& path, const std::string& text);

}  // namespace rpl::optimize
