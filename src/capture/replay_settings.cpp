#include "capture/replay_settings.hpp"

#include <fmt/core.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "support/errors.hpp"

namespace rpl::capture {
namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : std::string(fallback);
}

}  // namespace

const char* to_string(ReplayMode mode) { return mode == ReplayMode::ReserveCheck ? "reserve-check" : "full-vm"; }

std::optional<ReplayMode> parse_replay_mode(std::string_view word) {
  if (word == "reserve-check") return ReplayMode::ReserveCheck;
  if (word == "full-vm") return ReplayMode::FullVm;
  return std::nullopt;
}

const char* to_string(CacheState cache) { return cache == CacheState::Warm ? "warm" : "cold"; }

std::optional<CacheState> parse_cache_state(std::string_view word) {
  if (word == "warm") return CacheState::Warm;
  if (word == "cold") return CacheState::Cold;
  return std::nullopt;
}

ReplayKnobs replay_knobs_from_environment() {
  ReplayKnobs k;
  const std::string warm = env_or("RPL_REPLAY_WARM", "inputs-outputs");
  if (warm == "inputs-outputs") k.warm = WarmStyle::InputsOutputs;
  else if (warm == "inputs") k.warm = WarmStyle::Inputs;
  else if (warm == "back-to-back") k.warm = WarmStyle::BackToBack;
  else
    throw Error(ExitCode::Usage, fmt::format("RPL_REPLAY_WARM={}: expected inputs, inputs-outputs or back-to-back", warm));
  // Any other value than "data" kept the default before this was parsed in one place: unchanged.
  k.cold_evicts_code = env_or("RPL_REPLAY_COLD", "code") != "data";
  if (const std::string v = env_or("RPL_REPLAY_TIMEOUT_S", ""); !v.empty()) {
    const std::optional<double> s = number_within(v, 0.0, 86400.0);
    if (!s || !(*s > 0))
      throw Error(ExitCode::Usage, fmt::format("RPL_REPLAY_TIMEOUT_S={}: expected seconds, more than 0 and at most 86400", v));
    k.kernel_timeout_s = *s;
  }
  if (const std::string v = env_or("RPL_REPLAY_RESERVE_ALIGN", ""); !v.empty()) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long a = std::strtoull(v.c_str(), &end, 0);
    if (end == v.c_str() || *end != '\0' || errno == ERANGE || v[0] == '-' || a == 0 || (a & (a - 1)) != 0)
      throw Error(ExitCode::Usage, fmt::format("RPL_REPLAY_RESERVE_ALIGN={}: expected a power of two in bytes (e.g. 33554432 "
                                               "or 0x2000000)", v));
    k.reservation_alignment = a;
  }
  const std::string timer = env_or("RPL_REPLAY_TIMER", "activity");
  if (timer == "activity") k.activity_timer = true;
  else if (timer == "events") k.activity_timer = false;
  else throw Error(ExitCode::Usage, fmt::format("RPL_REPLAY_TIMER={}: expected activity or events", timer));
  return k;
}

}  // namespace rpl::capture
