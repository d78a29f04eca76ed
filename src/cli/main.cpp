// rocm-perf: a thin layer over the rpl library. Parses the command line, runs the chosen command, and maps
// every failure to a documented exit code (README.md, "Exit codes").
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "support/errors.hpp"
#include "support/resident_memory.hpp"
#include "support/terminal_text.hpp"
#include "rpl/version.hpp"

int main(int argc, char** argv) {
  rpl::map_large_allocations();  // freed large buffers leave the resident set (issue 32's peak)
  rpl::make_stderr_terminal_safe();  // nothing from an input reaches the terminal as a control character
  CLI::App app{"rocm-perf: GPU performance analysis on rocpd traces (AMD ROCm and NVIDIA CUDA)", "rocm-perf"};
  app.set_version_flag("--version", std::string(rpl::kVersion));
  app.require_subcommand(1);
  app.footer(
      "Exit codes (the same meaning in every command; README.md, docs/outputs.md):\n"
      "  0 ok, 1 internal error, 2 usage error, 3 input missing or unreadable,\n"
      "  4 input not in the format the command reads (not SQLite; not a GPU binary) or corrupt,\n"
      "  5 SQLite but not a rocpd trace, 6 nothing to analyse (empty trace, or --kernel matches no kernel),\n"
      "  7 invalid trace data, 8 profiler failed, 9 application failed, 10 output failed, 11 capture failed,\n"
      "  12 address relocation (replay), 13 verification mismatch (replay), 14 no usable GPU or GPU platform,\n"
      "  15 model endpoint failed (optimize --proposer llm), 16 counter pass failed (profile; every other output\n"
      "  written), 17 unsupported on this GPU or platform (nothing ran).");

  // Each action returns -1 unless its subcommand was chosen.
  std::vector<rpl::cli::Action> actions;
  actions.push_back(rpl::cli::register_analyze(app));
  actions.push_back(rpl::cli::register_compare(app));
  actions.push_back(rpl::cli::register_profile(app));
  actions.push_back(rpl::cli::register_resources(app));
  actions.push_back(rpl::cli::register_export(app));
  actions.push_back(rpl::cli::register_capture(app));
  actions.push_back(rpl::cli::register_replay(app));
  actions.push_back(rpl::cli::register_ceilings(app));
  actions.push_back(rpl::cli::register_optimize(app));
  actions.push_back(rpl::cli::register_autotune(app));
  actions.push_back(rpl::cli::register_counters(app));
  actions.push_back(rpl::cli::register_import(app));

  // CLI11 would answer an unknown command with "A subcommand is required", not naming it.
  if (argc >= 2 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "rocm-perf: error: unknown command '%s' (commands: %s; see rocm-perf --help)\n",
                   argv[1], names.c_str());
      return rpl::to_int(rpl::ExitCode::Usage);
    }
  }

  rpl::cli::note_command_line(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return rpl::to_int(rpl::ExitCode::Usage);
  }

  try {
    for (auto& act : actions) {
      int rc = act();
      if (rc >= 0) return rc;
    }
    return rpl::to_int(rpl::ExitCode::Usage);
  } catch (const rpl::Error& e) {
    std::fprintf(stderr, "rocm-perf: error: %s\n", e.what());
    return rpl::to_int(e.code());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "rocm-perf: error: out of memory\n");
    return rpl::to_int(rpl::ExitCode::Internal);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rocm-perf: internal error: %s\n", e.what());
    return rpl::to_int(rpl::ExitCode::Internal);
  }
}
