#pragma once
// Takes a candidate kernel source out of a model's reply: fenced code blocks (```cuda, ```cpp, ```, ~~~),
// several blocks, prose around them, a whole file or only the kernel (then spliced into the original source
// in place of the original kernel's definition). A reply without usable code is a failure with its reason.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpl::optimize::llm {

struct CodeBlock {
  std::string language;  // the fence's info string, lower case ("" when none)
  std::string code;
  bool terminated = true;  // false when the reply ended inside the block
};

std::vector<CodeBlock> fenced_blocks(const std::string& reply);

struct Extraction {
  bool ok = false;
  std::string reason;       // why not, when !ok
  std::string source_text;  // the whole candidate source, when ok
  std::string mode;         // "whole_file" or "kernel_spliced"
  int block_index = -1;     // which fenced block (-1: the unfenced reply)
  bool signature_changed = false;
  std::string original_signature;
  std::string candidate_signature;
  nlohmann::json to_json() const;
};

// `finish_reason` is the endpoint's ("length" means the reply was cut off by the token limit).
Extraction extract_candidate(const std::string& reply, const std::string& finish_reason,
                             const std::string& original_source, const std::string& kernel_name);

}  // namespace rpl::optimize::llm
