#pragma once
// Kernel Tuner's T4 results files (the "Open Autotuning Results Schema": what Kernel Tuner's store_output_file
// writes, and the benchmark hub's *_T4.json.gz beside each cache), read as the cache file they stand for, so
// --simulate and --import-cache take either.
#include <nlohmann/json.hpp>

#include <string>

namespace rpl::autotune {

// Whether a parsed document is a T4 results file rather than a cache ("results", the first with a
// "configuration", and no "cache").
bool is_t4_results(const nlohmann::json& doc);

// The cache a T4 results file stands for: tune_params_keys in the order of the first result's configuration,
// one entry per configuration (a configuration listed twice: its last result), each with its parameters and
// its measurements by name; a result whose invalidity is not "correct" holds Kernel Tuner's failure string in
// "time" and in its objective ("constraints": InvalidConfig, outside the space; "compile":
// CompilationFailedConfig; "runtime", "timeout", "correctness": RuntimeFailedConfig). The objective is the first
// result's first "objectives" name ("time" when it has none). Throws InputCorrupt naming `flag`, the file and
// the result that cannot be read.
nlohmann::json cache_of_t4_results(const std::string& text, const std::string& path, const std::string& flag);

}  // namespace rpl::autotune
