#pragma once
// Comments of C-like text (C++ and CUDA sources, inline assembly templates, PTX) blanked in place: the optimizer's
// source comparisons and the PTX readers share it, so a comment can hide nothing from any of them.
#include <string>

namespace rpl {

// `text` with its comments (`//` to the end of the line, `/* */`) replaced by spaces, newlines kept, so byte offsets
// and lines hold; string and character literals are kept whole (a digit separator, `1'000`, opens none).
std::string blank_comments(const std::string& text);

}  // namespace rpl
