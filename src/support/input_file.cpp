#include "support/input_file.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "support/errors.hpp"

namespace rpl {

std::string read_input_file(const std::string& path, std::string_view what, std::uintmax_t max_bytes) {
  auto fail = [&](ExitCode code, const std::string& why) {
    return Error(code, fmt::format("{}: cannot read the {}: {}", path, what, why));
  };
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw fail(ExitCode::InputMissing, errno == ENOENT ? "no such file" : std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    bool directory = S_ISDIR(st.st_mode);
    close(fd);
    throw fail(ExitCode::InputMissing, directory ? "it is a directory, not a file" : "not a regular file");
  }
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) {
    close(fd);
    throw fail(ExitCode::InputInvalid, fmt::format("{} bytes, more than the {} bytes such a file can have",
                                                   st.st_size, max_bytes));
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      throw fail(ExitCode::InputMissing, std::strerror(err));
    }
    if (n == 0) break;  // shrank while reading
    done += static_cast<std::size_t>(n);
  }
  close(fd);
  text.resize(done);
  return text;
}

}  // namespace rpl
