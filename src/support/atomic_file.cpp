#include "support/atomic_file.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "support/errors.hpp"
#include "support/temp_file.hpp"

namespace rpl {

void write_file_atomically(const std::string& path, const std::function<void(std::FILE*)>& write) {
  TempFile tmp(path);  // removed on every path below but commit()
  std::FILE* f = fdopen(tmp.fd(), "wb");
  if (!f) throw Error(ExitCode::OutputFailed, fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  tmp.release_fd();
  try {
    write(f);
  } catch (const Error& e) {
    std::fclose(f);
    if (e.code() == ExitCode::OutputFailed)
      throw Error(ExitCode::OutputFailed, fmt::format("cannot write {}: {}", path, e.what()));
    throw;
  } catch (...) {
    std::fclose(f);
    throw;
  }
  // No fsync: atomicity against a killed process needs only the rename; fsync would cost seconds on
  // the large dag.json of a 10M-dispatch trace.
  errno = 0;
  bool ok = std::fflush(f) == 0 && !std::ferror(f);
  int err = errno;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    if (err == 0) err = errno;
    throw Error(ExitCode::OutputFailed,
                fmt::format("cannot write {}: {}", path, err ? std::strerror(err) : "write error"));
  }
  tmp.commit();
}

}  // namespace rpl
