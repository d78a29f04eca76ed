#pragma once
// Each command registers its options on the CLI and returns the action to run after parsing.
#include <CLI/CLI.hpp>
#include <functional>

namespace rpl::cli {

using Action = std::function<int()>;

// Options every command shares.
struct CommonOptions {
  bool json = false;
  bool quiet = false;
  bool debug = false;
};

Action register_analyze(CLI::App& app);
Action register_profile(CLI::App& app);
// The raw command line, so `profile` can tell whether `--` separated the application (see profile_command.cpp).
void note_command_line(int argc, char** argv);
Action register_resources(CLI::App& app);
Action register_export(CLI::App& app);
Action register_capture(CLI::App& app);
Action register_replay(CLI::App& app);
Action register_ceilings(CLI::App& app);

}  // namespace rpl::cli
