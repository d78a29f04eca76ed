#include "optimize/inline_asm.hpp"

#include "support/comments.hpp"

#include <fmt/core.h>

#include <cctype>
#include <regex>

namespace rpl::optimize {
namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Skips whitespace and comments from i; returns the new position.
std::size_t skip_space(const std::string& t, std::size_t i, std::size_t end) {
  while (i < end) {
    if (std::isspace(static_cast<unsigned char>(t[i]))) ++i;
    else if (t.compare(i, 2, "//") == 0) while (i < end && t[i] != '\n') ++i;
    else if (t.compare(i, 2, "/*") == 0) {
      std::size_t e = t.find("*/", i + 2);
      i = e == std::string::npos || e >= end ? end : e + 2;
    } else break;
  }
  return i;
}

// Past the string or character literal that starts at i (t[i] is its quote).
std::size_t skip_literal(const std::string& t, std::size_t i, std::size_t end) {
  const char quote = t[i++];
  while (i < end && t[i] != quote) i += t[i] == '\\' ? 2 : 1;
  return std::min(i + 1, end);
}

// Whether a raw string literal (`R"delim(...)delim"`) starts at i, and where its text and the whole literal end.
struct RawString {
  std::size_t text_begin = 0, text_end = 0, end = 0;
};
std::optional<RawString> raw_string_at(const std::string& t, std::size_t i, std::size_t end) {
  if (t.compare(i, 2, "R\"") != 0 || (i > 0 && identifier_char(t[i - 1]))) return std::nullopt;
  const std::size_t open = t.find('(', i + 2);
  if (open == std::string::npos || open >= end || open - (i + 2) > 16) return std::nullopt;
  const std::string close = ")" + t.substr(i + 2, open - (i + 2)) + "\"";
  const std::size_t at = t.find(close, open + 1);
  if (at == std::string::npos || at >= end) return std::nullopt;
  return RawString{open + 1, at, at + close.size()};
}

// The string literal at i (t[i] == '"', or a raw string literal's R) unescaped, and the position after it.
std::pair<std::string, std::size_t> read_literal(const std::string& t, std::size_t i, std::size_t end) {
  if (auto raw = raw_string_at(t, i, end)) return {t.substr(raw->text_begin, raw->text_end - raw->text_begin), raw->end};
  std::string out;
  for (++i; i < end && t[i] != '"'; ++i) {
    if (t[i] != '\\' || i + 1 >= end) {
      out += t[i];
      continue;
    }
    const char e = t[++i];
    out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
  }
  return {out, std::min(i + 1, end)};
}

std::vector<std::string> mnemonics(const std::string& commented) {
  static const std::regex label(R"(^[A-Za-z_$][\w$]*:\s*)"), predicate(R"(^@!?%?\w+\s*)");
  // the assembler's comments (`//`, `/* */`) are no instructions, and must not hide one (`/**/ exit;`)
  const std::string templ = blank_comments(commented);
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= templ.size()) {
    std::size_t stop = templ.find_first_of(";\n", start);
    if (stop == std::string::npos) stop = templ.size();
    std::string piece = templ.substr(start, stop - start);
    start = stop + 1;
    for (bool changed = true; changed;) {
      changed = false;
      std::size_t b = piece.find_first_not_of(" \t\r{}");
      piece = b == std::string::npos ? "" : piece.substr(b);
      std::smatch m;
      if (std::regex_search(piece, m, label) || std::regex_search(piece, m, predicate)) {
        piece = m.suffix();
        changed = true;
      }
    }
    if (piece.empty() || piece[0] == '.' || piece.compare(0, 2, "//") == 0) continue;  // directives (.reg), comments
    out.push_back(piece.substr(0, piece.find_first_of(" \t,")));
  }
  return out;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

std::vector<AsmStatement> asm_statements(const std::string& t, std::size_t begin, std::size_t end) {
  std::vector<AsmStatement> out;
  end = std::min(end, t.size());
  std::size_t i = begin;
  while (i < end) {
    const char c = t[i];
    if (c == '/' && (t.compare(i, 2, "//") == 0 || t.compare(i, 2, "/*") == 0)) {
      i = skip_space(t, i, end);
      continue;
    }
    if (auto raw = raw_string_at(t, i, end)) {
      i = raw->end;
      continue;
    }
    if (c == '"' || c == '\'') {
      i = skip_literal(t, i, end);
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_') {
      ++i;
      continue;
    }
    std::size_t s = i;
    while (i < end && identifier_char(t[i])) ++i;
    const std::string word = t.substr(s, i - s);
    if (word != "asm" && word != "__asm__" && word != "__asm") continue;
    // asm [volatile|__volatile__|inline|goto]... ( "template" "..." [: operands] )
    std::size_t j = skip_space(t, i, end);
    for (;;) {
      std::size_t k = j;
      while (k < end && identifier_char(t[k])) ++k;
      const std::string q = t.substr(j, k - j);
      if (q != "volatile" && q != "__volatile__" && q != "__volatile" && q != "inline" && q != "goto") break;
      j = skip_space(t, k, end);
    }
    if (j >= end || t[j] != '(') continue;  // not a statement (a name that merely is "asm")
    AsmStatement statement;
    j = skip_space(t, j + 1, end);
    bool any = false;
    while (j < end && (t[j] == '"' || raw_string_at(t, j, end))) {
      auto [text, next] = read_literal(t, j, end);
      statement.templ += text;
      any = true;
      j = skip_space(t, next, end);
    }
    statement.readable = any && j < end && (t[j] == ':' || t[j] == ')');
    if (statement.readable) statement.instructions = mnemonics(statement.templ);
    out.push_back(std::move(statement));
    // past the statement's closing parenthesis
    for (int depth = 1; j < end && depth > 0;) {
      if (t[j] == '"' || t[j] == '\'') {
        j = skip_literal(t, j, end);
        continue;
      }
      depth += t[j] == '(' ? 1 : t[j] == ')' ? -1 : 0;
      ++j;
    }
    i = j;
  }
  return out;
}

std::optional<std::string> inadmissible_asm(const AsmStatement& a) {
  if (!a.readable)
    return std::string("inline assembly whose template is not a string literal (the gate cannot read what it runs)");
  static const std::regex timer(R"(%(clock|globaltimer|pm\d))");
  std::smatch m;
  if (std::regex_search(a.templ, m, timer))
    return fmt::format("inline assembly that reads a timer or performance counter (%{})", m[1].str());
  for (const std::string& ins : a.instructions) {
    const std::string base = ins.substr(0, ins.find('.'));
    // `ret` in a kernel ends the thread as `exit` does
    if (base == "exit" || base == "ret" || base == "trap" || base == "brkpt" || base == "pmevent" || base == "call" ||
        base == "s_trap" || base == "s_sethalt" || base == "s_endpgm" || base == "s_setpc_b64")
      return fmt::format("inline assembly that stops, traps or calls out ({})", ins);
    if (starts_with(base, "s_memtime") || starts_with(base, "s_memrealtime") || starts_with(base, "s_getreg"))
      return fmt::format("inline assembly that reads a timer or hardware register ({})", ins);
    // a bulk reduction (cp.reduce.async.bulk) into global memory and a multimem reduction are atomics too
    const bool reduction = base == "atom" || base == "red" || starts_with(ins, "cp.reduce") ||
                           starts_with(ins, "multimem.red");
    const bool ptx_atomic = reduction && (ins.find(".shared") == std::string::npos || ins.find(".global") != std::string::npos);
    const bool amd_atomic = starts_with(base, "global_atomic") || starts_with(base, "flat_atomic") ||
                            starts_with(base, "buffer_atomic") || starts_with(base, "scratch_atomic");
    if (ptx_atomic || amd_atomic)
      return fmt::format("inline assembly with an atomic ({}) on memory other than shared memory, whose target the "
                         "parser cannot place", ins);
  }
  return std::nullopt;
}

}  // namespace rpl::optimize
