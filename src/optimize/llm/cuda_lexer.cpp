#include "optimize/llm/cuda_lexer.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace rpl::optimize::llm {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Skips a string or character literal starting at i (the quote); returns the index past it.
size_t skip_quoted(std::string_view t, size_t i) {
  char q = t[i++];
  while (i < t.size() && t[i] != q && t[i] != '\n') i += (t[i] == '\\') ? 2 : 1;
  return std::min(t.size(), i + 1);
}

// Index of the token matching the opener at `open` ('(' / '{' / '<'-free), or npos.
size_t match(const std::vector<Token>& toks, size_t open, char o, char c) {
  int depth = 0;
  for (size_t i = open; i < toks.size(); ++i) {
    if (toks[i].kind != Token::Kind::Punct) continue;
    if (toks[i].text[0] == o) ++depth;
    if (toks[i].text[0] == c && --depth == 0) return i;
  }
  return std::string::npos;
}

bool is_punct(const Token& t, char c) { return t.kind == Token::Kind::Punct && t.text[0] == c; }

// A definition: `name ( ... ) {` with the name not inside another function's body. Calls `f(x) {` cannot occur
// at namespace scope, and `if (f(x)) {` has ')' after the match, not '{'.
struct Definition {
  size_t name_tok, close_paren, open_brace, decl_begin_tok;
  bool global;
};

std::vector<Definition> definitions(const std::vector<Token>& toks) {
  std::vector<Definition> defs;
  for (size_t i = 0; i + 1 < toks.size(); ++i) {
    if (toks[i].kind != Token::Kind::Identifier || !is_punct(toks[i + 1], '(')) continue;
    size_t close = match(toks, i + 1, '(', ')');
    if (close == std::string::npos) continue;
    size_t brace = close + 1;
    while (brace < toks.size() && toks[brace].kind == Token::Kind::Identifier &&
           (toks[brace].text == "noexcept" || toks[brace].text == "const"))
      ++brace;
    if (brace >= toks.size() || !is_punct(toks[brace], '{')) continue;
    // The declaration begins after the previous ';', '{', '}' or directive (parentheses and angle brackets
    // in between are part of it: __launch_bounds__(256), template <int N>).
    size_t b = i;
    bool global = false;
    int paren = 0;
    while (b > 0) {
      const Token& p = toks[b - 1];
      if (p.kind == Token::Kind::Directive) break;
      if (is_punct(p, ')')) ++paren;
      if (is_punct(p, '(')) --paren;
      if (paren == 0 && (is_punct(p, ';') || is_punct(p, '{') || is_punct(p, '}'))) break;
      if (p.kind == Token::Kind::Identifier && (p.text == "__global__" || p.text == "global")) global = true;
      --b;
    }
    // A kernel's declaration starts at its first declaration keyword: prose before bare code in a reply
    // ("Replace the kernel with") is not part of it. `extern "C" {` blocks ended at their '{' above.
    if (global) {
      static const std::set<std::string_view> starters = {"template", "extern", "static", "inline", "__global__",
                                                           "__launch_bounds__", "__attribute__", "__host__",
                                                           "__device__", "__forceinline__", "__noinline__", "void"};
      while (b < i && !(toks[b].kind == Token::Kind::Identifier && starters.count(toks[b].text)) &&
             !(is_punct(toks[b], '[') && b + 1 < i && is_punct(toks[b + 1], '[')))
        ++b;
    }
    defs.push_back({i, close, brace, b, global});
    size_t end = match(toks, brace, '{', '}');
    if (end == std::string::npos) break;  // the rest is one unterminated body
    i = end;                               // never look for definitions inside a body
  }
  return defs;
}

std::string join_tokens(const std::vector<Token>& toks, size_t from, size_t to_inclusive) {
  std::string s;
  for (size_t k = from; k <= to_inclusive && k < toks.size(); ++k) {
    if (!s.empty()) s += ' ';
    s += toks[k].text;
  }
  return s;
}

}  // namespace

std::vector<Token> lex_cuda(std::string_view t) {
  std::vector<Token> out;
  size_t i = 0;
  bool line_start = true;
  while (i < t.size()) {
    char c = t[i];
    if (c == '\n') { line_start = true; ++i; continue; }
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
      while (i < t.size() && t[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
      size_t e = t.find("*/", i + 2);
      i = e == std::string_view::npos ? t.size() : e + 2;
      continue;
    }
    size_t b = i;
    if (c == '#' && line_start) {  // a directive runs to the end of its (continued) line
      while (i < t.size() && t[i] != '\n') i += (t[i] == '\\' && i + 1 < t.size()) ? 2 : 1;
      out.push_back({Token::Kind::Directive, t.substr(b, i - b), b, i});
      continue;
    }
    line_start = false;
    if (c == 'R' && i + 1 < t.size() && t[i + 1] == '"') {  // raw string R"delim( ... )delim"
      size_t paren = t.find('(', i + 2);
      if (paren != std::string_view::npos) {
        std::string close = ")" + std::string(t.substr(i + 2, paren - i - 2)) + "\"";
        size_t e = t.find(close, paren);
        i = e == std::string_view::npos ? t.size() : e + close.size();
        out.push_back({Token::Kind::Literal, t.substr(b, i - b), b, i});
        continue;
      }
    }
    if (ident_start(c)) {
      while (i < t.size() && ident_char(t[i])) ++i;
      out.push_back({Token::Kind::Identifier, t.substr(b, i - b), b, i});
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < t.size() && (ident_char(t[i]) || t[i] == '.' || t[i] == '\'')) ++i;
      out.push_back({Token::Kind::Number, t.substr(b, i - b), b, i});
    } else if (c == '"' || c == '\'') {
      i = skip_quoted(t, i);
      out.push_back({Token::Kind::Literal, t.substr(b, i - b), b, i});
    } else {
      ++i;
      out.push_back({Token::Kind::Punct, t.substr(b, 1), b, i});
    }
  }
  return out;
}

KernelSearch find_kernel(std::string_view text, const std::string& name, KernelExtent& out) {
  auto toks = lex_cuda(text);
  bool found = false;
  for (const auto& d : definitions(toks)) {
    if (!d.global || toks[d.name_tok].text != name) continue;
    size_t end = match(toks, d.open_brace, '{', '}');
    if (end == std::string::npos) return KernelSearch::Unbalanced;
    out.begin = toks[d.decl_begin_tok].begin;
    out.end = toks[end].end;
    out.body_begin = toks[d.open_brace].begin;
    out.signature = join_tokens(toks, d.decl_begin_tok, d.close_paren);
    found = true;
  }
  return found ? KernelSearch::Found : KernelSearch::NotFound;
}

std::vector<std::string> kernel_names(std::string_view text) {
  auto toks = lex_cuda(text);
  std::vector<std::string> names;
  for (const auto& d : definitions(toks))
    if (d.global) names.emplace_back(toks[d.name_tok].text);
  return names;
}

std::vector<std::string> defined_functions(std::string_view text) {
  auto toks = lex_cuda(text);
  std::vector<std::string> names;
  for (const auto& d : definitions(toks)) names.emplace_back(toks[d.name_tok].text);
  return names;
}

}  // namespace rpl::optimize::llm
