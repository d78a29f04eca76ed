#pragma once
// A local OpenAI-compatible chat-completions server for tests of the LLM proposer: it listens on 127.0.0.1 on
// an ephemeral port and answers POST /v1/chat/completions with scripted replies, in order, recording every
// request it received. Links with cpp-httplib (tests only).
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rpl::test {

struct ScriptedReply {
  int status = 200;
  std::string body;
  std::map<std::string, std::string> headers;
  int delay_ms = 0;
};

// A chat-completions body whose first choice says `content`.
inline std::string chat_reply(const std::string& content, const std::string& finish_reason = "stop",
                              long prompt_tokens = 100, long completion_tokens = 50) {
  nlohmann::json j = {{"id", "chatcmpl-test"},
                      {"object", "chat.completion"},
                      {"model", "test-model"},
                      {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}},
                                    {"finish_reason", finish_reason}}}},
                      {"usage", {{"prompt_tokens", prompt_tokens}, {"completion_tokens", completion_tokens},
                                 {"total_tokens", prompt_tokens + completion_tokens}}}};
  return j.dump();
}

struct ReceivedRequest {
  std::string body;
  std::string authorization;
  nlohmann::json json() const { return nlohmann::json::parse(body); }
  // The text of the last message (the user prompt of this request).
  std::string last_message() const { return json()["messages"].back()["content"].get<std::string>(); }
};

class MockModelServer {
 public:
  MockModelServer() {
    server_.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      ScriptedReply reply;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        received_.push_back({req.body, req.get_header_value("Authorization")});
        if (script_.empty()) {
          reply = {500, R"({"error":"the test script has no more replies"})", {}, 0};
        } else {
          reply = script_.front();
          if (script_.size() > 1 || !repeat_last_) script_.pop_front();
        }
      }
      if (reply.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(reply.delay_ms));
      res.status = reply.status;
      for (const auto& [k, v] : reply.headers) res.set_header(k, v);
      res.set_content(reply.body, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");  // listening from here on: no race with the first request
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() before the accept loop has started would be lost: wait for it.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~MockModelServer() {
    server_.stop();
    thread_.join();
  }
  void push(ScriptedReply r) {
    std::lock_guard<std::mutex> lock(mutex_);
    script_.push_back(std::move(r));
  }
  void push_content(const std::string& content, const std::string& finish = "stop") { push({200, chat_reply(content, finish), {}, 0}); }
  // The last scripted reply answers every later request too (a 500 storm).
  void repeat_last(bool on) { repeat_last_ = on; }
  std::vector<ReceivedRequest> received() {
    std::lock_guard<std::mutex> lock(mutex_);
    return received_;
  }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::deque<ScriptedReply> script_;
  std::vector<ReceivedRequest> received_;
  bool repeat_last_ = false;
};

}  // namespace rpl::test
