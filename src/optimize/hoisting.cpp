#include "optimize/hoisting.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "optimize/clang_parse.hpp"

namespace rpl::optimize {
namespace {

using Range = std::pair<std::size_t, std::size_t>;

std::string trimmed(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Identifiers the kernel assigns, increments or takes the address of (token scan: conservative).
std::set<std::string> assigned_names(const std::string& t) {
  std::set<std::string> out;
  for (std::size_t i = 0; i < t.size();) {
    if (!(std::isalpha(static_cast<unsigned char>(t[i])) || t[i] == '_')) { ++i; continue; }
    std::size_t s = i;
    while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
    std::string id = t.substr(s, i - s);
    std::size_t j = i;
    while (j < t.size() && t[j] == ' ') ++j;
    std::string after = t.substr(j, 3);
    std::size_t k = s;
    while (k > 0 && t[k - 1] == ' ') --k;
    std::string before = k >= 2 ? t.substr(k - 2, 2) : "";
    bool assign = (after[0] == '=' && (after.size() < 2 || after[1] != '=')) || after.rfind("++", 0) == 0 ||
                  after.rfind("--", 0) == 0 || (after.size() >= 2 && std::string("+-*/%&|^").find(after[0]) != std::string::npos &&
                                               after[1] == '=') || after.rfind("<<=", 0) == 0 || after.rfind(">>=", 0) == 0;
    bool pre = before == "++" || before == "--" || (k >= 1 && t[k - 1] == '&' && (k < 2 || t[k - 2] != '&'));
    if (assign || pre) out.insert(id);
  }
  return out;
}

struct Context {
  const std::string* text;
  Range loop;
  std::set<std::string> restrict_params;
  std::set<std::string> assigned_in_loop;
};

bool invariant_index(CXCursor c, const Context& ctx) {
  c = strip_implicit(c);
  switch (clang_getCursorKind(c)) {
    case CXCursor_IntegerLiteral: return true;
    case CXCursor_DeclRefExpr: {
      std::string name = cursor_spelling(c);
      CXCursor decl = clang_getCursorReferenced(c);
      if (clang_Cursor_isNull(decl)) return false;
      auto [b, e] = cursor_offsets(decl);
      bool outside = !clang_Location_isFromMainFile(clang_getCursorLocation(decl)) || b < ctx.loop.first || b >= ctx.loop.second;
      return outside && !ctx.assigned_in_loop.count(name);
    }
    case CXCursor_MemberRefExpr: {  // threadIdx.x and friends
      auto ch = cursor_children(c);
      if (ch.size() != 1) return false;
      CXCursor base = strip_implicit(ch[0]);
      std::string b = cursor_spelling(base);
      return clang_getCursorKind(base) == CXCursor_DeclRefExpr &&
             (b == "threadIdx" || b == "blockIdx" || b == "blockDim" || b == "gridDim");
    }
    case CXCursor_BinaryOperator:
    case CXCursor_UnaryOperator:
    case CXCursor_CStyleCastExpr: {
      auto [b, e] = cursor_offsets(c);
      std::string t = ctx.text->substr(b, e - b);
      if (t.find("++") != std::string::npos || t.find("--") != std::string::npos) return false;
      for (CXCursor ch : cursor_children(c))
        if (clang_getCursorKind(ch) != CXCursor_TypeRef && !invariant_index(ch, ctx)) return false;
      return true;
    }
    default: return false;
  }
}

// A subscript that runs on every iteration: no conditional construct between it and the loop body.
bool unconditional(const std::vector<CXCursor>& ancestors, const std::string& text) {
  for (std::size_t i = 0; i < ancestors.size(); ++i) {
    CXCursorKind k = clang_getCursorKind(ancestors[i]);
    if (k == CXCursor_IfStmt || k == CXCursor_ConditionalOperator || k == CXCursor_SwitchStmt || k == CXCursor_ForStmt ||
        k == CXCursor_WhileStmt || k == CXCursor_DoStmt || k == CXCursor_LambdaExpr)
      return false;
    if (k == CXCursor_BinaryOperator) {
      auto ch = cursor_children(ancestors[i]);
      if (ch.size() == 2) {
        std::string op = trimmed(text.substr(cursor_offsets(ch[0]).second, cursor_offsets(ch[1]).first - cursor_offsets(ch[0]).second));
        if (op == "&&" || op == "||" || op == ",") return false;
      }
    }
  }
  return true;
}

// `for (int k = A; k < B; ++k)` (or <=, +=, k++) with constant A < B (A <= B for <=).
bool runs_at_least_once(CXCursor loop, const std::string& text) {
  auto ch = cursor_children(loop);
  if (ch.size() != 4 || clang_getCursorKind(ch[0]) != CXCursor_DeclStmt) return false;
  auto decls = cursor_children(ch[0]);
  if (decls.size() != 1) return false;
  auto init = cursor_children(decls[0]);
  if (init.empty()) return false;
  CXEvalResult a = clang_Cursor_Evaluate(init.back());
  auto cond = cursor_children(ch[1]);
  if (!a || cond.size() != 2) { if (a) clang_EvalResult_dispose(a); return false; }
  CXEvalResult b = clang_Cursor_Evaluate(cond[1]);
  bool ok = false;
  if (b && clang_EvalResult_getKind(a) == CXEval_Int && clang_EvalResult_getKind(b) == CXEval_Int &&
      clang_getCursorKind(strip_implicit(cond[0])) == CXCursor_DeclRefExpr && cursor_spelling(strip_implicit(cond[0])) == cursor_spelling(decls[0])) {
    long long lo = clang_EvalResult_getAsLongLong(a), hi = clang_EvalResult_getAsLongLong(b);
    std::string op = trimmed(text.substr(cursor_offsets(cond[0]).second, cursor_offsets(cond[1]).first - cursor_offsets(cond[0]).second));
    auto [ib, ie] = cursor_offsets(ch[2]);
    std::string inc = text.substr(ib, ie - ib);
    bool up = inc.find("++") != std::string::npos || inc.find("+=") != std::string::npos;
    ok = up && ((op == "<" && lo < hi) || (op == "<=" && lo <= hi));
  }
  clang_EvalResult_dispose(a);
  if (b) clang_EvalResult_dispose(b);
  return ok;
}

struct Finder {
  Context* ctx;
  std::vector<CXCursor> stack;
  std::vector<Range> loads;  // hoistable subscripts
};

void find_loads(CXCursor c, Finder& f) {
  for (CXCursor ch : cursor_children(c)) {
    if (clang_getCursorKind(ch) == CXCursor_ArraySubscriptExpr) {
      auto parts = cursor_children(ch);
      if (parts.size() == 2) {
        CXCursor base = strip_implicit(parts[0]);
        if (clang_getCursorKind(base) == CXCursor_DeclRefExpr && f.ctx->restrict_params.count(cursor_spelling(base)) &&
            invariant_index(parts[1], *f.ctx) && unconditional(f.stack, *f.ctx->text))
          f.loads.push_back(cursor_offsets(ch));
      }
    }
    f.stack.push_back(ch);
    find_loads(ch, f);
    f.stack.pop_back();
  }
}

}  // namespace

std::vector<Candidate> hoist_candidates(const std::string& path, const std::string& text, const std::string& kernel,
                                        const std::vector<std::string>& parser_flags) {
  ParsedUnit parsed(path, text, parser_flags);
  struct Search { std::string name; CXCursor found = clang_getNullCursor(); } search{kernel};
  std::function<void(CXCursor)> visit = [&](CXCursor c) {
    for (CXCursor ch : cursor_children(c)) {
      CXCursorKind k = clang_getCursorKind(ch);
      if ((k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate) && cursor_spelling(ch) == kernel &&
          clang_isCursorDefinition(ch) && clang_Location_isFromMainFile(clang_getCursorLocation(ch)))
        search.found = ch;
      else if (k == CXCursor_Namespace || k == CXCursor_UnexposedDecl || k == CXCursor_LinkageSpec)
        visit(ch);
    }
  };
  visit(clang_getTranslationUnitCursor(parsed.unit()));
  if (clang_Cursor_isNull(search.found)) return {};
  auto [kb, ke] = cursor_offsets(search.found);
  std::string kernel_text = text.substr(kb, ke - kb);
  std::set<std::string> assigned_in_kernel = assigned_names(kernel_text);
  Context ctx{&text, {}, {}, {}};
  CXCursor body = clang_getNullCursor();
  for (CXCursor ch : cursor_children(search.found)) {
    if (clang_getCursorKind(ch) == CXCursor_ParmDecl) {
      CXString ts = clang_getTypeSpelling(clang_getCursorType(ch));
      std::string type = clang_getCString(ts);
      clang_disposeString(ts);
      if (type.rfind("const ", 0) == 0 && type.find("*__restrict") != std::string::npos &&
          type.find('*') == type.rfind('*') && !assigned_in_kernel.count(cursor_spelling(ch)))
        ctx.restrict_params.insert(cursor_spelling(ch));
    }
    if (clang_getCursorKind(ch) == CXCursor_CompoundStmt) body = ch;
  }
  if (ctx.restrict_params.empty() || clang_Cursor_isNull(body)) return {};
  std::vector<CXCursor> loops;
  std::function<void(CXCursor)> collect = [&](CXCursor c) {
    for (CXCursor ch : cursor_children(c)) {
      if (clang_getCursorKind(ch) == CXCursor_ForStmt) loops.push_back(ch);
      collect(ch);
    }
  };
  collect(body);
  std::vector<Candidate> out;
  for (CXCursor loop : loops) {
    if (!runs_at_least_once(loop, text)) continue;
    ctx.loop = cursor_offsets(loop);
    ctx.assigned_in_loop = assigned_names(text.substr(ctx.loop.first, ctx.loop.second - ctx.loop.first));
    auto parts = cursor_children(loop);
    Finder f{&ctx, {}, {}};
    find_loads(parts.back(), f);
    if (f.loads.empty()) continue;
    unsigned line = 0;
    clang_getExpansionLocation(clang_getCursorLocation(loop), nullptr, &line, nullptr, nullptr);
    // one constant per distinct load text, replaced back to front
    std::map<std::string, std::string> names;
    std::vector<std::pair<Range, std::string>> edits;
    for (const Range& r : f.loads) {
      std::string load = text.substr(r.first, r.second - r.first);
      if (!names.count(load)) names[load] = fmt::format("rpl_hoisted_L{}_{}", line, names.size());
      edits.push_back({r, names[load]});
    }
    std::sort(edits.begin(), edits.end(), [](auto& a, auto& b) { return a.first.first > b.first.first; });
    std::string s = text;
    for (const auto& [r, name] : edits) s.replace(r.first, r.second - r.first, name);
    std::size_t line_start = text.rfind('\n', ctx.loop.first == 0 ? 0 : ctx.loop.first - 1);
    line_start = line_start == std::string::npos ? 0 : line_start + 1;
    std::string indent = text.substr(line_start, ctx.loop.first - line_start);
    if (indent.find_first_not_of(" \t") != std::string::npos) continue;  // the loop shares its line with other code
    std::string decls;
    for (const auto& [load, name] : names) decls += fmt::format("{}const auto {} = {};  // hoisted: loop-invariant\n", indent, name, load);
    s.insert(line_start, decls);
    Candidate c;
    c.id = fmt::format("hoist-L{}", line);
    c.proposer = "deterministic";
    c.description = fmt::format("hoist {} loop-invariant load(s) out of the for loop at line {}", names.size(), line);
    c.source_text = s;
    nlohmann::json loads = nlohmann::json::array();
    for (const auto& [load, name] : names) loads.push_back(load);
    c.details = {{"transformation", "hoist"}, {"loop_line", line}, {"loads", loads}};
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace rpl::optimize
