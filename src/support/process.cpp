#include "support/process.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <thread>

#include "support/errors.hpp"

extern char** environ;

namespace rpl {
namespace {

std::vector<std::string> merged_environment(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string s(*e);
    auto eq = s.find('=');
    if (eq != std::string::npos) env[s.substr(0, eq)] = s.substr(eq + 1);
  }
  for (const auto& [k, v] : extra) env[k] = v;
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string ProcessResult::describe() const {
  if (timed_out) return "timed out and was killed";
  if (signal) return fmt::format("was killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exited with status {}", exit_code);
}

std::optional<std::string> find_executable(const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos)
    return access(name.c_str(), X_OK) == 0 ? std::optional<std::string>(name) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t begin = 0;
  while (begin <= p.size()) {
    std::size_t end = p.find(':', begin);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(begin, end - begin);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0)
      return candidate;
    begin = end + 1;
  }
  return std::nullopt;
}

ProcessResult run_process(const ProcessSpec& spec) {
  if (spec.argv.empty()) throw Error(ExitCode::Usage, "no command to run");
  auto exe = find_executable(spec.argv[0]);
  if (!exe)
    throw Error(ExitCode::ApplicationFailed,
                fmt::format("cannot run '{}': not found or not executable", spec.argv[0]));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  auto redirect = [&](const std::optional<std::string>& file, int fd) {
    if (file) posix_spawn_file_actions_addopen(&actions, fd, file->c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  };
  redirect(spec.stdout_file, STDOUT_FILENO);
  redirect(spec.stderr_file, STDERR_FILENO);
  if (!spec.stdout_file && spec.stdout_to_stderr) posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);

  // The child gets its own process group so a timeout can end it and everything it started.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);

  std::vector<std::string> argv_storage = spec.argv;
  std::vector<std::string> env_storage = merged_environment(spec.env);
  auto argv = c_strings(argv_storage);
  auto envp = c_strings(env_storage);

  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int rc = posix_spawn(&pid, exe->c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    throw Error(ExitCode::ApplicationFailed, fmt::format("cannot start '{}': {}", *exe, std::strerror(rc)));

  ProcessResult result;
  int status = 0;
  if (spec.timeout_s > 0) {
    auto deadline = t0 + std::chrono::duration<double>(spec.timeout_s);
    while (true) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (w < 0 && errno != EINTR) break;
      if (std::chrono::steady_clock::now() > deadline) {
        result.timed_out = true;
        kill(-pid, SIGTERM);
        std::this_thread::sleep_for(std::chrono::seconds(2));
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  } else {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  result.wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

std::string tail_of_file(const std::string& path, std::size_t max_lines) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(line);
    if (lines.size() > max_lines) lines.pop_front();
  }
  std::string out;
  for (const auto& l : lines) out += "  | " + l + "\n";
  return out;
}

}  // namespace rpl
