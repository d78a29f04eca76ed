#pragma once
// A client for OpenAI-compatible chat-completions endpoints (OpenAI, vLLM, llama.cpp's server, Ollama, an
// in-house gateway) over libcurl. It retries 429 (honouring Retry-After), 5xx and timeouts with exponential
// backoff, fails fast and clearly on 401/403/404 and on an unreachable host, and refuses a response body larger
// than the configured limit without parsing it. The API key goes into the Authorization header only; every
// string this client returns or throws has it scrubbed.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/errors.hpp"

namespace rpl::optimize::llm {

struct ChatMessage {
  std::string role;     // "system", "user", "assistant"
  std::string content;
};

struct ChatRequest {
  std::string model;
  std::vector<ChatMessage> messages;
  int max_tokens = 4096;
  double temperature = 0.2;
};

struct TokenUsage {
  long prompt_tokens = 0;
  long completion_tokens = 0;
  long total_tokens = 0;
  bool estimated = false;  // the endpoint reported no usage; counted as characters / 4
};

struct ChatResponse {
  int http_status = 0;
  std::string content;        // the first choice's message text ("" when the model returned nothing)
  std::string finish_reason;  // "stop", "length", ... ("" when absent)
  TokenUsage usage;
  int attempts = 1;           // HTTP attempts this response took (retries + 1)
  std::string problem;        // non-empty when the body came back but was unusable (not JSON, too large, ...)
  std::size_t body_bytes = 0;
};

struct ClientSettings {
  std::string url;                 // base or full .../chat/completions
  std::string api_key;             // may be empty
  std::chrono::milliseconds timeout{300000};
  std::chrono::milliseconds connect_timeout{10000};
  int max_retries = 4;
  std::chrono::milliseconds backoff_initial{2000};
  std::chrono::milliseconds backoff_max{60000};
  std::size_t max_response_bytes = 8u << 20;
};

// A transport failure the retries could not overcome, or a refusal (401/403/404, unreachable host). The
// message says what happened and what to check; it never contains the key.
class EndpointError : public Error {
 public:
  enum class Kind { Unauthorized, NotFound, Unreachable, Timeout, RateLimited, ServerError, ClientError };
  EndpointError(Kind kind, const std::string& message) : Error(ExitCode::ModelEndpointFailed, message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

class ChatClient {
 public:
  explicit ChatClient(ClientSettings settings);
  // The endpoint actually posted to.
  const std::string& endpoint() const { return endpoint_; }
  // Sends one request. Returns the response (possibly with `problem` set when the body was unusable);
  // throws EndpointError when the endpoint could not be used.
  ChatResponse complete(const ChatRequest& request);
  // The request body as sent (also what the transcript records).
  static nlohmann::json request_body(const ChatRequest& request);
  // Removes the API key from text that may have echoed it (error bodies, logs).
  std::string redact(std::string text) const;
  // For tests: replaces the sleep between retries.
  void set_sleeper(std::function<void(std::chrono::milliseconds)> sleeper) { sleep_ = std::move(sleeper); }

 private:
  ClientSettings settings_;
  std::string endpoint_;
  std::function<void(std::chrono::milliseconds)> sleep_;
};

// Parses the JSON body of a chat-completions response into `out` (content, finish_reason, usage); sets
// out.problem when the body is not the expected shape.
void parse_chat_body(const std::string& body, ChatResponse& out);

}  // namespace rpl::optimize::llm
