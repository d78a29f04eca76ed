#pragma once
// `rocm-perf capture --all-kernels`: one application run that captures the K-th launch (default: the first) of
// every distinct kernel, each into its own directory. SweepBook is the capture library's bookkeeping (pure, so
// tested without a GPU): which launch to take, the --max-kernels budget, and each kernel's outcome, written as
// one JSON line per decision to <dir>/sweep_log.jsonl (written as it goes, so an application that ends
// abruptly loses nothing already decided). `rocm-perf capture` turns that log into <dir>/index.json
// (schemas/capture-index.schema.json).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rpl::capture {

inline constexpr const char* kSweepLogName = "sweep_log.jsonl";
inline constexpr const char* kSweepIndexName = "index.json";
inline constexpr int kSweepIndexSchemaVersion = 1;

struct SweepEntry {
  uint64_t order = 0;        // 1-based, in order of first launch
  std::string mangled;
  std::string dir;           // relative to the sweep directory ("" when none was written)
  std::string status;        // "captured", "failed", "skipped", "not_captured"
  std::string reason;        // why not captured ("" when captured)
  uint64_t launches = 0;     // launches seen when the outcome was decided
  uint64_t region_bytes = 0; // captured memory (before-launch bytes)
};

class SweepBook {
 public:
  enum class Verdict { Capture, Wait, Ignore };
  SweepBook(uint64_t max_kernels, uint64_t dispatch) : max_kernels_(max_kernels), dispatch_(dispatch) {}

  // A launch of `mangled` is about to run. Capture: take this launch (its entry's dir is set); Wait: an
  // earlier launch than the one asked for, or inside CUDA graph stream capture; Ignore: the kernel's outcome
  // is decided. A kernel first seen once the budget is spent is decided "skipped" here (see take_decided()).
  Verdict on_launch(const std::string& mangled, bool in_graph_capture);
  // The outcome of a capture that on_launch() started.
  void finish(const std::string& mangled, bool captured, const std::string& reason, uint64_t region_bytes);
  // The kernels whose outcome was decided since the last call (to append to the log).
  std::vector<SweepEntry> take_decided();
  // At exit: every kernel seen but never decided, decided now "not_captured" with the reason.
  std::vector<SweepEntry> close();

  const SweepEntry* entry(const std::string& mangled) const;
  uint64_t attempted() const { return attempted_; }
  bool budget_spent() const { return max_kernels_ && attempted_ >= max_kernels_; }

 private:
  struct Tracked {
    SweepEntry entry;
    uint64_t in_graph = 0;
    bool decided = false;
    bool capturing = false;
  };
  void decide(Tracked& t);
  uint64_t max_kernels_, dispatch_;
  uint64_t attempted_ = 0;
  std::map<std::string, Tracked> kernels_;
  std::vector<SweepEntry> decided_;
};

nlohmann::json sweep_entry_json(const SweepEntry& e);
SweepEntry sweep_entry_from_json(const nlohmann::json& j);  // throws std::runtime_error on a malformed line

}  // namespace rpl::capture
