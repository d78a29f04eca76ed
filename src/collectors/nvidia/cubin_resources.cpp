#include "collectors/nvidia/cubin_resources.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <sstream>

#include "support/errors.hpp"
#include "support/trim.hpp"

extern char** environ;

namespace rpl::collectors::nvidia {

namespace {

constexpr const char* kCudaDefaultCuobjdump = "/usr/local/cuda/bin/cuobjdump";
// cuobjdump reads a large library in seconds; far past that something is wrong.
constexpr int kCuobjdumpTimeoutMs = 300'000;

bool is_executable_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

struct Captured {
  int status = 0;  // waitpid status
  bool timed_out = false;
  std::string out;
  std::string err;
};

// Runs argv (argv[0] a path, no shell), collecting stdout and stderr. Throws ProfilerFailed when the
// program cannot be started.
Captured run_captured(const std::vector<std::string>& argv, int timeout_ms) {
  std::array<int, 2> out_pipe{-1, -1};
  std::array<int, 2> err_pipe{-1, -1};
  if (::pipe2(out_pipe.data(), O_CLOEXEC) != 0 || ::pipe2(err_pipe.data(), O_CLOEXEC) != 0) {
    throw Error(ExitCode::Internal, fmt::format("pipe: {}", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawn_error = ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (spawn_error != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("cannot start {}: {}", argv[0], std::strerror(spawn_error)));
  }

  Captured result;
  std::array<pollfd, 2> fds{pollfd{out_pipe[0], POLLIN, 0}, pollfd{err_pipe[0], POLLIN, 0}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::array<char, 65536> buffer{};
  int open_streams = 2;
  while (open_streams > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        sinks[i]->append(buffer.data(), static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_streams;
      }
    }
  }
  for (auto& fd : fds) {
    if (fd.fd >= 0) ::close(fd.fd);
  }
  while (::waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
  }
  return result;
}

std::string last_lines(const std::string& text, std::size_t max_lines) {
  std::string_view view = trim(text);
  while (!view.empty() && view.back() == '\n') view.remove_suffix(1);
  std::size_t pos = view.size();
  for (std::size_t i = 0; i < max_lines && pos != std::string_view::npos && pos > 0; ++i) {
    pos = view.rfind('\n', pos - 1);
  }
  return std::string(pos == std::string_view::npos ? view : view.substr(pos + 1));
}

void store_resource(CubinFunction& f, std::string_view key, uint64_t value) {
  const auto v32 = static_cast<uint32_t>(std::min<uint64_t>(value, UINT32_MAX));
  if (key == "REG") f.registers = v32;
  else if (key == "STACK") f.stack = v32;
  else if (key == "SHARED") f.shared = v32;
  else if (key == "LOCAL") f.local = v32;
  else if (key == "CONSTANT[0]") f.constant0 = v32;
  else if (key == "TEXTURE") f.texture = v32;
  else if (key == "SURFACE") f.surface = v32;
  else if (key == "SAMPLER") f.sampler = v32;
  else f.other.emplace_back(std::string(key), value);
}

}  // namespace

std::vector<CubinFunction> parse_resource_usage(const std::string& output, const std::string& default_arch,
                                                const std::string& what) {
  std::vector<CubinFunction> functions;
  std::string arch = default_arch;
  bool in_elf = true;          // a bare cubin's output starts with its resource usage
  bool in_function = false;    // resource lines now belong to functions.back()
  std::istringstream lines(output);
  std::string raw;
  std::size_t line_number = 0;
  while (std::getline(lines, raw)) {
    ++line_number;
    const std::string_view line = trim(raw);
    if (line.starts_with("Fatbin ") && line.ends_with(" code:")) {
      in_elf = line == "Fatbin elf code:";
      in_function = false;
      arch = default_arch;
    } else if (line.starts_with("arch = ")) {
      arch = std::string(trim(line.substr(7)));
    } else if (!in_elf) {
      continue;
    } else if (line.starts_with("Function ") && line.ends_with(":")) {
      CubinFunction f;
      f.name = std::string(trim(line.substr(9, line.size() - 10)));
      f.arch = arch;
      functions.push_back(std::move(f));
      in_function = true;
    } else if (line == "Common:" || line == "Resource usage:") {
      in_function = false;
    } else if (in_function && !line.empty()) {
      std::size_t pos = 0;
      while (pos < line.size()) {
        const std::size_t end = std::min(line.find(' ', pos), line.size());
        const std::string_view token = line.substr(pos, end - pos);
        pos = line.find_first_not_of(' ', end);
        if (pos == std::string_view::npos) pos = line.size();
        const std::size_t colon = token.rfind(':');
        uint64_t value = 0;
        // No pointer past the token is formed when there is no colon (found by fuzz/fuzz_code_object).
        const char* last = token.data() + token.size();
        auto parsed = colon == std::string_view::npos
                          ? std::from_chars_result{last, std::errc::invalid_argument}
                          : std::from_chars(token.data() + colon + 1, last, value);
        if (colon == 0 || parsed.ec != std::errc{} || parsed.ptr != last) {
          throw Error(ExitCode::ProfilerFailed,
                      fmt::format("{}: cuobjdump resource usage, line {}: cannot read \"{}\" in \"{}\"", what,
                                  line_number, token, line));
        }
        store_resource(functions.back(), token.substr(0, colon), value);
      }
    }
  }
  return functions;
}

std::optional<std::string> find_cuobjdump(const std::string& explicit_path) {
  if (!explicit_path.empty()) {
    if (is_executable_file(explicit_path)) return explicit_path;
    return std::nullopt;
  }
  if (const char* path = std::getenv("PATH")) {
    std::string_view dirs(path);
    while (true) {
      const auto colon = dirs.find(':');
      const std::string_view dir = dirs.substr(0, colon);
      if (!dir.empty()) {
        std::string candidate = fmt::format("{}/cuobjdump", dir);
        if (is_executable_file(candidate)) return candidate;
      }
      if (colon == std::string_view::npos) break;
      dirs.remove_prefix(colon + 1);
    }
  }
  if (is_executable_file(kCudaDefaultCuobjdump)) return std::string(kCudaDefaultCuobjdump);
  return std::nullopt;
}

std::vector<CubinFunction> read_cubin_resources(const std::string& path, const std::string& default_arch,
                                                const std::string& cuobjdump) {
  const auto tool = find_cuobjdump(cuobjdump);
  if (!tool) {
    throw Error(ExitCode::ProfilerFailed,
                cuobjdump.empty()
                    ? fmt::format("{}: reading NVIDIA kernel resources needs cuobjdump from the CUDA toolkit; "
                                  "none on PATH or at {}",
                                  path, kCudaDefaultCuobjdump)
                    : fmt::format("{}: cuobjdump {} does not exist or is not executable", path, cuobjdump));
  }
  const Captured run = run_captured({*tool, "--dump-resource-usage", path}, kCuobjdumpTimeoutMs);
  if (run.timed_out) {
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("{}: {} did not finish within {} s", path, *tool, kCuobjdumpTimeoutMs / 1000));
  }
  if (WIFSIGNALED(run.status)) {
    throw Error(ExitCode::ProfilerFailed, fmt::format("{}: {} was killed by signal {} ({})", path, *tool,
                                                      WTERMSIG(run.status), strsignal(WTERMSIG(run.status))));
  }
  const int code = WIFEXITED(run.status) ? WEXITSTATUS(run.status) : -1;
  if (code != 0) {
    const std::string said = last_lines(run.err.empty() ? run.out : run.err, 5);
    // "cuobjdump info    : File '...' does not contain device code" (exit status 255)
    if (said.find("does not contain device code") != std::string::npos) {
      throw Error(ExitCode::InputInvalid, fmt::format("{}: contains no NVIDIA device code ({})", path, said));
    }
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("{}: {} --dump-resource-usage exited with status {}: {}", path, *tool, code, said));
  }
  return parse_resource_usage(run.out, default_arch, path);
}

std::string cubin_arch(uint8_t abi_version, uint32_t flags) {
  // ELF ABI version 8 (CUDA 13) keeps the SM number in bits 8..15, older cubins in bits 0..7.
  const uint32_t sm = abi_version >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
  if (sm < 10) return {};
  return fmt::format("sm_{}", sm);
}

}  // namespace rpl::collectors::nvidia
