#include "optimize/llm/llm_options.hpp"

#include <fmt/core.h>

#include <cstdlib>

#include "support/errors.hpp"

namespace rpl::optimize::llm {

void add_llm_options(CLI::App& app, LlmOptions& o) {
  app.add_option("--llm-url", o.url,
                 "OpenAI-compatible endpoint (base like http://127.0.0.1:8000/v1; key from env ROCM_PERF_LLM_API_KEY)")
      ->capture_default_str();
  app.add_option("--llm-model", o.model, "model name the endpoint serves (--proposer llm)");
  app.add_option("--llm-max-tokens", o.max_tokens, "most tokens per response")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--llm-temperature", o.temperature, "sampling temperature")->capture_default_str()->check(CLI::Range(0.0, 2.0));
  app.add_option("--llm-budget-tokens", o.budget_tokens, "prompt + completion tokens for the whole run")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--llm-candidates", o.candidates, "candidates (one request each) per round")
      ->capture_default_str()->check(CLI::Range(1, 64));
  app.add_option("--llm-repair-rounds", o.repair_rounds, "compiler-repair attempts per candidate")
      ->capture_default_str()->check(CLI::Range(0, 20));
  app.add_option("--llm-prompt-dir", o.prompt_dir, "directory whose system.txt/propose.txt/repair.txt override the built-in prompts")
      ->check(CLI::ExistingDirectory);
  app.add_option("--llm-timeout", o.timeout_s, "seconds per request")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--llm-retries", o.max_retries, "retries on HTTP 429, 5xx and timeouts")
      ->capture_default_str()->check(CLI::Range(0, 20));
}

void validate(const LlmOptions& o) {
  auto bad = [](const std::string& what) { throw Error(ExitCode::Usage, what); };
  if (o.model.empty()) bad("--proposer llm needs --llm-model NAME (the model the endpoint at --llm-url serves)");
  if (o.url.rfind("http://", 0) != 0 && o.url.rfind("https://", 0) != 0)
    bad(fmt::format("--llm-url '{}' is not an http:// or https:// URL", o.url));
  if (o.candidates < 1) bad(fmt::format("--llm-candidates {} must be at least 1", o.candidates));
  if (o.max_tokens < 1) bad(fmt::format("--llm-max-tokens {} must be at least 1", o.max_tokens));
  if (o.budget_tokens < 1) bad(fmt::format("--llm-budget-tokens {} must be at least 1", o.budget_tokens));
  if (o.repair_rounds < 0) bad(fmt::format("--llm-repair-rounds {} must not be negative", o.repair_rounds));
  if (o.timeout_s <= 0) bad(fmt::format("--llm-timeout {} must be positive", o.timeout_s));
  if (o.max_response_mb <= 0) bad("the response size limit must be positive");
}

std::string api_key_from_environment() {
  const char* key = std::getenv(kApiKeyEnv);
  return key ? std::string(key) : std::string();
}

}  // namespace rpl::optimize::llm
