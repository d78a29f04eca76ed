#include "collectors/amd/capture_injection/tool_state.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "support/errors.hpp"

namespace rpl::hsa_capture {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

uint64_t env_positive(const char* name, uint64_t fallback) {
  const char* v = env(name);
  if (!v) return fallback;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (errno || *end || n == 0 || v[0] == '-')
    throw Error(ExitCode::Usage, fmt::format("{}='{}' is not a positive whole number", name, v));
  return n;
}

struct PoolWalk {
  ToolState* s;
  hsa_agent_t agent;
  bool cpu;
};

hsa_status_t note_pool(hsa_amd_memory_pool_t pool, void* data) {
  auto* walk = static_cast<PoolWalk*>(data);
  auto& rt = walk->s->rt;
  PoolInfo info;
  info.agent = walk->agent;
  uint32_t flags = 0;
  size_t granule = 0;
  if (rt.pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) == HSA_STATUS_SUCCESS) {
    if (walk->cpu)
      info.placement = collectors::amd::Placement::Host;
    else if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED)
      info.placement = collectors::amd::Placement::DeviceCoarse;
    else if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED)
      info.placement = collectors::amd::Placement::DeviceFine;
  }
  if (rt.pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &granule) == HSA_STATUS_SUCCESS)
    info.granule = granule;
  walk->s->pools[pool.handle] = info;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t walk_agent(hsa_agent_t agent, void* data) {
  auto* s = static_cast<ToolState*>(data);
  hsa_device_type_t type{};
  if (s->rt.core->hsa_agent_get_info_fn(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS)
    return HSA_STATUS_SUCCESS;
  PoolWalk walk{s, agent, type == HSA_DEVICE_TYPE_CPU};
  if (s->rt.iterate_pools) s->rt.iterate_pools(agent, note_pool, &walk);
  return HSA_STATUS_SUCCESS;
}

}  // namespace

Config config_from_environment() {
  Config c;
  if (const char* v = env("RPL_CAPTURE_KERNEL")) c.kernel_regex = v;
  c.dispatch_index = env_positive("RPL_CAPTURE_DISPATCH", 1);
  const char* dir = env("RPL_CAPTURE_DIR");
  if (!dir) throw Error(ExitCode::Usage, "RPL_CAPTURE_DIR is not set: nowhere to write the capture");
  c.directory = dir;
  c.drain_timeout_s = static_cast<double>(env_positive("RPL_CAPTURE_DRAIN_TIMEOUT_S", 60));
  if (const char* v = env("RPL_CAPTURE_COMMAND")) {
    const auto j = nlohmann::json::parse(v, nullptr, false);
    if (!j.is_array()) throw Error(ExitCode::Usage, "RPL_CAPTURE_COMMAND is not a JSON array of strings");
    for (const auto& a : j)
      if (a.is_string()) c.command.push_back(a.get<std::string>());
  }
  if (const char* v = env("RPL_CAPTURE_EXIT")) c.exit_after = std::string(v) == "1";
  if (const char* v = env("RPL_CAPTURE_VERBOSE")) c.verbose = std::string(v) == "1";
  return c;
}

void write_status_file(const std::filesystem::path& dir, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (std::FILE* f = std::fopen((dir / "capture_status.txt").c_str(), "w")) {
    std::fprintf(f, "%s\n", text.c_str());
    std::fclose(f);
  }
}

ToolState& state() {
  static ToolState* s = new ToolState;  // never destroyed: runtime threads may call in during exit
  return *s;
}

// Caller holds state().mutex.
PoolInfo pool_info(hsa_amd_memory_pool_t pool) {
  ToolState& s = state();
  if (auto it = s.pools.find(pool.handle); it != s.pools.end()) return it->second;
  // Walk every agent's pools (cheap; a handful). A pool still missing afterwards is remembered as unknown.
  if (s.rt.pool_get_info && s.rt.core) s.rt.core->hsa_iterate_agents_fn(walk_agent, &s);
  auto [it, inserted] = s.pools.try_emplace(pool.handle);
  return it->second;
}

}  // namespace rpl::hsa_capture
