#pragma once
// A small lexer for CUDA/HIP C++ text that is good enough to find a kernel's extent in code that may not
// compile (a model's fragment, a source whose headers are absent): it skips comments, string and character
// literals and preprocessor directives, so braces and names inside them never count.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::optimize::llm {

struct Token {
  enum class Kind { Identifier, Number, Punct, Literal, Directive } kind;
  std::string_view text;
  size_t begin = 0;  // byte offsets into the lexed text
  size_t end = 0;
};

std::vector<Token> lex_cuda(std::string_view text);

// Where a kernel's definition lies in a text: [begin, end) runs from its first declaration token (`template`,
// `__global__`, `extern`, `__launch_bounds__`, ...) to its closing brace.
struct KernelExtent {
  size_t begin = 0;
  size_t end = 0;
  size_t body_begin = 0;       // the opening brace
  std::string signature;       // declaration tokens up to the closing parenthesis, single-spaced
};

enum class KernelSearch { Found, NotFound, Unbalanced };

// Finds the definition of the `__global__` function `name` (the last one when several). `Unbalanced` when its
// body never closes (a truncated text).
KernelSearch find_kernel(std::string_view text, const std::string& name, KernelExtent& out);

// Names of the `__global__` functions defined in a text.
std::vector<std::string> kernel_names(std::string_view text);

// Names of every function defined at namespace scope (not inside another body), kernels included.
std::vector<std::string> defined_functions(std::string_view text);

}  // namespace rpl::optimize::llm
