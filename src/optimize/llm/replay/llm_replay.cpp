// rpl-llm-replay: replays recorded model replies (tests/data/llm_responses) for the GPU proof of the LLM
// proposer, without a model.
//   rpl-llm-replay serve --port-file F REPLY.md...   an OpenAI-compatible server on 127.0.0.1 (ephemeral port,
//                                                     written to F) answering each request with the next reply
//                                                     file in order, then HTTP 503 "script exhausted"
//   rpl-llm-replay extract --source S --kernel K --reply R.md -o OUT
//                                                     the candidate source the LLM proposer takes from that reply
//                                                     (exit 3 and the reason when it has no usable code)
#include <httplib.h>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <atomic>
#include <fstream>
#include <sstream>

#include "optimize/llm/code_extraction.hpp"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string reply_body(const std::string& content) {
  size_t tokens = content.size() / 4 + 1;
  nlohmann::json j = {{"object", "chat.completion"}, {"model", "recorded-replies"},
                      {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", "stop"}}}},
                      {"usage", {{"prompt_tokens", 0}, {"completion_tokens", tokens}, {"total_tokens", tokens}}}};
  return j.dump();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rpl-llm-replay: recorded model replies for the LLM proposer's GPU proof"};
  app.require_subcommand(1);
  auto* serve = app.add_subcommand("serve", "serve recorded replies in order");
  std::string port_file;
  std::vector<std::string> replies;
  serve->add_option("--port-file", port_file, "where the chosen port is written")->required();
  serve->add_option("replies", replies, "reply files, in the order they are served")->required();
  auto* extract = app.add_subcommand("extract", "the candidate source a reply yields");
  std::string source, kernel, reply, out;
  extract->add_option("--source", source)->required();
  extract->add_option("--kernel", kernel)->required();
  extract->add_option("--reply", reply)->required();
  extract->add_option("-o", out)->required();
  CLI11_PARSE(app, argc, argv);

  try {
    if (*extract) {
      auto ex = rpl::optimize::llm::extract_candidate(slurp(reply), "stop", slurp(source), kernel);
      if (!ex.ok) {
        fmt::print(stderr, "{}: no usable code: {}\n", reply, ex.reason);
        return 3;
      }
      std::ofstream(out, std::ios::binary) << ex.source_text;
      fmt::print("{}\n", ex.to_json().dump());
      return 0;
    }
    std::vector<std::string> bodies;
    for (const auto& r : replies) bodies.push_back(reply_body(slurp(r)));
    std::atomic<size_t> next{0};
    httplib::Server server;
    server.Post(R"(/v1/chat/completions|/chat/completions)", [&](const httplib::Request& req, httplib::Response& res) {
      size_t k = next++;
      fmt::print(stderr, "rpl-llm-replay: request {} ({} bytes) -> {}\n", k + 1, req.body.size(),
                 k < replies.size() ? replies[k] : "503");
      if (k >= bodies.size()) {
        res.status = 503;
        res.set_content(R"({"error":"script exhausted"})", "application/json");
        return;
      }
      res.set_content(bodies[k], "application/json");
    });
    int port = server.bind_to_any_port("127.0.0.1");
    std::ofstream(port_file) << port << "\n";
    server.listen_after_bind();
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "rpl-llm-replay: {}\n", e.what());
    return 1;
  }
}
