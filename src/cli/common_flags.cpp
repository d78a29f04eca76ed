// The flags every command shares (cli/commands.hpp): declared here once, with one log-level mapping.
#include "cli/commands.hpp"
#include "support/log.hpp"
#include "support/progress.hpp"

namespace rpl::cli {

void add_common_flags(CLI::App* cmd, CommonOptions& o, const CommonFlagsHelp& help) {
  CLI::Option* json = help.json ? cmd->add_flag("--json", o.json, help.json) : nullptr;
  if (help.quiet) {
    CLI::Option* quiet = cmd->add_flag("--quiet", o.quiet, help.quiet);
    if (json && help.quiet_excludes_json) quiet->excludes(json);
  }
  if (help.debug) cmd->add_flag("--debug", o.debug, help.debug);
}

void set_log_level(const CommonOptions& common) {
  log::set_level(common.debug                   ? log::Level::Debug
                 : (common.quiet || common.json) ? log::Level::Warn
                                                 : log::Level::Info);
}

bool show_progress(const CommonOptions& common) {
  return !common.quiet && !common.json && stderr_is_terminal();
}

}  // namespace rpl::cli
