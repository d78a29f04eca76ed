#pragma once
// The LLM proposer of `rocm-perf optimize --proposer llm`: asks an OpenAI-compatible model for whole
// candidate kernels built from what our analysis measured, sends compiler errors back for repair, and tells the
// model every earlier verdict of the guard. It proposes only: compiling, checking, timing and writing the
// user's file are the guard's. Wiring in the optimize command:
//
//   rpl::optimize::llm::LlmOptions llm_options;            // before parsing
//   rpl::optimize::llm::add_llm_options(*cmd, llm_options);
//   ...
//   rpl::optimize::llm::TranscriptWriter transcript(out_dir + "/llm-transcript.jsonl");
//   auto proposer = rpl::optimize::llm::make_llm_proposer(llm_options, transcript);  // only for --proposer llm
//   ...                                                     // the loop: propose / repair / observe
//   report["llm"] = transcript.summary();                   // usage, failed replies, transcript path
#include <memory>

#include "optimize/llm/llm_options.hpp"
#include "optimize/llm/transcript.hpp"
#include "optimize/proposer.hpp"

namespace rpl::optimize::llm {

// Validates the options (rpl::Error(Usage)), loads the prompt templates, reads the key from
// ROCM_PERF_LLM_API_KEY. Sends nothing until propose() is called. `transcript` must outlive the proposer.
// propose() and repair() throw EndpointError (exit code 15) when the endpoint cannot be used at all (401/403/404,
// unreachable, retries exhausted) and nothing was obtained in that call; a reply without usable code is not
// an error but a failed candidate, recorded with its reason in the transcript and in transcript.summary().
std::unique_ptr<Proposer> make_llm_proposer(const LlmOptions& options, TranscriptWriter& transcript);

}  // namespace rpl::optimize::llm
