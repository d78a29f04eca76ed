#pragma once
// Helper programs and libraries that ship with rocm-perf (the CUPTI collector, capture libraries, replay
// runners) are found beside the rocm-perf executable, or in ../lib/rocm-perf for an install; an environment
// variable can point at another copy.
#include <optional>
#include <string>

namespace rpl {

// `env_override`: the variable that names the file directly (checked readable); nullptr for none.
// nullopt when the file is nowhere; the caller says what it is and why it may be missing.
std::optional<std::string> find_libexec(const std::string& file_name, const char* env_override);

// Where find_libexec looked, for error messages ("/usr/bin and /usr/lib/rocm-perf").
std::string libexec_locations();

// A data file that ships with rocm-perf (share/ of the source tree: counter files, prompts), by its path below
// share/ ("counters/gfx942/compute_bound.txt"): $RPL_SHARE_DIR when set, else ../share/rocm-perf beside the
// executable (an install), else the source tree's share/ (a build that was not installed). nullopt when none
// has it.
std::optional<std::string> find_shared_data(const std::string& relative_path);

}  // namespace rpl
