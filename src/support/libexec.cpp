#include "support/libexec.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "support/errors.hpp"

namespace rpl {
namespace fs = std::filesystem;
namespace {

std::vector<fs::path> search_dirs() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return {self.parent_path(), self.parent_path() / ".." / "lib" / "rocm-perf"};
}

}  // namespace

std::optional<std::string> find_libexec(const std::string& file_name, const char* env_override) {
  if (const char* env = env_override ? std::getenv(env_override) : nullptr; env && *env) {
    if (access(env, R_OK) != 0)
      throw Error(ExitCode::ProfilerFailed, fmt::format("{}={}: no such readable file", env_override, env));
    return std::string(env);
  }
  for (const fs::path& dir : search_dirs()) {
    std::error_code ec;
    fs::path candidate = dir / file_name;
    if (fs::exists(candidate, ec)) return fs::canonical(candidate, ec).string();
  }
  return std::nullopt;
}

std::string libexec_locations() {
  auto dirs = search_dirs();
  if (dirs.empty()) return "the rocm-perf executable's folder";
  return fmt::format("{} and {}", dirs[0].string(), fs::weakly_canonical(dirs[1]).string());
}

std::optional<std::string> find_shared_data(const std::string& relative_path) {
  std::vector<fs::path> roots;
  if (const char* env = std::getenv("RPL_SHARE_DIR"); env && *env) roots.emplace_back(env);
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) roots.push_back(self.parent_path() / ".." / "share" / "rocm-perf");
#ifdef RPL_SOURCE_SHARE_DIR
  roots.emplace_back(RPL_SOURCE_SHARE_DIR);
#endif
  for (const fs::path& root : roots) {
    fs::path candidate = root / relative_path;
    if (fs::is_regular_file(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return std::nullopt;
}

}  // namespace rpl
