#pragma once
// Options of the LLM proposer (`rocm-perf optimize --proposer llm ...`). Nothing is sent anywhere unless the
// optimize command chose this proposer; these options only describe where and how.
#include <CLI/CLI.hpp>
#include <string>

namespace rpl::optimize::llm {

// The environment variable the API key is read from. The key is never a command-line value (it would show in
// `ps` and shell history) and never printed, logged or written.
inline constexpr const char* kApiKeyEnv = "ROCM_PERF_LLM_API_KEY";

struct LlmOptions {
  std::string url = "http://127.0.0.1:8000/v1";  // base URL; "/chat/completions" is appended unless present
  std::string model;                              // required
  int max_tokens = 8192;                          // per response
  double temperature = 0.2;
  long budget_tokens = 500000;                    // prompt + completion tokens for the whole run
  int candidates = 2;                             // candidates (requests) per round
  int repair_rounds = 3;                          // compiler-repair attempts per candidate
  std::string prompt_dir;                         // overrides share/prompts/*.txt file by file
  double timeout_s = 300;                         // one request, end to end
  double connect_timeout_s = 10;
  int max_retries = 4;                            // on 429, 5xx and timeouts
  double backoff_initial_s = 2;                   // doubled after each retry ...
  double backoff_max_s = 60;                      // ... up to this; Retry-After is honoured up to this too
  double max_response_mb = 8;                     // a larger HTTP body is refused, never parsed
};

// Registers --llm-url, --llm-model, --llm-max-tokens, --llm-temperature, --llm-budget-tokens,
// --llm-candidates, --llm-repair-rounds, --llm-prompt-dir, --llm-timeout, --llm-retries on `app`.
void add_llm_options(CLI::App& app, LlmOptions& options);

// Throws rpl::Error(Usage) naming the option when a value cannot work (no model, zero candidates, ...).
void validate(const LlmOptions& options);

// The key from ROCM_PERF_LLM_API_KEY, or "" when unset (local servers need none).
std::string api_key_from_environment();

}  // namespace rpl::optimize::llm
