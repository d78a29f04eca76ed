#include "support/temp_file.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "support/errors.hpp"

namespace rpl {

namespace fs = std::filesystem;

namespace {

// Paths a signal handler may unlink: fixed storage, so the handler neither allocates nor locks.
constexpr int kSlots = 64;
constexpr std::size_t kMaxPath = 4096;
struct CleanupTable {
  std::array<std::atomic<bool>, kSlots> used{};
  std::array<std::array<char, kMaxPath>, kSlots> paths{};
};
CleanupTable g_table;
std::mutex g_claim;

}  // namespace

fs::path temporary_directory() {
  std::error_code ec;
  fs::path dir = fs::temp_directory_path(ec);
  if (ec) {
    const char* tmpdir = std::getenv("TMPDIR");
    throw Error(ExitCode::OutputFailed, fmt::format("no folder for temporary files: TMPDIR={} ({})",
                                                    tmpdir ? tmpdir : "(unset)", ec.message()));
  }
  return dir;
}

namespace {

extern "C" void remove_temp_files_and_reraise(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_table.used[i].load(std::memory_order_acquire)) unlink(g_table.paths[i].data());
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_handlers_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
      struct sigaction old {};
      sigaction(sig, nullptr, &old);
      // Keep a disposition someone chose (ignored, or a handler of the embedding program).
      if (old.sa_handler != SIG_DFL) continue;
      struct sigaction sa {};
      sa.sa_handler = remove_temp_files_and_reraise;
      sigemptyset(&sa.sa_mask);
      sigaction(sig, &sa, nullptr);
    }
  });
}

int claim_slot(const std::string& path) {
  if (path.size() >= kMaxPath) return -1;
  std::lock_guard lock(g_claim);
  for (int i = 0; i < kSlots; ++i) {
    if (g_table.used[i].load(std::memory_order_relaxed)) continue;
    std::memcpy(g_table.paths[i].data(), path.c_str(), path.size() + 1);
    g_table.used[i].store(true, std::memory_order_release);
    return i;
  }
  return -1;  // more than 64 at once: still removed by the destructor, not on a signal
}

void release_slot(int slot) {
  if (slot >= 0) g_table.used[slot].store(false, std::memory_order_release);
}

std::string prefix_for(const std::string& target_name) { return "." + target_name + ".partial-"; }

// The process's umask without changing it: Linux reports it in /proc/self/status (4.7 and later); elsewhere
// umask() must be set to read it, which a mutex keeps from racing with another reader here.
mode_t current_umask() {
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    unsigned mask = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof line, f)) found = std::sscanf(line, "Umask: %o", &mask) == 1;
    std::fclose(f);
    if (found) return static_cast<mode_t>(mask);
  }
  static std::mutex m;
  std::lock_guard lock(m);
  mode_t mask = umask(022);
  umask(mask);
  return mask;
}

// Removes temporaries of `target` left by processes that no longer run (killed by SIGKILL, power cut).
void remove_stale(const fs::path& dir, const std::string& target_name) {
  std::error_code ec;
  for (fs::directory_iterator it(dir.empty() ? fs::path(".") : dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!is_temp_name_for(name, target_name)) continue;
    long pid = std::strtol(name.c_str() + prefix_for(target_name).size(), nullptr, 10);
    if (pid <= 0 || pid == getpid()) continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // still running (or not ours)
    struct stat st {};
    // Only regular files we own; never follow a symlink (lstat) or remove someone else's file.
    if (lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
      unlink(it->path().c_str());
  }
}

}  // namespace

bool is_temp_name_for(const std::string& file_name, const std::string& target_name) {
  std::string prefix = prefix_for(target_name);
  if (!file_name.starts_with(prefix)) return false;
  std::string_view rest = std::string_view(file_name).substr(prefix.size());
  auto dash = rest.find('-');
  if (dash == std::string_view::npos || dash == 0 || rest.size() - dash - 1 != 6) return false;
  for (char c : rest.substr(0, dash))
    if (c < '0' || c > '9') return false;
  return true;
}

TempFile::TempFile(const std::string& target) : target_(target) {
  fs::path t(target);
  fs::path dir = t.parent_path();
  std::string name = t.filename().string();
  remove_stale(dir, name);
  install_handlers_once();
  std::string tmpl = (dir / (prefix_for(name) + std::to_string(getpid()) + "-XXXXXX")).string();
  // A signal between mkstemp and claim_slot can leave the file: the next run's remove_stale takes it.
  fd_ = mkstemp(tmpl.data());
  if (fd_ < 0) {
    int err = errno;
    throw Error(ExitCode::OutputFailed, fmt::format("cannot write {}: cannot create a temporary file in {}: {}",
                                                    target, dir.empty() ? "." : dir.string(), std::strerror(err)));
  }
  path_ = tmpl;
  slot_ = claim_slot(path_);
}

TempFile::~TempFile() {
  if (fd_ >= 0) close(fd_);
  if (!committed_) unlink(path_.c_str());
  release_slot(slot_);
}

int TempFile::release_fd() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

void TempFile::commit() {
  // mkstemp made the file 0600; the finished output gets the mode open(2) would have given it, so colleagues
  // can read a report on a shared file system when the user's umask allows it.
  const mode_t mode = 0666 & ~current_umask();
  if (fd_ >= 0 ? fchmod(fd_, mode) != 0 : chmod(path_.c_str(), mode) != 0)
    throw Error(ExitCode::OutputFailed, fmt::format("cannot write {}: {}", target_, std::strerror(errno)));
  if (fd_ >= 0) {
    int rc = close(fd_);
    fd_ = -1;
    if (rc != 0)
      throw Error(ExitCode::OutputFailed, fmt::format("cannot write {}: {}", target_, std::strerror(errno)));
  }
  // rename() replaces a symlink at the target itself; it never writes through it.
  if (std::rename(path_.c_str(), target_.c_str()) != 0)
    throw Error(ExitCode::OutputFailed, fmt::format("cannot write {}: {}", target_, std::strerror(errno)));
  committed_ = true;
}

}  // namespace rpl
