#pragma once
// Each command registers its options on the CLI and returns the action to run after parsing.
#include <CLI/CLI.hpp>
#include <functional>

namespace rpl::cli {

using Action = std::function<int()>;

// Validators whose messages name the value (CLI::PositiveNumber spells its range out in 309 digits).
// A whole number of 1 or more.
inline CLI::Validator positive_count() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::size_t used = 0;
        long long v = 0;
        try {
          v = std::stoll(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != text.size() || v < 1) return "'" + text + "' is not a whole number of 1 or more";
        return {};
      },
      "COUNT>=1");
}
// A number accepted by `ok`; the message says "'TEXT' is not WHAT".
inline CLI::Validator number_validator(bool (*ok)(double), const char* what, const char* name) {
  return CLI::Validator(
      [ok, what](std::string& text) -> std::string {
        std::size_t used = 0;
        double v = 0;
        try {
          v = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != text.size() || !ok(v)) return "'" + text + "' is not " + what;
        return {};
      },
      name);
}
// A finite number greater than 0.
inline CLI::Validator positive_value() {
  return number_validator([](double v) { return v > 0 && v <= 1e300; }, "a number greater than 0", "NUMBER>0");
}
// A fraction in (0, 1].
inline CLI::Validator unit_fraction() {
  return number_validator([](double v) { return v > 0 && v <= 1; }, "a fraction in (0, 1]", "FRACTION");
}

// The flags every command shares, declared once (add_common_flags) and mapped to one log level
// (set_log_level).
struct CommonOptions {
  bool json = false;   // --json: the command's JSON document on stdout, nothing else
  bool quiet = false;  // --quiet: warnings only on stderr (and the command's own terse stdout, where it has one)
  bool debug = false;  // --debug: verbose logs on stderr
};

// What each flag means for one command; nullptr: the command does not offer it (export has no JSON document).
struct CommonFlagsHelp {
  const char* json = nullptr;
  const char* quiet = nullptr;
  const char* debug = nullptr;
  bool quiet_excludes_json = false;  // analyze, profile: --quiet prints its own stdout, so not with --json
};
void add_common_flags(CLI::App* cmd, CommonOptions& options, const CommonFlagsHelp& help);
// --debug: debug logs; --quiet or --json: warnings only (stdout carries only the requested output); else info.
void set_log_level(const CommonOptions& common);
// Progress on stderr: a terminal, and neither --quiet nor --json.
bool show_progress(const CommonOptions& common);

Action register_analyze(CLI::App& app);
Action register_compare(CLI::App& app);
Action register_profile(CLI::App& app);
// The raw command line, so `profile` can tell whether `--` separated the application (see profile_command.cpp).
void note_command_line(int argc, char** argv);
Action register_resources(CLI::App& app);
Action register_export(CLI::App& app);
Action register_capture(CLI::App& app);
Action register_replay(CLI::App& app);
Action register_ceilings(CLI::App& app);
Action register_optimize(CLI::App& app);
Action register_autotune(CLI::App& app);
Action register_import(CLI::App& app);
Action register_counters(CLI::App& app);

}  // namespace rpl::cli
