#include "optimize/llm/chat_client.hpp"

#include <curl/curl.h>
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <thread>

#include "support/log.hpp"

namespace rpl::optimize::llm {
namespace {

struct Transfer {
  std::string body;
  std::size_t limit = 0;
  bool too_large = false;
  std::optional<long> retry_after_s;
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * count;
  if (t->body.size() + n > t->limit) {
    t->too_large = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR: never buffer an unbounded body
  }
  t->body.append(data, n);
  return n;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * count;
  std::string line(data, n);
  std::string lower = line;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower.rfind("retry-after:", 0) == 0) {
    std::string value = line.substr(12);
    value.erase(0, value.find_first_not_of(" \t"));
    // Only the delta-seconds form; an HTTP date falls back to our own backoff.
    char* end = nullptr;
    long s = std::strtol(value.c_str(), &end, 10);
    if (end != value.c_str() && s >= 0) t->retry_after_s = s;
  }
  return n;
}

void curl_init_once() {
  static std::once_flag flag;
  std::call_once(flag, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string full_endpoint(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  const std::string suffix = "/chat/completions";
  if (url.size() >= suffix.size() && url.compare(url.size() - suffix.size(), suffix.size(), suffix) == 0) return url;
  return url + suffix;
}

std::string snippet(const std::string& body) {
  std::string s = body.substr(0, 300);
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return body.size() > 300 ? s + "..." : s;
}

}  // namespace

ChatClient::ChatClient(ClientSettings settings) : settings_(std::move(settings)), endpoint_(full_endpoint(settings_.url)) {
  curl_init_once();
  sleep_ = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
}

std::string ChatClient::redact(std::string text) const {
  const std::string& key = settings_.api_key;
  if (key.empty()) return text;
  for (size_t pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos))
    text.replace(pos, key.size(), "[REDACTED]");
  return text;
}

nlohmann::json ChatClient::request_body(const ChatRequest& r) {
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& m : r.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  return {{"model", r.model}, {"messages", messages}, {"max_tokens", r.max_tokens},
          {"temperature", r.temperature}, {"stream", false}};
}

void parse_chat_body(const std::string& body, ChatResponse& out) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    out.problem = fmt::format("the response body is not JSON ({} bytes): {}", body.size(), snippet(body));
    return;
  }
  if (j.contains("usage") && j["usage"].is_object()) {
    const auto& u = j["usage"];
    out.usage.prompt_tokens = u.value("prompt_tokens", 0L);
    out.usage.completion_tokens = u.value("completion_tokens", 0L);
    out.usage.total_tokens = u.value("total_tokens", out.usage.prompt_tokens + out.usage.completion_tokens);
  }
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty() || !j["choices"][0].is_object()) {
    out.problem = "the response has no choices[0] (not a chat-completions response)";
    return;
  }
  const auto& choice = j["choices"][0];
  if (choice.contains("finish_reason") && choice["finish_reason"].is_string())
    out.finish_reason = choice["finish_reason"].get<std::string>();
  if (!choice.contains("message") || !choice["message"].is_object()) {
    out.problem = "choices[0] has no message";
    return;
  }
  const auto& content = choice["message"].value("content", nlohmann::json());
  if (content.is_string()) {
    out.content = content.get<std::string>();
  } else if (content.is_array()) {  // content parts: keep the text ones
    for (const auto& part : content)
      if (part.is_object() && part.value("type", "") == "text") out.content += part.value("text", "");
  }
}

ChatResponse ChatClient::complete(const ChatRequest& request) {
  const std::string payload = request_body(request).dump();
  std::chrono::milliseconds backoff = settings_.backoff_initial;
  for (int attempt = 1;; ++attempt) {
    Transfer t;
    t.limit = settings_.max_response_bytes;
    CURL* curl = curl_easy_init();
    if (!curl) throw Error(ExitCode::Internal, "libcurl could not start a transfer");
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    if (!settings_.api_key.empty())
      headers = curl_slist_append(headers, ("Authorization: Bearer " + settings_.api_key).c_str());
    char error_buffer[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(curl, CURLOPT_URL, endpoint_.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, payload.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(payload.size()));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(settings_.timeout.count()));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(settings_.connect_timeout.count()));
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
    CURLcode rc = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);

    std::string retry_reason;
    if (t.too_large) {
      ChatResponse out;
      out.http_status = static_cast<int>(status);
      out.attempts = attempt;
      out.body_bytes = t.body.size();
      out.problem = fmt::format("the response from {} is larger than {} bytes and was refused unread", endpoint_,
                                settings_.max_response_bytes);
      return out;
    }
    if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY) {
      throw EndpointError(EndpointError::Kind::Unreachable,
                          redact(fmt::format("cannot reach the model endpoint {}: {} (is the server running? check --llm-url)",
                                             endpoint_, error_buffer[0] ? error_buffer : curl_easy_strerror(rc))));
    }
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      retry_reason = fmt::format("timed out after {} ms", settings_.timeout.count());
    } else if (rc != CURLE_OK) {
      retry_reason = fmt::format("transfer failed: {}", error_buffer[0] ? error_buffer : curl_easy_strerror(rc));
    } else if (status == 401 || status == 403) {
      throw EndpointError(EndpointError::Kind::Unauthorized,
                          redact(fmt::format("the model endpoint {} refused the request (HTTP {}): check the key in "
                                             "{} ({}); server said: {}",
                                             endpoint_, status, "ROCM_PERF_LLM_API_KEY",
                                             settings_.api_key.empty() ? "it is not set" : "it is set", snippet(t.body))));
    } else if (status == 404) {
      throw EndpointError(EndpointError::Kind::NotFound,
                          redact(fmt::format("the model endpoint {} answered HTTP 404: check --llm-url (the base, e.g. "
                                             "http://127.0.0.1:8000/v1) and --llm-model; server said: {}",
                                             endpoint_, snippet(t.body))));
    } else if (status == 429) {
      retry_reason = "HTTP 429 (rate limited)";
    } else if (status >= 500) {
      retry_reason = fmt::format("HTTP {} (server error): {}", status, snippet(t.body));
    } else if (status >= 400) {
      throw EndpointError(EndpointError::Kind::ClientError,
                          redact(fmt::format("the model endpoint {} rejected the request (HTTP {}): {}", endpoint_,
                                             status, snippet(t.body))));
    } else {
      ChatResponse out;
      out.http_status = static_cast<int>(status);
      out.attempts = attempt;
      out.body_bytes = t.body.size();
      parse_chat_body(t.body, out);
      out.problem = redact(out.problem);
      out.content = redact(out.content);
      return out;
    }

    if (attempt > settings_.max_retries) {
      auto kind = status == 429 ? EndpointError::Kind::RateLimited
                  : rc == CURLE_OPERATION_TIMEDOUT ? EndpointError::Kind::Timeout
                                                   : EndpointError::Kind::ServerError;
      throw EndpointError(kind, redact(fmt::format("the model endpoint {} kept failing: {}, given up after {} retries",
                                                   endpoint_, retry_reason, settings_.max_retries)));
    }
    std::chrono::milliseconds wait = backoff;
    if (t.retry_after_s) wait = std::chrono::milliseconds(*t.retry_after_s * 1000);
    wait = std::min(wait, settings_.backoff_max);
    log::warn("model endpoint: {}; retry {} of {} in {} ms", redact(retry_reason), attempt, settings_.max_retries,
              wait.count());
    sleep_(wait);
    backoff = std::min(backoff * 2, settings_.backoff_max);
  }
}

}  // namespace rpl::optimize::llm
