#pragma once
// Reads a whole input file named by the user (JSON, CSV, manifests). Every failure is an rpl::Error that
// names the file and says what is wrong: missing, a directory, unreadable (with the system's reason) or
// larger than `max_bytes` (exit 3, or 7 for the size) rather than a stream exception such as
// "basic_filebuf::underflow".
#include <cstdint>
#include <string>
#include <string_view>

namespace rpl {

// `what` describes the file for the message ("empirical ceilings file").
std::string read_input_file(const std::string& path, std::string_view what, std::uintmax_t max_bytes = 1ull << 30);

}  // namespace rpl
