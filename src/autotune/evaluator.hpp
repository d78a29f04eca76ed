#pragma once
// How one configuration is measured. Each configuration runs as separate processes; a configuration whose
// command fails, times out or yields no objective is invalid (with the reason), never fast.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "autotune/space.hpp"
#include "support/user_regex.hpp"

namespace rpl::autotune {

struct Outcome {
  bool valid = false;
  double objective = 0;  // smaller is better (milliseconds for kernel-time and replay)
  std::string reason;    // why invalid
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // `sequence` numbers the measurements of this run (for per-run folders).
  virtual Outcome evaluate(const SearchSpace& space, ConfigView config, std::size_t sequence) = 0;
  // What is measured and how; stored in autotune.json and in the cache header (a cache written for another
  // objective is refused).
  virtual nlohmann::ordered_json describe() const = 0;
};

// A command line with {NAME} placeholders, split into words like a shell would (quotes, backslashes) but
// run without a shell; each placeholder is replaced inside its word, so a value never splits a word.
class CommandTemplate {
 public:
  // `extra` names placeholders that are not parameters (e.g. OUT). Throws Usage naming an unknown
  // placeholder or an unterminated quote or brace.
  CommandTemplate(const std::string& text, const SearchSpace& space, const std::string& flag,
                  const std::vector<std::string>& extra = {});
  std::vector<std::string> expand(const SearchSpace& space, ConfigView config,
                                  const std::vector<std::pair<std::string, std::string>>& extra = {}) const;
  const std::string& text() const { return text_; }
  // Parameters the template never mentions.
  std::vector<std::string> unused(const SearchSpace& space) const;

 private:
  std::string text_;
  std::vector<std::string> words_;
  std::vector<std::string> names_;  // placeholders seen
};

struct CommandOptions {
  std::string output_dir;  // runs/<sequence>/ keeps each failed run's stdout and stderr
  double timeout_s = 0;
};

// --objective stdout: the first capture group of `regex` in the program's stdout.
class StdoutEvaluator : public Evaluator {
 public:
  StdoutEvaluator(CommandTemplate command, const std::string& regex, CommandOptions options);
  Outcome evaluate(const SearchSpace& space, ConfigView config, std::size_t sequence) override;
  nlohmann::ordered_json describe() const override;

 private:
  CommandTemplate command_;
  std::string regex_text_;
  UserRegex regex_;  // RE2, as every pattern a user types
  CommandOptions options_;
};

// --objective kernel-time: the sum of the application's kernel durations under rocm-perf's profiler
// (median over --runs runs), restricted to kernels matching --kernel.
class KernelTimeEvaluator : public Evaluator {
 public:
  KernelTimeEvaluator(CommandTemplate command, std::optional<std::string> kernel_regex, unsigned runs,
                      CommandOptions options);
  Outcome evaluate(const SearchSpace& space, ConfigView config, std::size_t sequence) override;
  nlohmann::ordered_json describe() const override;

 private:
  CommandTemplate command_;
  std::optional<std::string> kernel_regex_;
  unsigned runs_;
  CommandOptions options_;
};

// Parses the first number (C syntax, optional exponent) of `text`; nullopt when there is none.
std::optional<double> parse_number(const std::string& text);

}  // namespace rpl::autotune
