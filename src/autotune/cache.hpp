#pragma once
// The measurement cache: JSON Lines, one header line naming the space and the objective, then one line
// per measurement, appended and flushed to disk (fsync) the moment it is taken, so a killed run loses
// nothing and the next run with the same cache measures nothing twice. Kernel Tuner's JSON cache format
// can be imported (its measurements join ours) and exported.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <unordered_map>

#include "autotune/evaluator.hpp"
#include "autotune/space.hpp"

namespace rpl::autotune {

struct CachedMeasurement {
  Outcome outcome;
  std::string source = "measured";  // or "kernel_tuner" when imported
};

class Cache {
 public:
  // Opens (creates) `path`. Throws Usage when it was written for another space or objective, naming the
  // difference; a truncated last line (a run killed mid-write) is dropped, the file rewritten atomically.
  Cache(const std::string& path, const SearchSpace& space, const nlohmann::ordered_json& objective);
  ~Cache();
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  const CachedMeasurement* find(const std::string& key) const;
  void append(const std::string& key, const nlohmann::ordered_json& config, const CachedMeasurement& m);
  std::size_t size() const { return entries_.size(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  std::unordered_map<std::string, CachedMeasurement> entries_;
};

// A Kernel Tuner cache file (kernel_tuner's cachefile JSON, plain or gzip-compressed, possibly left
// unterminated by a killed run), parsed. Throws InputMissing / InputCorrupt naming `flag` and the file.
nlohmann::json read_kernel_tuner_cache(const std::string& path, const std::string& flag);

// What a Kernel Tuner cache's entries are read on: the column `name` and whether higher is better there.
struct KernelTunerObjective {
  std::string name = "time";
  bool higher_is_better = false;
};
// The cache's objective: its "objective" (a name, or as Kernel Tuner 1.x writes it a list, whose first name is the
// one Kernel Tuner sorts on; "time" when absent), or `name` when given; higher is better as `higher_is_better`
// says, else as Kernel Tuner's defaults for its known objectives (time, energy, cost, loss lower; fitness, GFLOP/s,
// TFLOP/s, GB/s, TB/s, GFLOPS/W, TFLOPS/W, GFLOP/J, TFLOP/J higher). Throws Usage naming the file for an
// objective of no known direction that `higher_is_better` does not settle, InputCorrupt for an unreadable one.
KernelTunerObjective kernel_tuner_objective(const nlohmann::json& doc, const std::string& path, const std::string& flag,
                                            const std::optional<std::string>& name = std::nullopt,
                                            std::optional<bool> higher_is_better = std::nullopt);

// Returns key -> measurement for the configurations of `space` the cache holds; configurations outside the
// space are counted in `skipped`. Throws Usage when its tune_params_keys are not the space's parameters, or
// when its objective is one where higher is better (a tuning run minimizes).
std::unordered_map<std::string, CachedMeasurement> import_kernel_tuner_cache(const std::string& path,
                                                                             const SearchSpace& space,
                                                                             std::size_t* skipped,
                                                                             const std::string& flag = "--import-cache");
// The same from a cache already read (read_kernel_tuner_cache), on `objective`: an entry's value there is its
// objective, or where higher is better its reciprocal (the search minimizes); a value that is not positive, in
// either direction, fails with kNotPositive in its reason (the search models the objective's logarithm); a failure
// string (Kernel Tuner's RuntimeFailedConfig...) there or in "time" is an invalid configuration.
inline constexpr const char* kNotPositive = "(not positive: the search needs an objective above zero)";
std::unordered_map<std::string, CachedMeasurement> kernel_tuner_measurements(const nlohmann::json& doc,
                                                                             const std::string& path,
                                                                             const SearchSpace& space,
                                                                             std::size_t* skipped,
                                                                             const std::string& flag,
                                                                             const KernelTunerObjective& objective);
// The value an entry holds on `objective` (a number, a failure string, or null when it holds neither).
nlohmann::json kernel_tuner_value(const nlohmann::json& entry, const KernelTunerObjective& objective);

struct ExportRow {
  std::size_t config;
  Outcome outcome;
};
// Writes a Kernel Tuner cache file (atomically) holding `rows`; invalid ones as "RuntimeFailedConfig".
void export_kernel_tuner_cache(const std::string& path, const SearchSpace& space, const std::vector<ExportRow>& rows,
                               const std::string& kernel_name);

}  // namespace rpl::autotune
