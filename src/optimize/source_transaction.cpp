#include "optimize/source_transaction.hpp"

#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/atomic_file.hpp"
#include "support/errors.hpp"

namespace rpl::optimize {
namespace fs = std::filesystem;

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ExitCode::InputMissing, fmt::format("{}: cannot be read", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text_file_atomically(const std::string& path, const std::string& text) {
  write_file_atomically(path, [&](std::FILE* f) {
    if (std::fwrite(text.data(), 1, text.size(), f) != text.size())
      throw Error(ExitCode::OutputFailed, fmt::format("cannot write {}", path));
  });
}

SourceTransaction::SourceTransaction(std::string source_path, StepHook hook)
    : source_(std::move(source_path)), hook_(std::move(hook)) {}

void SourceTransaction::begin(const std::string& original_text) {
  original_ = original_text;
  backup_ = source_ + ".orig";
  for (int i = 1; fs::exists(backup_); ++i) backup_ = fmt::format("{}.orig.{}", source_, i);
  step("backup");
  write_text_file_atomically(backup_, original_text);
  step("journal");
  nlohmann::json j = {{"schema_version", "1.0"}, {"source", source_}, {"backup", backup_}, {"state", "trial"}};
  write_text_file_atomically(journal_path(), j.dump(1) + "\n");
  open_ = true;
  step("begun");
}

void SourceTransaction::apply(const std::string& candidate_text) {
  step("apply");
  write_text_file_atomically(source_, candidate_text);
  step("applied");
}

void SourceTransaction::commit() {
  step("commit");
  fs::remove(journal_path());
  open_ = false;
  step("committed");
}

void SourceTransaction::rollback() {
  if (!open_) return;
  step("rollback");
  write_text_file_atomically(source_, original_);
  step("rolled_back");
  fs::remove(journal_path());
  open_ = false;
  step("closed");
}

std::optional<std::string> SourceTransaction::recover(const std::string& source_path) {
  std::string journal = source_path + ".rocm-perf-journal";
  if (!fs::exists(journal)) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(read_text_file(journal), nullptr, false);
  if (!j.is_object() || !j.contains("backup"))
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: an unreadable journal of an interrupted optimize run; the "
                                                    "original source is in {}.orig (check, then remove the journal)",
                                                    journal, source_path));
  std::string backup = j["backup"].get<std::string>();
  if (!fs::exists(backup))  // killed while writing the backup: the source was never touched
    return fs::remove(journal), std::optional<std::string>(source_path);
  write_text_file_atomically(source_path, read_text_file(backup));
  fs::remove(journal);
  return backup;
}

}  // namespace rpl::optimize
