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

// Returns key -> measurement for the configurations of `space` the cache holds; configurations outside the
// space are counted in `skipped`. Throws Usage when its tune_params_keys are not the space's parameters.
std::unordered_map<std::string, CachedMeasurement> import_kernel_tuner_cache(const std::string& path,
                                                                             const SearchSpace& space,
                                                                             std::size_t* skipped,
                                                                             const std::string& flag = "--import-cache");
// The same from a cache already read (read_kernel_tuner_cache).
std::unordered_map<std::string, CachedMeasurement> kernel_tuner_measurements(const nlohmann::json& doc,
                                                                             const std::string& path,
                                                                             const SearchSpace& space,
                                                                             std::size_t* skipped,
                                                                             const std::string& flag);

struct ExportRow {
  std::size_t config;
  Outcome outcome;
};
// Writes a Kernel Tuner cache file (atomically) holding `rows`; invalid ones as "RuntimeFailedConfig".
void export_kernel_tuner_cache(const std::string& path, const SearchSpace& space, const std::vector<ExportRow>& rows,
                               const std::string& kernel_name);

}  // namespace rpl::autotune
