#pragma once
// llm-transcript.jsonl: every request to the model and every response, in order, one JSON object per line, so
// a user can audit what was asked and what came back. Each line is written with one append, so a killed run
// leaves whole lines. The API key is scrubbed from every line before it is written (it is never put in a line
// to begin with: requests are recorded without their headers).
//
// Line kinds ("kind"): "header" (schema_version, model, endpoint, settings; the first line), "request" (round,
// purpose "propose"|"repair", candidate, body), "response" (request_seq, status, attempts, finish_reason, usage,
// content, outcome, extraction), "error" (request_seq, message), "verdict" (candidate, gate, passed, reason,
// evidence). Schemas: schemas/llm-transcript-line.schema.json, and schemas/llm-summary.schema.json for summary().
#include <string>

#include <nlohmann/json.hpp>

#include "optimize/llm/llm_options.hpp"

namespace rpl::optimize::llm {

inline constexpr const char* kTranscriptSchemaVersion = "1.0";

class TranscriptWriter {
 public:
  // `path` is created (truncated); `secret` (by default the key in ROCM_PERF_LLM_API_KEY) is scrubbed from
  // every line.
  explicit TranscriptWriter(std::string path, std::string secret = api_key_from_environment());
  // A writer that keeps the summary but writes no file (tests, --dry-run without an output folder).
  TranscriptWriter();
  ~TranscriptWriter();
  TranscriptWriter(const TranscriptWriter&) = delete;
  TranscriptWriter& operator=(const TranscriptWriter&) = delete;

  // Appends one line; sets its "seq" (0, 1, 2, ... in file order) and returns it.
  long append(nlohmann::json line);
  const std::string& path() const { return path_; }

  // What optimize.json reports under "llm": model, endpoint, token usage against the budget, requests,
  // failed responses with their reasons, and the transcript's path. Kept up to date by the proposer.
  nlohmann::json& summary() { return summary_; }
  const nlohmann::json& summary() const { return summary_; }

 private:
  std::string path_;
  std::string secret_;
  int fd_ = -1;
  long next_seq_ = 0;
  nlohmann::json summary_;
};

}  // namespace rpl::optimize::llm
