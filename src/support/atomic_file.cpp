#include "support/atomic_file.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "support/errors.hpp"

namespace rpl {

void write_file_atomically(const std::string& path, const std::function<void(std::FILE*)>& write) {
  std::string tmp = fmt::format("{}.partial.{}", path, getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error(ExitCode::OutputFailed, fmt::format("cannot write {}: {}", tmp, std::strerror(errno)));
  try {
    write(f);
  } catch (...) {
    std::fclose(f);
    std::remove(tmp.c_str());
    throw;
  }
  // No fsync: atomicity against a killed process needs only the rename; fsync would cost seconds on
  // the large dag.json of a 10M-dispatch trace.
  bool ok = std::fflush(f) == 0;
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw Error(ExitCode::OutputFailed, fmt::format("cannot write {}: {}", path, std::strerror(err)));
  }
}

}  // namespace rpl
