#include "optimize/llm/llm_proposer.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "optimize/llm/chat_client.hpp"
#include "optimize/llm/code_extraction.hpp"
#include "optimize/llm/prompt_builder.hpp"
#include "support/log.hpp"

namespace rpl::optimize::llm {
namespace {

using Json = nlohmann::json;

long estimate_tokens(size_t chars) { return static_cast<long>(chars / 4 + 1); }

// The reply's first sentence of prose, as the candidate's one-line description.
std::string describe(const std::string& reply, const std::string& kernel) {
  std::string prose = reply.substr(0, reply.find("```"));
  size_t b = prose.find_first_not_of(" \t\r\n#*");
  if (b == std::string::npos) return "model-proposed rewrite of " + kernel;
  prose = prose.substr(b);
  size_t e = prose.find_first_of(".\n");
  prose = prose.substr(0, std::min<size_t>(e == std::string::npos ? prose.size() : e, 160));
  return prose.empty() ? "model-proposed rewrite of " + kernel : prose;
}

std::chrono::milliseconds ms(double seconds) { return std::chrono::milliseconds(static_cast<long>(seconds * 1000)); }

class LlmProposer : public Proposer {
 public:
  LlmProposer(const LlmOptions& options, TranscriptWriter& transcript)
      : options_(options),
        templates_(load_prompt_templates(options.prompt_dir)),
        client_(ClientSettings{options.url, api_key_from_environment(), ms(options.timeout_s),
                               ms(options.connect_timeout_s), options.max_retries, ms(options.backoff_initial_s),
                               ms(options.backoff_max_s),
                               static_cast<size_t>(options.max_response_mb * 1024 * 1024)}),
        transcript_(transcript) {
    Json& s = transcript_.summary();
    s["model"] = options_.model;
    s["endpoint"] = client_.endpoint();
    s["budget_tokens"] = options_.budget_tokens;
    s["budget_exhausted"] = false;
    s["prompts"] = templates_.origin;
    s["candidates"] = Json::array();
    transcript_.append({{"kind", "header"}, {"schema_version", kTranscriptSchemaVersion}, {"model", options_.model},
                        {"endpoint", client_.endpoint()}, {"budget_tokens", options_.budget_tokens},
                        {"max_tokens", options_.max_tokens}, {"temperature", options_.temperature},
                        {"candidates_per_round", options_.candidates}, {"repair_rounds", options_.repair_rounds},
                        {"prompts", templates_.origin}});
  }

  std::string name() const override { return "llm"; }

  std::vector<Candidate> propose(const ProposalRequest& request) override {
    std::vector<Candidate> out;
    int count = std::max(1, std::min(options_.candidates, request.max_candidates));
    for (int k = 1; k <= count; ++k) {
      std::string id = fmt::format("llm-r{}-c{}", request.round, k);
      std::vector<ChatMessage> messages = {{"system", system_prompt(request)},
                                           {"user", propose_prompt(request, k, count)}};
      try {
        if (auto c = ask(request, id, messages, "propose", Json{{"candidate_index", k}})) out.push_back(std::move(*c));
      } catch (const EndpointError& e) {
        transcript_.summary()["endpoint_error"] = e.what();
        if (out.empty()) throw;
        log::warn("{}; keeping the {} candidate(s) this round already has", e.what(), out.size());
        break;
      }
      if (budget_exhausted()) break;
    }
    return out;
  }

  std::optional<Candidate> repair(const ProposalRequest& request, const Candidate& failed,
                                  const std::string& compiler_messages) override {
    auto conv = conversations_.find(failed.id);
    if (conv == conversations_.end()) return std::nullopt;  // not one of ours
    std::string base = failed.details.value("repair_of", failed.id);
    int attempt = failed.details.value("repair_attempt", 0);
    std::vector<ChatMessage> messages = conv->second;
    std::string next_message = render_template(
        templates_.repair,
        {{"language", language(request)},
         {"kernel_name", request.kernel_name},
         {"compiler_messages", compiler_messages},
         {"candidate_source", failed.source_text},
         {"attempt", std::to_string(attempt + 1)},
         {"max_attempts", std::to_string(options_.repair_rounds)},
         {"constraints", render_constraints(request.constraints)}},
        templates_.origin.at("repair"));
    // A reply without usable code also uses up an attempt; the model is told why and asked again.
    while (++attempt <= options_.repair_rounds && !budget_exhausted()) {
      messages.push_back({"user", next_message});
      std::string id = fmt::format("{}-fix{}", base, attempt);
      Json extra = {{"repair_of", base}, {"repair_attempt", attempt}, {"candidate_index", failed.details.value("candidate_index", 0)}};
      if (auto c = ask(request, id, messages, "repair", extra)) return c;
      messages = conversations_.at(id);
      next_message = fmt::format("That reply had no usable code: {}. Return the corrected kernel `{}` in one fenced "
                                 "code block.", history_.back().failure, request.kernel_name);
    }
    return std::nullopt;
  }

  void observe(const GateVerdict& verdict) override {
    auto it = std::find_if(history_.begin(), history_.end(),
                           [&](const HistoryEntry& h) { return h.candidate_id == verdict.candidate_id; });
    if (it != history_.end()) it->verdicts.push_back(verdict);
    transcript_.append({{"kind", "verdict"}, {"candidate", verdict.candidate_id}, {"gate", verdict.gate},
                        {"passed", verdict.passed}, {"reason", verdict.reason}, {"evidence", verdict.evidence}});
  }

 private:
  static std::string language(const ProposalRequest& r) { return r.language.empty() ? "cuda" : r.language; }

  std::string system_prompt(const ProposalRequest& r) const {
    return render_template(templates_.system, {{"language", language(r)}, {"kernel_name", r.kernel_name}},
                           templates_.origin.at("system"));
  }

  std::string propose_prompt(const ProposalRequest& r, int k, int count) const {
    return render_template(
        templates_.propose,
        {{"language", language(r)},
         {"kernel_name", r.kernel_name},
         {"source_path", r.source_path},
         {"source", r.source_text},
         {"round", std::to_string(r.round + 1)},
         {"candidate_index", std::to_string(k)},
         {"candidate_count", std::to_string(count)},
         {"diversity_hint", k > 1 ? ", so take a different approach from the round's other candidates (another "
                                    "tiling, vector width, memory layout or loop structure)"
                                  : ""},
         {"measured_facts", render_measured_facts(r.analysis, r.kernel_name)},
         {"constraints", render_constraints(r.constraints)},
         {"history", render_history(history_)}},
        templates_.origin.at("propose"));
  }

  bool budget_exhausted() const { return transcript_.summary().value("budget_exhausted", false); }

  void add_usage(const TokenUsage& u) {
    Json& usage = transcript_.summary()["usage"];
    usage["prompt_tokens"] = usage.value("prompt_tokens", 0L) + u.prompt_tokens;
    usage["completion_tokens"] = usage.value("completion_tokens", 0L) + u.completion_tokens;
    usage["total_tokens"] = usage.value("total_tokens", 0L) + u.total_tokens;
    if (u.estimated) usage["estimated"] = true;
    if (usage.value("total_tokens", 0L) >= options_.budget_tokens) transcript_.summary()["budget_exhausted"] = true;
  }

  // One request/response exchange for candidate `id`; returns the candidate, or nothing when the reply had no
  // usable code (recorded) or the budget is spent. Throws EndpointError.
  std::optional<Candidate> ask(const ProposalRequest& request, const std::string& id, std::vector<ChatMessage> messages,
                               const std::string& purpose, const Json& extra) {
    Json& summary = transcript_.summary();
    size_t prompt_chars = 0;
    for (const auto& m : messages) prompt_chars += m.content.size();
    long used = summary["usage"].value("total_tokens", 0L);
    long room = options_.budget_tokens - used - estimate_tokens(prompt_chars);
    if (room < 64) {  // not even room for a short reply
      summary["budget_exhausted"] = true;
      log::warn("LLM token budget spent ({} of --llm-budget-tokens {}): no more requests", used, options_.budget_tokens);
      return std::nullopt;
    }
    ChatRequest chat{options_.model, messages, static_cast<int>(std::min<long>(options_.max_tokens, room)),
                     options_.temperature};
    long request_seq = transcript_.append({{"kind", "request"}, {"round", request.round}, {"purpose", purpose},
                                           {"candidate", id}, {"endpoint", client_.endpoint()},
                                           {"body", ChatClient::request_body(chat)}});
    summary["requests"] = summary.value("requests", 0) + 1;
    ChatResponse response;
    try {
      response = client_.complete(chat);
    } catch (const EndpointError& e) {
      transcript_.append({{"kind", "error"}, {"request_seq", request_seq}, {"candidate", id}, {"message", e.what()}});
      throw;
    }
    if (response.usage.total_tokens == 0) {  // the endpoint reported none: count characters / 4
      response.usage.prompt_tokens = estimate_tokens(prompt_chars);
      response.usage.completion_tokens =
          response.problem.empty() ? estimate_tokens(response.content.size()) : chat.max_tokens;
      response.usage.total_tokens = response.usage.prompt_tokens + response.usage.completion_tokens;
      response.usage.estimated = true;
    }
    add_usage(response.usage);

    Extraction ex;
    if (!response.problem.empty()) ex.reason = response.problem;
    else ex = extract_candidate(response.content, response.finish_reason, request.source_text, request.kernel_name);
    Json usage = {{"prompt_tokens", response.usage.prompt_tokens}, {"completion_tokens", response.usage.completion_tokens},
                  {"total_tokens", response.usage.total_tokens}, {"estimated", response.usage.estimated}};
    long response_seq = transcript_.append(
        {{"kind", "response"}, {"request_seq", request_seq}, {"candidate", id}, {"status", response.http_status},
         {"attempts", response.attempts}, {"bytes", response.body_bytes}, {"finish_reason", response.finish_reason},
         {"usage", usage}, {"content", response.content}, {"outcome", ex.ok ? "candidate" : "no_usable_code"},
         {"extraction", ex.to_json()}});

    messages.push_back({"assistant", response.content});
    conversations_[id] = messages;
    HistoryEntry entry{id, request.round, "", {}, ""};
    if (!ex.ok) {
      entry.failure = ex.reason;
      history_.push_back(entry);
      summary["failed_responses"].push_back(
          {{"candidate", id}, {"round", request.round}, {"request_seq", request_seq}, {"reason", ex.reason}});
      log::warn("LLM candidate {}: no usable code: {}", id, ex.reason);
      return std::nullopt;
    }
    Candidate c;
    c.id = id;
    c.proposer = "llm";
    c.description = describe(response.content, request.kernel_name);
    c.source_text = ex.source_text;
    c.round = request.round;
    c.details = {{"model", options_.model}, {"round", request.round}, {"purpose", purpose},
                 {"transcript", transcript_.path()}, {"request_seq", request_seq}, {"response_seq", response_seq},
                 {"finish_reason", response.finish_reason}, {"usage", usage}, {"extraction", ex.to_json()},
                 {"signature_changed", ex.signature_changed}};
    for (const auto& [k, v] : extra.items()) c.details[k] = v;
    entry.description = c.description;
    history_.push_back(entry);
    summary["candidates"].push_back({{"id", id}, {"round", request.round}, {"request_seq", request_seq},
                                     {"response_seq", response_seq}});
    return c;
  }

  LlmOptions options_;
  PromptTemplates templates_;
  ChatClient client_;
  TranscriptWriter& transcript_;
  std::vector<HistoryEntry> history_;
  std::map<std::string, std::vector<ChatMessage>> conversations_;
};

}  // namespace

std::unique_ptr<Proposer> make_llm_proposer(const LlmOptions& options, TranscriptWriter& transcript) {
  validate(options);
  return std::make_unique<LlmProposer>(options, transcript);
}

}  // namespace rpl::optimize::llm
