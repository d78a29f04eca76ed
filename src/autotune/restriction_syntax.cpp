#include "autotune/restriction_syntax.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "support/errors.hpp"

namespace rpl::autotune {
namespace {

struct Token {
  enum Kind { Word, Number, String, Op, Open, Close, Comma } kind;
  std::string text;
};

[[noreturn]] void refuse(const std::string& expression, const std::string& why) {
  throw Error(ExitCode::Usage, fmt::format("restriction \"{}\": {}", expression, why));
}

std::vector<Token> tokenize(const std::string& e) {
  static const char* const kTwoChar[] = {"**", "//", "<=", ">=", "==", "!=", "&&", "||"};
  std::vector<Token> out;
  std::size_t i = 0;
  const auto digit = [&](std::size_t k) { return k < e.size() && std::isdigit(static_cast<unsigned char>(e[k])); };
  while (i < e.size()) {
    const unsigned char c = static_cast<unsigned char>(e[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (std::isalpha(c) || c == '_') {
      std::size_t j = i;
      while (j < e.size() && (std::isalnum(static_cast<unsigned char>(e[j])) || e[j] == '_')) ++j;
      out.push_back({Token::Word, e.substr(i, j - i)});
      i = j;
    } else if (digit(i) || (c == '.' && digit(i + 1))) {
      std::size_t j = i;
      while (digit(j) || (j < e.size() && e[j] == '.')) ++j;
      if (j < e.size() && (e[j] == 'e' || e[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < e.size() && (e[k] == '+' || e[k] == '-')) ++k;
        if (digit(k)) {
          while (digit(k)) ++k;
          j = k;
        }
      }
      out.push_back({Token::Number, e.substr(i, j - i)});
      i = j;
    } else if (c == '"' || c == '\'') {
      const std::size_t close = e.find(e[i], i + 1);
      if (close == std::string::npos) refuse(e, "a quoted value is not closed");
      out.push_back({Token::String, e.substr(i + 1, close - i - 1)});
      i = close + 1;
    } else if (c == '(' || c == ')' || c == ',') {
      out.push_back({c == '(' ? Token::Open : c == ')' ? Token::Close : Token::Comma, std::string(1, e[i])});
      ++i;
    } else if (c == '[' || c == ']' || c == '{' || c == '}') {
      refuse(e, "a list or set (\"" + std::string(1, e[i]) + "\") has no equivalent here: compare the parameter with "
                "each value instead (X == 1 || X == 2)");
    } else {
      std::string op(1, e[i]);
      for (const char* two : kTwoChar)
        if (e.compare(i, 2, two) == 0) op = two;
      out.push_back({Token::Op, op});
      i += op.size();
    }
  }
  return out;
}

bool is_comparison(const Token& t) {
  return t.kind == Token::Op && (t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">=" ||
                                 t.text == "==" || t.text == "!=");
}
bool is_not(const Token& t) { return t.kind == Token::Word && t.text == "not"; }
// Where a segment of one nesting level ends: Python's and/or (already rewritten), C's, a function's comma.
bool separates(const Token& t) {
  return t.kind == Token::Comma || (t.kind == Token::Op && (t.text == "&&" || t.text == "||"));
}

class Rewriter {
 public:
  Rewriter(const std::string& expression, std::vector<Token> tokens, const std::vector<Parameter>& parameters)
      : expression_(expression), t_(std::move(tokens)), parameters_(parameters) {}
  std::string run() { return level(0, t_.size()); }

 private:
  // The matching ')' of the '(' at `open`, or `end` when there is none (muparser then reports it).
  std::size_t close_of(std::size_t open, std::size_t end) const {
    int depth = 0;
    for (std::size_t k = open; k < end; ++k) {
      if (t_[k].kind == Token::Open) ++depth;
      if (t_[k].kind == Token::Close && --depth == 0) return k;
    }
    return end;
  }

  // One nesting level: segments between and/or/commas, each rewritten on its own.
  std::string level(std::size_t b, std::size_t e) {
    std::string out;
    std::size_t start = b;
    for (std::size_t k = b; k <= e; ++k) {
      if (k < e && t_[k].kind == Token::Open) {
        k = close_of(k, e);
        if (k == e) --k;  // unbalanced: the rest is one segment
        continue;
      }
      if (k == e || separates(t_[k])) {
        out += segment(start, k);
        if (k < e) out += " " + t_[k].text + " ";
        start = k + 1;
      }
    }
    return out;
  }

  // A segment: Python's `not` (below comparisons: `not A == 1` is `!(A == 1)`), then a comparison or a chain of
  // them (`a < b <= c` is `(a < b) && (b <= c)`), then the operands.
  std::string segment(std::size_t b, std::size_t e) {
    std::size_t nots = 0;
    while (b < e && is_not(t_[b])) ++b, ++nots;
    std::vector<std::size_t> comparisons;
    for (std::size_t k = b; k < e; ++k) {
      if (t_[k].kind == Token::Open) {
        k = close_of(k, e);
        continue;
      }
      if (is_comparison(t_[k])) comparisons.push_back(k);
    }
    for (std::size_t c : comparisons) resolve_quoted(c, b, e);
    std::string body;
    if (comparisons.size() < 2) {
      body = span(b, e);
    } else {
      body = "(";
      for (std::size_t i = 0; i < comparisons.size(); ++i) {
        const std::size_t left = i == 0 ? b : comparisons[i - 1] + 1, right_end = i + 1 < comparisons.size() ? comparisons[i + 1] : e;
        body += (i ? " && (" : "(") + span(left, comparisons[i]) + " " + t_[comparisons[i]].text + " " +
                span(comparisons[i] + 1, right_end) + ")";
      }
      body += ")";
    }
    if (nots == 0) return body;
    std::string out;
    for (std::size_t i = 0; i < nots; ++i) out += "!(";
    return out + body + std::string(nots, ')');
  }

  // A comparison between a parameter of strings and a quoted value, each alone on its side: the value becomes
  // its position among the parameter's labels (what the restriction sees of the parameter).
  void resolve_quoted(std::size_t op, std::size_t b, std::size_t e) {
    const auto alone = [&](std::size_t k) {
      const bool left_edge = k == b || is_comparison(t_[k - 1]), right_edge = k + 1 == e || is_comparison(t_[k + 1]);
      return left_edge && right_edge;
    };
    if (op == b || op + 1 >= e || !alone(op - 1) || !alone(op + 1)) return;
    Token& left = t_[op - 1];
    Token& right = t_[op + 1];
    Token* quoted = left.kind == Token::String ? &left : right.kind == Token::String ? &right : nullptr;
    const Token& other = quoted == &left ? right : left;
    if (!quoted || other.kind != Token::Word) return;
    const auto it = std::find_if(parameters_.begin(), parameters_.end(), [&](const Parameter& q) { return q.name == other.text; });
    if (it == parameters_.end() || it->labels.empty()) return;  // refused in span()
    if (t_[op].text != "==" && t_[op].text != "!=")
      refuse(expression_, "\"" + quoted->text + "\" can only be compared with == or != (" + other.text +
                              " lists strings; it sees their positions)");
    if (const std::optional<double> v = it->value_of(nlohmann::json(quoted->text))) {
      *quoted = {Token::Number, fmt::format("{}", *v)};
      return;
    }
    std::string listed;
    for (const auto& l : it->labels) listed += (listed.empty() ? "" : ", ") + l.dump();
    refuse(expression_, "\"" + quoted->text + "\" is not one of " + other.text + "'s values (" + listed + ")");
  }

  // Operands: tokens as they are, the Python words and operators in ours, parentheses rewritten inside.
  std::string span(std::size_t b, std::size_t e) {
    std::string out;
    for (std::size_t k = b; k < e; ++k) {
      const Token& t = t_[k];
      std::string text = t.text;
      if (t.kind == Token::Open) {
        const std::size_t close = close_of(k, e);
        text = "(" + level(k + 1, close) + (close < e ? ")" : "");
        k = close;
      } else if (t.kind == Token::Op && t.text == "**") {
        text = "^";
      } else if (t.kind == Token::String) {
        refuse(expression_, "a quoted value (\"" + t.text + "\") can only be compared with == or != to a parameter "
                            "that lists strings (layout == \"NHWC\")");
      } else if (is_not(t)) {
        text = "!";  // mid-operand, where Python would not take it: C's meaning, and muparser judges the rest
      }
      // No space between a function's name and its "(": muparser takes "min(" but not "min (".
      out += (out.empty() || t.kind == Token::Open ? "" : " ") + text;
    }
    return out;
  }

  const std::string& expression_;
  std::vector<Token> t_;  // resolve_quoted puts positions in place of quoted values
  const std::vector<Parameter>& parameters_;
};

}  // namespace

std::string muparser_syntax(const std::string& expression, const std::vector<Parameter>& parameters) {
  std::vector<Token> tokens = tokenize(expression);
  const auto parameter = [&](const std::string& w) {
    return std::any_of(parameters.begin(), parameters.end(), [&](const Parameter& q) { return q.name == w; });
  };
  for (Token& t : tokens) {
    if (t.kind != Token::Word || parameter(t.text)) continue;
    if (t.text == "and") t = {Token::Op, "&&"};
    else if (t.text == "or") t = {Token::Op, "||"};
    else if (t.text == "True") t = {Token::Number, "1"};
    else if (t.text == "False") t = {Token::Number, "0"};
    else if (t.text == "in")
      refuse(expression, "Python's \"in\" has no equivalent here: compare the parameter with each value instead "
                         "(X == 1 || X == 2)");
    else if (t.text == "is" || t.text == "lambda" || t.text == "if" || t.text == "else" || t.text == "for")
      refuse(expression, "Python's \"" + t.text + "\" has no equivalent here (a restriction is one expression of "
                         "the parameters: arithmetic, comparisons, and/or/not, min/max)");
  }
  return Rewriter(expression, std::move(tokens), parameters).run();
}

}  // namespace rpl::autotune
