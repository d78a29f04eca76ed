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

}  // namespace rpl
