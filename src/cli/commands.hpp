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
Action register_resources(CLI::App& app);
Action register_export(CLI::App& app);
Action register_capture(CLI::App& app);
Action register_replay(CLI::App& app);
Action register_ceilings(CLI::App& app);
Action register_optimize(CLI::App& app);
Action register_autotune(CLI::App& app);

}  // namespace rpl::cli
