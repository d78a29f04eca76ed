#include "optimize/llm/code_extraction.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "optimize/llm/cuda_lexer.hpp"

namespace rpl::optimize::llm {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Blocks that cannot be the kernel: shell commands, diffs, logs, data.
bool code_language(const std::string& lang) {
  static const std::set<std::string> not_code = {"bash", "sh", "shell", "console", "text", "txt", "diff",
                                                  "patch", "json", "python", "py", "yaml", "log", "output"};
  return not_code.count(lang) == 0;
}

std::vector<std::string> include_lines(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& t : lex_cuda(text)) {
    if (t.kind != Token::Kind::Directive) continue;
    std::string d(t.text);
    d.erase(std::remove_if(d.begin(), d.end(), [](unsigned char c) { return std::isspace(c); }), d.end());
    if (d.rfind("#include", 0) == 0) out.push_back(d);
  }
  return out;
}

// A block is the whole file when it defines every other function the original defines (a model may drop or
// reorder an #include; that is the candidate's to answer for at compile time), or, for an original that is
// only includes and the kernel, when it keeps every #include. Otherwise it is the kernel (perhaps with new
// helpers) and replaces only the original kernel's definition.
bool is_whole_file(const std::string& block, const std::string& original, const std::string& kernel) {
  auto block_functions = defined_functions(block);
  bool has_others = false;
  for (const auto& f : defined_functions(original)) {
    if (f == kernel) continue;
    has_others = true;
    if (std::find(block_functions.begin(), block_functions.end(), f) == block_functions.end()) return false;
  }
  if (has_others) return true;
  auto original_includes = include_lines(original);
  if (original_includes.empty()) return false;  // the original is the kernel alone: splicing keeps its comments
  auto block_includes = include_lines(block);
  for (const auto& inc : original_includes)
    if (std::find(block_includes.begin(), block_includes.end(), inc) == block_includes.end()) return false;
  return true;
}

// The block's own copies of the original's #include lines go: the original keeps its own above the kernel.
std::string drop_known_includes(const std::string& block, const std::string& original) {
  auto known = include_lines(original);
  std::string out;
  std::istringstream in(block);
  for (std::string line; std::getline(in, line);) {
    std::string d = line;
    d.erase(std::remove_if(d.begin(), d.end(), [](unsigned char c) { return std::isspace(c); }), d.end());
    if (d.rfind("#include", 0) == 0 && std::find(known.begin(), known.end(), d) != known.end()) continue;
    out += line + "\n";
  }
  return trim(out);
}

Extraction fail(std::string reason) {
  Extraction e;
  e.reason = std::move(reason);
  return e;
}

}  // namespace

nlohmann::json Extraction::to_json() const {
  nlohmann::json j = {{"ok", ok}, {"mode", mode}, {"block_index", block_index}};
  if (!ok) j["reason"] = reason;
  if (ok) j["signature"] = {{"changed", signature_changed}, {"original", original_signature}, {"candidate", candidate_signature}};
  return j;
}

std::vector<CodeBlock> fenced_blocks(const std::string& reply) {
  std::vector<CodeBlock> blocks;
  std::istringstream in(reply);
  CodeBlock* open = nullptr;
  std::string fence;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t indent = line.find_first_not_of(' ');
    std::string body = indent == std::string::npos || indent > 3 ? std::string() : line.substr(indent);
    bool is_fence = body.rfind("```", 0) == 0 || body.rfind("~~~", 0) == 0;
    if (!open) {
      if (!is_fence) continue;
      size_t n = body.find_first_not_of(body[0]);
      fence = body.substr(0, n == std::string::npos ? body.size() : n);
      blocks.push_back({lower(trim(n == std::string::npos ? "" : body.substr(n))), "", false});
      // "```cuda title=kernel.cu": the language is the first word.
      auto& lang = blocks.back().language;
      lang = lang.substr(0, lang.find_first_of(" \t{"));
      open = &blocks.back();
      continue;
    }
    if (is_fence && body[0] == fence[0]) {  // a closing fence: at least as long, nothing after it
      size_t n = body.find_first_not_of(body[0]);
      size_t run = n == std::string::npos ? body.size() : n;
      if (run >= fence.size() && trim(body.substr(run)).empty()) {
        open->terminated = true;
        open = nullptr;
        continue;
      }
    }
    open->code += line + "\n";
  }
  return blocks;
}

Extraction extract_candidate(const std::string& reply, const std::string& finish_reason,
                             const std::string& original, const std::string& kernel) {
  if (trim(reply).empty()) return fail("the reply is empty");
  KernelExtent original_extent;
  if (find_kernel(original, kernel, original_extent) != KernelSearch::Found)
    return fail(fmt::format("the original source has no definition of __global__ {} to replace", kernel));

  auto blocks = fenced_blocks(reply);
  std::vector<CodeBlock> candidates;
  std::vector<int> indices;
  for (size_t i = 0; i < blocks.size(); ++i)
    if (code_language(blocks[i].language)) {
      candidates.push_back(blocks[i]);
      indices.push_back(static_cast<int>(i));
    }
  if (blocks.empty()) {  // no fences: the reply may be bare code, perhaps with prose; only its kernel is used
    candidates.push_back({"", reply, true});
    indices.push_back(-1);
  }

  // The last block that defines the kernel wins (models show the original first, then the new version).
  int chosen = -1;
  KernelExtent extent;
  bool truncated = false;
  std::vector<std::string> other_kernels;
  for (size_t i = 0; i < candidates.size(); ++i) {
    KernelExtent e;
    auto found = find_kernel(candidates[i].code, kernel, e);
    if (found == KernelSearch::Found && candidates[i].terminated) {
      chosen = static_cast<int>(i);
      extent = e;
    } else if (found == KernelSearch::Unbalanced || (found == KernelSearch::Found && !candidates[i].terminated)) {
      truncated = true;
      if (found == KernelSearch::Found) chosen = -2;  // complete kernel in an unterminated block: still cut off
    } else {
      for (auto& n : kernel_names(candidates[i].code)) other_kernels.push_back(n);
    }
  }
  if (chosen < 0) {
    bool unterminated = std::any_of(blocks.begin(), blocks.end(), [](const CodeBlock& b) { return !b.terminated; });
    if (truncated || unterminated || finish_reason == "length")
      return fail(fmt::format("the reply was cut off mid-code (finish_reason '{}'{})", finish_reason,
                              unterminated ? ", unterminated code block" : ""));
    if (!other_kernels.empty())
      return fail(fmt::format("the reply's code defines __global__ {} but not the kernel to optimize, {}",
                              other_kernels.front(), kernel));
    if (blocks.empty()) return fail(fmt::format("the reply has no code block and no definition of __global__ {}", kernel));
    return fail(fmt::format("none of the reply's {} code block(s) defines __global__ {}", blocks.size(), kernel));
  }

  const CodeBlock& block = candidates[chosen];
  Extraction out;
  out.block_index = indices[chosen];
  out.original_signature = original_extent.signature;
  out.candidate_signature = extent.signature;
  out.signature_changed = extent.signature != original_extent.signature;
  if (indices[chosen] >= 0 && is_whole_file(block.code, original, kernel)) {
    out.mode = "whole_file";
    out.source_text = block.code;
  } else {
    // Kernel only (bare code with prose keeps only the kernel's own extent).
    std::string replacement = indices[chosen] < 0 ? block.code.substr(extent.begin, extent.end - extent.begin)
                                                  : drop_known_includes(block.code, original);
    out.mode = "kernel_spliced";
    out.source_text = original.substr(0, original_extent.begin) + replacement + original.substr(original_extent.end);
  }
  if (trim(out.source_text) == trim(original)) return fail("the reply repeats the original source unchanged");
  out.ok = true;
  return out;
}

}  // namespace rpl::optimize::llm
