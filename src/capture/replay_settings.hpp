#pragma once
// The settings of a replay, each parsed once into a value: the mode and the cache state (command-line words
// of `rocm-perf replay` and of the runners), and the knobs set through the environment
// (replay_knobs_from_environment, read once by the runner at start: the runners read no variable themselves). README.md ("Replay") describes them.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace rpl::capture {

enum class ReplayMode { ReserveCheck, FullVm };
const char* to_string(ReplayMode mode);  // "reserve-check", "full-vm"
std::optional<ReplayMode> parse_replay_mode(std::string_view word);

// The cache state of the timed launches. Warm: one untimed launch first, then only the regions the kernel
// writes are restored before each timed launch, so its inputs are resident in L2 as when a producer kernel
// ran just before it in the application. Cold: the last-level cache is flushed before each timed launch.
enum class CacheState { Warm, Cold };
const char* to_string(CacheState cache);  // "warm", "cold"
std::optional<CacheState> parse_cache_state(std::string_view word);

// How the warm state is prepared (RPL_REPLAY_WARM): "inputs-outputs" (default: what the parameters point to
// is read into L2, what the kernel writes included, as the application's caching allocator hands out memory
// that was just in use; on the H100 sweeps this put softmax forward in the band, its output writes then hit
// L2), "inputs" (what it writes left out) or "back-to-back" (no flush, no read-in).
enum class WarmStyle { InputsOutputs, Inputs, BackToBack };

struct ReplayKnobs {
  WarmStyle warm = WarmStyle::InputsOutputs;  // RPL_REPLAY_WARM
  // Cold launches also evict the kernel's code from the instruction caches where the runner can
  // (RPL_REPLAY_COLD=code, the default); RPL_REPLAY_COLD=data: L2 only.
  bool cold_evicts_code = true;
  // Seconds the AMD runner waits for one dispatch before it calls it hung (RPL_REPLAY_TIMEOUT_S, > 0; default 120).
  double kernel_timeout_s = 120;
  // The NVIDIA runner's address-reservation alignment in bytes (RPL_REPLAY_RESERVE_ALIGN, a power of two, decimal or
  // 0x hex); 0: the runner's own default (32 MiB, the alignment at which the driver honours a hint).
  uint64_t reservation_alignment = 0;
  // Timed launches from CUPTI kernel activity records (RPL_REPLAY_TIMER=activity, the default) or CUDA events
  // (RPL_REPLAY_TIMER=events).
  bool activity_timer = true;
};

// The whole of `v` as a number within [lo, hi]; integral T takes decimal digits only (no sign, no exponent). The
// runner's arguments and the knobs of the environment are read with it.
template <typename T>
std::optional<T> number_within(const std::string& v, T lo, T hi) {
  if (v.empty()) return std::nullopt;
  char* end = nullptr;
  if constexpr (std::is_integral_v<T>) {
    if (v[0] == '-') return std::nullopt;
    const unsigned long n = std::strtoul(v.c_str(), &end, 10);
    if (*end || n < static_cast<unsigned long>(lo) || n > static_cast<unsigned long>(hi)) return std::nullopt;
    return static_cast<T>(n);
  } else {
    const T d = std::strtod(v.c_str(), &end);
    if (*end || !(d >= lo && d <= hi)) return std::nullopt;
    return d;
  }
}

// Throws rpl::Error(Usage) naming the variable and its value when a knob holds something else.
ReplayKnobs replay_knobs_from_environment();

}  // namespace rpl::capture
