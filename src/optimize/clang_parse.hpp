#pragma once
// Internal to src/optimize: one libclang translation unit of a kernel source, parsed the way the source model
// does it (the CUDA toolkit's or ROCm's headers when installed, else our stub GPU headers with the launch syntax blanked), released when it goes out of scope.
#include <clang-c/Index.h>

#include <string>
#include <utility>
#include <vector>

namespace rpl::optimize {

class ParsedUnit {
 public:
  // user_flags: the application's own header search paths and macros (parser_flags_from_compile_flags)
  ParsedUnit(const std::string& path, const std::string& text, const std::vector<std::string>& user_flags = {});  // throws rpl::Error(InputInvalid)
  ~ParsedUnit();
  ParsedUnit(const ParsedUnit&) = delete;
  ParsedUnit& operator=(const ParsedUnit&) = delete;
  CXTranslationUnit unit() const { return unit_; }
  // "toolkit" (the installed CUDA's or ROCm's headers, clang's CUDA or HIP mode) or "stubs" (our stub headers)
  const std::string& headers() const { return headers_; }
  const std::string& toolkit() const { return toolkit_; }  // the CUDA toolkit's or ROCm's folder in toolkit mode

 private:
  std::string blanked_;
  std::string headers_;
  std::string toolkit_;
  CXIndex index_ = nullptr;
  CXTranslationUnit unit_ = nullptr;
};

std::string cursor_spelling(CXCursor c);
// The cursor's direct children, in source order.
std::vector<CXCursor> cursor_children(CXCursor c);
// Skips implicit wrappers (casts, parentheses the AST exposes as UnexposedExpr).
CXCursor strip_implicit(CXCursor c);
// Byte offsets [begin, end) of a cursor in the main file (expansion locations).
std::pair<std::size_t, std::size_t> cursor_offsets(CXCursor c);

}  // namespace rpl::optimize
