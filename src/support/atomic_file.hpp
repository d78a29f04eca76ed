#pragma once
// Writes a file under a temporary name beside it and renames it into place when complete, so a killed
// run never leaves a truncated output and never damages an existing file.
#include <cstdio>
#include <functional>
#include <string>

namespace rpl {

void write_file_atomically(const std::string& path, const std::function<void(std::FILE*)>& write);

}  // namespace rpl
