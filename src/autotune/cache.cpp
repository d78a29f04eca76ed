#include "autotune/cache.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "autotune/kernel_tuner_t4.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"

namespace rpl::autotune {
namespace {

constexpr const char* kCacheFormat = "rocm-perf autotune cache";

nlohmann::ordered_json header(const SearchSpace& space, const nlohmann::ordered_json& objective) {
  return {{"format", kCacheFormat}, {"version", 1}, {"space", space.definition()}, {"objective", objective}};
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first key whose values differ between two JSON objects, for the error message.
std::string first_difference(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b) {
  for (const auto& [k, v] : a.items())
    if (!b.contains(k) || b[k] != v) return k;
  for (const auto& [k, v] : b.items())
    if (!a.contains(k)) return k;
  return "";
}

}  // namespace

Cache::Cache(const std::string& path, const SearchSpace& space, const nlohmann::ordered_json& objective) : path_(path) {
  const nlohmann::ordered_json want = header(space, objective);
  if (std::filesystem::exists(path) && std::filesystem::file_size(path) > 0) {
    const std::string text = read_all(path);
    std::vector<std::string> lines;
    std::size_t start = 0;
    bool truncated = false;
    while (start < text.size()) {
      const std::size_t nl = text.find('\n', start);
      if (nl == std::string::npos) {
        truncated = true;  // killed mid-write: the partial line is dropped
        break;
      }
      lines.push_back(text.substr(start, nl - start));
      start = nl + 1;
    }
    nlohmann::ordered_json head;
    try {
      head = lines.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json::parse(lines[0]);
    } catch (const nlohmann::json::exception&) {
    }
    if (!head.is_object() || head.value("format", "") != kCacheFormat)
      throw Error(ExitCode::Usage, fmt::format("--cache {}: not a rocm-perf autotune cache (its first line is not our "
                                               "header); use --import-cache for a Kernel Tuner cache", path));
    if (head["space"] != want["space"])
      throw Error(ExitCode::Usage, fmt::format("--cache {}: written for a different search space (its {} differ); "
                                               "use another cache file", path,
                                               first_difference(head["space"], want["space"])));
    if (head["objective"] != want["objective"])
      throw Error(ExitCode::Usage, fmt::format("--cache {}: written for a different objective (its {} differs: {} here, "
                                               "{} now); use another cache file", path,
                                               first_difference(head["objective"], want["objective"]),
                                               head["objective"].dump(), want["objective"].dump()));
    for (std::size_t i = 1; i < lines.size(); ++i) {
      if (lines[i].empty()) continue;
      try {
        const auto e = nlohmann::json::parse(lines[i]);
        CachedMeasurement m;
        m.outcome.valid = e.at("valid").get<bool>();
        if (m.outcome.valid) m.outcome.objective = e.at("objective").get<double>();
        m.outcome.reason = e.value("reason", "");
        m.source = e.value("source", "measured");
        entries_[e.at("key").get<std::string>()] = m;
      } catch (const nlohmann::json::exception& ex) {
        throw Error(ExitCode::InputCorrupt, fmt::format("--cache {}: line {} is damaged ({})", path, i + 1, ex.what()));
      }
    }
    if (truncated) {
      const std::string kept = text.substr(0, start);
      write_file_atomically(path, [&](std::FILE* f) { std::fwrite(kept.data(), 1, kept.size(), f); });
    }
  } else {
    const std::string line = want.dump() + "\n";
    write_file_atomically(path, [&](std::FILE* f) { std::fwrite(line.data(), 1, line.size(), f); });
  }
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw Error(ExitCode::OutputFailed, fmt::format("--cache {}: cannot be opened for appending", path));
}

Cache::~Cache() {
  if (file_) std::fclose(file_);
}

const CachedMeasurement* Cache::find(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

void Cache::append(const std::string& key, const nlohmann::ordered_json& config, const CachedMeasurement& m) {
  nlohmann::ordered_json e = {{"key", key}, {"config", config}, {"valid", m.outcome.valid}};
  if (m.outcome.valid) e["objective"] = m.outcome.objective;
  else e["reason"] = m.outcome.reason;
  if (m.source != "measured") e["source"] = m.source;
  const std::string line = e.dump() + "\n";
  // One write of a whole line, then flushed to the disk: a kill loses at most the line being written.
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0 ||
      ::fsync(::fileno(file_)) != 0)
    throw Error(ExitCode::OutputFailed, fmt::format("--cache {}: cannot append a measurement", path_));
  entries_[key] = m;
}

namespace {

// The whole file, decompressed when it is gzip-compressed (the benchmark hub ships .json.gz; zlib reads plain
// files as they are).
std::optional<std::string> read_maybe_gzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return std::nullopt;
  std::string text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(f, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
  int status = Z_OK;
  gzerror(f, &status);
  const bool failed = n < 0 || (status != Z_OK && status != Z_STREAM_END);
  gzclose(f);
  if (failed) return std::nullopt;
  return text;
}

}  // namespace

nlohmann::json read_kernel_tuner_cache(const std::string& path, const std::string& flag) {
  if (!std::filesystem::is_regular_file(path))
    throw Error(ExitCode::InputMissing, fmt::format("{} {}: cannot be read", flag, path));
  const std::optional<std::string> text = read_maybe_gzip(path);
  if (!text) throw Error(ExitCode::InputCorrupt, fmt::format("{} {}: damaged gzip data", flag, path));
  nlohmann::json doc;
  // Kernel Tuner appends entries while it runs and closes the braces at the end; a killed run leaves
  // them open.
  for (const char* close : {"", "}}", "}"}) {
    std::string attempt = *text;
    if (*close) {
      while (!attempt.empty() && (std::isspace(static_cast<unsigned char>(attempt.back())) || attempt.back() == ','))
        attempt.pop_back();
      attempt += close;
    }
    try {
      doc = nlohmann::json::parse(attempt);
      break;
    } catch (const nlohmann::json::exception&) {
    }
  }
  if (is_t4_results(doc)) doc = cache_of_t4_results(*text, path, flag);
  if (!doc.is_object() || !doc.contains("cache") || !doc["cache"].is_object() || !doc.contains("tune_params_keys") ||
      !doc["tune_params_keys"].is_array())
    throw Error(ExitCode::InputCorrupt, fmt::format("{} {}: not a Kernel Tuner cache file (needs "
                                                    "\"tune_params_keys\" and \"cache\", or a T4 results file's "
                                                    "\"results\")", flag, path));
  for (const auto& k : doc["tune_params_keys"])
    if (!k.is_string())
      throw Error(ExitCode::InputCorrupt, fmt::format("{} {}: tune_params_keys holds {}, not a name", flag, path, k.dump()));
  return doc;
}

KernelTunerObjective kernel_tuner_objective(const nlohmann::json& doc, const std::string& path, const std::string& flag,
                                            const std::optional<std::string>& name, std::optional<bool> higher_is_better) {
  KernelTunerObjective out;
  if (name) {
    out.name = *name;
  } else if (doc.contains("objective")) {
    const auto& o = doc["objective"];
    if (o.is_string()) out.name = o.get<std::string>();
    else if (o.is_array() && !o.empty() && o[0].is_string()) out.name = o[0].get<std::string>();
    else
      throw Error(ExitCode::InputCorrupt, fmt::format("{} {}: \"objective\" is {}, not a name or a list of names", flag,
                                                      path, o.dump()));
  }
  // Kernel Tuner's own defaults (kernel_tuner.util's objective_default_map).
  static const std::map<std::string, bool> kKnown = {
      {"time", false},     {"energy", false},   {"cost", false},     {"loss", false},     {"fitness", true},
      {"GFLOP/s", true},   {"TFLOP/s", true},   {"GB/s", true},      {"TB/s", true},      {"GFLOPS/W", true},
      {"TFLOPS/W", true},  {"GFLOP/J", true},   {"TFLOP/J", true}};
  if (higher_is_better) {
    out.higher_is_better = *higher_is_better;
  } else if (const auto it = kKnown.find(out.name); it != kKnown.end()) {
    out.higher_is_better = it->second;
  } else {
    throw Error(ExitCode::Usage, fmt::format("{} {}: objective \"{}\" is not one whose direction is known (Kernel "
                                             "Tuner asks for objective_higher_is_better too): say which with "
                                             "--simulate-direction min or max", flag, path, out.name));
  }
  return out;
}

nlohmann::json kernel_tuner_value(const nlohmann::json& entry, const KernelTunerObjective& objective) {
  if (entry.contains(objective.name) && (entry[objective.name].is_number() || entry[objective.name].is_string()))
    return entry[objective.name];
  // Kernel Tuner writes a failed configuration's error in its "time" whatever the objective.
  if (entry.contains("time") && entry["time"].is_string()) return entry["time"];
  return nullptr;
}

std::unordered_map<std::string, CachedMeasurement> import_kernel_tuner_cache(const std::string& path,
                                                                             const SearchSpace& space,
                                                                             std::size_t* skipped,
                                                                             const std::string& flag) {
  const nlohmann::json doc = read_kernel_tuner_cache(path, flag);
  const KernelTunerObjective objective = kernel_tuner_objective(doc, path, flag, std::nullopt, false);
  if (objective.name != "time")
    throw Error(ExitCode::Usage, fmt::format("{} {}: its objective is \"{}\"; a tuning run measures time (smaller "
                                             "is better): import a cache of times", flag, path, objective.name));
  return kernel_tuner_measurements(doc, path, space, skipped, flag, objective);
}

std::unordered_map<std::string, CachedMeasurement> kernel_tuner_measurements(const nlohmann::json& doc,
                                                                             const std::string& path,
                                                                             const SearchSpace& space,
                                                                             std::size_t* skipped,
                                                                             const std::string& flag,
                                                                             const KernelTunerObjective& objective) {
  std::vector<std::string> keys = doc["tune_params_keys"].get<std::vector<std::string>>();
  std::vector<std::string> ours;
  for (const auto& p : space.parameters()) ours.push_back(p.name);
  if (keys != ours) {
    std::string a, b;
    for (const auto& k : keys) a += (a.empty() ? "" : ",") + k;
    for (const auto& k : ours) b += (b.empty() ? "" : ",") + k;
    throw Error(ExitCode::Usage, fmt::format("{} {}: from a different space (its parameters are {}, the "
                                             "space's are {})", flag, path, a, b));
  }
  std::unordered_map<std::string, CachedMeasurement> out;
  std::size_t outside = 0;
  for (const auto& [_, entry] : doc["cache"].items()) {
    std::vector<double> values;
    bool known = true;
    for (std::size_t p = 0; p < keys.size() && known; ++p) {
      const auto v = entry.contains(keys[p]) ? space.parameters()[p].value_of(entry[keys[p]]) : std::nullopt;
      if (v) values.push_back(*v);
      known = v.has_value();
    }
    const std::size_t index = known ? space.find(values) : SearchSpace::npos;
    if (index == SearchSpace::npos) {
      ++outside;
      continue;
    }
    CachedMeasurement m;
    m.source = "kernel_tuner";
    const nlohmann::json t = kernel_tuner_value(entry, objective);
    if (t.is_number() && !(t.get<double>() > 0)) {
      // The search models the objective's logarithm and compares configurations by ratios, whichever the
      // direction: a value of zero or below cannot be placed (a hyperparameter tuning cache's "score" can be).
      m.outcome.reason = fmt::format("Kernel Tuner: {} {} {}", objective.name, t.dump(), kNotPositive);
    } else if (t.is_number()) {
      m.outcome.valid = true;
      m.outcome.objective = objective.higher_is_better ? 1.0 / t.get<double>() : t.get<double>();
    } else {
      m.outcome.reason = "Kernel Tuner: " + (t.is_string() ? t.get<std::string>() : "no " + objective.name);
    }
    out[space.key(space.config(index))] = m;
  }
  if (skipped) *skipped = outside;
  return out;
}

void export_kernel_tuner_cache(const std::string& path, const SearchSpace& space, const std::vector<ExportRow>& rows,
                               const std::string& kernel_name) {
  nlohmann::ordered_json doc;
  doc["device_name"] = "unknown";
  doc["kernel_name"] = kernel_name;
  doc["problem_size"] = nlohmann::ordered_json::array();
  std::vector<std::string> keys;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& p : space.parameters()) {
    keys.push_back(p.name);
    params[p.name] = space.definition()["parameters"][p.name];
  }
  doc["tune_params_keys"] = keys;
  doc["tune_params"] = params;
  doc["objective"] = "time";
  nlohmann::ordered_json cache = nlohmann::ordered_json::object();
  for (const auto& row : rows) {
    ConfigView c = space.config(row.config);
    std::string key;
    nlohmann::ordered_json entry = space.to_json(c);
    for (std::size_t p = 0; p < c.size(); ++p) key += (p ? "," : "") + space.text(c, p);
    if (row.outcome.valid) {
      entry["time"] = row.outcome.objective;
      entry["times"] = {row.outcome.objective};
    } else {
      entry["time"] = "RuntimeFailedConfig";
    }
    cache[key] = entry;
  }
  doc["cache"] = cache;
  const std::string text = doc.dump(1) + "\n";
  write_file_atomically(path, [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
}

}  // namespace rpl::autotune
