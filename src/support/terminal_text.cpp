#include "support/terminal_text.hpp"

#include <fmt/core.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace rpl {

namespace {

std::FILE* g_raw_stderr = nullptr;

ssize_t write_safe(void*, const char* data, std::size_t size) {
  const std::string text = terminal_safe(std::string_view(data, size));
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    done += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(size);
}

}  // namespace

namespace {

std::string escape_controls(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1_next = c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                         static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    if (c1_next) {
      out += fmt::format("\\u00{:02x}", static_cast<unsigned char>(text[++i]));
    } else if ((keep_line_breaks && (c == '\n' || c == '\t')) || (c >= 0x20 && c != 0x7f)) {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out;
}

}  // namespace

std::string terminal_safe(std::string_view text) { return escape_controls(text, true); }

std::string one_line(std::string_view text) { return escape_controls(text, false); }

std::size_t terminal_columns(int fd) {
  winsize size{};
  if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(columns, &end, 10);
    if (end != columns && *end == '\0' && n > 0 && n < 100000) return n;
  }
  return 0;
}

void make_stderr_terminal_safe() {
  if (g_raw_stderr) return;
  cookie_io_functions_t io{};
  io.write = write_safe;
  std::FILE* safe = fopencookie(nullptr, "w", io);
  if (!safe) return;
  std::setvbuf(safe, nullptr, _IOLBF, 0);
  g_raw_stderr = stderr;
  stderr = safe;
}

std::FILE* raw_stderr() { return g_raw_stderr ? g_raw_stderr : stderr; }

}  // namespace rpl
