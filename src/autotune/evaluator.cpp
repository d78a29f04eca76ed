#include "autotune/evaluator.hpp"

#include <fmt/core.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "app/profile.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

namespace rpl::autotune {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_words(const std::string& text, const std::string& flag) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < text.size()) word += text[++i];
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote) throw Error(ExitCode::Usage, fmt::format("{} \"{}\": unterminated {} quote", flag, text, quote));
  if (in_word) words.push_back(word);
  if (words.empty()) throw Error(ExitCode::Usage, fmt::format("{} is empty", flag));
  return words;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Keeps a failed run's output where the user can read it; the reason names the folder.
std::string keep_failed_run(const std::string& dir, const std::string& what) {
  return fmt::format("{} (output in {})", what, dir);
}

}  // namespace

CommandTemplate::CommandTemplate(const std::string& text, const SearchSpace& space, const std::string& flag,
                                 const std::vector<std::string>& extra)
    : text_(text), words_(split_words(text, flag)) {
  std::set<std::string> known(extra.begin(), extra.end());
  for (const auto& p : space.parameters()) known.insert(p.name);
  for (const auto& w : words_) {
    for (std::size_t i = w.find('{'); i != std::string::npos; i = w.find('{', i + 1)) {
      const std::size_t close = w.find('}', i);
      if (close == std::string::npos)
        throw Error(ExitCode::Usage, fmt::format("{} \"{}\": unterminated placeholder in \"{}\"", flag, text, w));
      const std::string name = w.substr(i + 1, close - i - 1);
      if (!known.count(name)) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        throw Error(ExitCode::Usage, fmt::format("{} \"{}\": unknown placeholder {{{}}} (known: {})", flag, text, name, list));
      }
      names_.push_back(name);
    }
  }
}

std::vector<std::string> CommandTemplate::expand(const SearchSpace& space, ConfigView config,
                                                 const std::vector<std::pair<std::string, std::string>>& extra) const {
  std::vector<std::string> out;
  for (const auto& w : words_) {
    std::string r;
    for (std::size_t i = 0; i < w.size();) {
      if (w[i] != '{') {
        r += w[i++];
        continue;
      }
      const std::size_t close = w.find('}', i);
      const std::string name = w.substr(i + 1, close - i - 1);
      bool found = false;
      for (std::size_t p = 0; p < space.parameters().size() && !found; ++p)
        if (space.parameters()[p].name == name) {
          r += space.text(config, p);
          found = true;
        }
      for (const auto& [k, v] : extra)
        if (!found && k == name) {
          r += v;
          found = true;
        }
      i = close + 1;
    }
    out.push_back(r);
  }
  return out;
}

std::vector<std::string> CommandTemplate::unused(const SearchSpace& space) const {
  std::vector<std::string> out;
  for (const auto& p : space.parameters())
    if (std::find(names_.begin(), names_.end(), p.name) == names_.end()) out.push_back(p.name);
  return out;
}

std::optional<double> parse_number(const std::string& text) {
  const char* s = text.c_str();
  while (*s && !(std::isdigit(static_cast<unsigned char>(*s)) ||
                 ((*s == '-' || *s == '+' || *s == '.') && std::isdigit(static_cast<unsigned char>(s[1])))))
    ++s;
  if (!*s) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || !std::isfinite(v)) return std::nullopt;
  return v;
}

StdoutEvaluator::StdoutEvaluator(CommandTemplate command, const std::string& regex, CommandOptions options)
    : command_(std::move(command)), regex_text_(regex), regex_(regex, "--objective-regex"), options_(std::move(options)) {
  if (regex_.capture_groups() < 1)
    throw Error(ExitCode::Usage, fmt::format("--objective-regex \"{}\" has no capture group (the number is the first group)", regex));
}

Outcome StdoutEvaluator::evaluate(const SearchSpace& space, ConfigView config, std::size_t sequence) {
  const std::string dir = (fs::path(options_.output_dir) / "runs" / std::to_string(sequence)).string();
  fs::create_directories(dir);
  ProcessSpec spec;
  spec.argv = command_.expand(space, config);
  spec.stdout_file = dir + "/stdout.txt";
  spec.stderr_file = dir + "/stderr.txt";
  spec.timeout_s = options_.timeout_s;
  Outcome o;
  ProcessResult r;
  try {
    r = run_process(spec);
  } catch (const Error& e) {
    o.reason = e.what();
    return o;
  }
  if (r.timed_out) o.reason = keep_failed_run(dir, fmt::format("timed out after {} s", options_.timeout_s));
  else if (!r.ok()) o.reason = keep_failed_run(dir, r.describe() + ": " + tail_of_file(*spec.stderr_file, 3));
  else {
    const std::string text = read_text(*spec.stdout_file);
    std::optional<double> v;
    const std::optional<std::string> group = regex_.first_group(text);
    if (group) v = parse_number(*group);
    if (!v) o.reason = keep_failed_run(dir, fmt::format("no number for --objective-regex \"{}\" in its output", regex_text_));
    else if (!(*v > 0))  // a time printed as 0.000, say: the search models the logarithm and compares by ratios
      o.reason = keep_failed_run(dir, fmt::format("objective {} from --objective-regex \"{}\" is not above zero (the "
                                                  "search needs a positive value: print more digits, or a time or cost)",
                                                  *group, regex_text_));
    else {
      o.valid = true;
      o.objective = *v;
    }
  }
  if (o.valid) fs::remove_all(dir);
  return o;
}

nlohmann::ordered_json StdoutEvaluator::describe() const {
  return {{"kind", "stdout"}, {"command_template", command_.text()}, {"regex", regex_text_}};
}

KernelTimeEvaluator::KernelTimeEvaluator(CommandTemplate command, std::optional<std::string> kernel_regex,
                                         unsigned runs, CommandOptions options)
    : command_(std::move(command)), kernel_regex_(std::move(kernel_regex)), runs_(runs), options_(std::move(options)) {}

Outcome KernelTimeEvaluator::evaluate(const SearchSpace& space, ConfigView config, std::size_t sequence) {
  app::ProfileOptions po;
  po.argv = command_.expand(space, config);
  po.runs = runs_;
  po.output_dir = (fs::path(options_.output_dir) / "runs" / std::to_string(sequence)).string();
  po.analysis.kernel_filter = kernel_regex_;
  po.timeout_s = options_.timeout_s;
  Outcome o;
  try {
    app::ProfileResults r = app::run_profile(po);
    const double ms = r.runtime_across_runs.median_ns / 1e6;
    if (!(ms > 0)) o.reason = keep_failed_run(po.output_dir, "no kernel matched (kernel time 0)");
    else {
      o.valid = true;
      o.objective = ms;
    }
  } catch (const Error& e) {
    if (e.code() != ExitCode::ApplicationFailed && e.code() != ExitCode::InputEmpty) throw;
    o.reason = keep_failed_run(po.output_dir, e.what());
  }
  if (o.valid) fs::remove_all(po.output_dir);
  return o;
}

nlohmann::ordered_json KernelTimeEvaluator::describe() const {
  nlohmann::ordered_json j = {{"kind", "kernel-time"}, {"unit", "ms"}, {"command_template", command_.text()}, {"runs", runs_}};
  j["kernel"] = kernel_regex_ ? nlohmann::ordered_json(*kernel_regex_) : nlohmann::ordered_json(nullptr);
  return j;
}

}  // namespace rpl::autotune
