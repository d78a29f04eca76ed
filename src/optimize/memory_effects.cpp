#include "optimize/memory_effects.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "optimize/clang_parse.hpp"

namespace rpl::optimize {
namespace {

bool is_pointer_like(CXCursor c) {
  CXTypeKind k = clang_getCanonicalType(clang_getCursorType(c)).kind;
  return k == CXType_Pointer || k == CXType_ConstantArray || k == CXType_IncompleteArray || k == CXType_VariableArray ||
         k == CXType_DependentSizedArray || k == CXType_LValueReference;
}

// The first pointer or array variable, in source order, that an address expression is based on: `hist` in
// `&hist[b]`, `hist + b`, `*(hist + b)`, `s_hist[w][b]`; failing that the first variable (`&g_sum`).
CXCursor root_variable(CXCursor expr) {
  CXCursor found = clang_getNullCursor();
  std::vector<CXCursor> stack{expr};
  while (!stack.empty()) {
    CXCursor c = stack.back();
    stack.pop_back();
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr) {
      CXCursor decl = clang_getCursorReferenced(c);
      CXCursorKind dk = clang_getCursorKind(decl);
      if ((dk == CXCursor_ParmDecl || dk == CXCursor_VarDecl) && is_pointer_like(decl)) return decl;
      if ((dk == CXCursor_ParmDecl || dk == CXCursor_VarDecl) && clang_Cursor_isNull(found)) found = decl;  // `&g_sum`
      continue;
    }
    auto ch = cursor_children(c);
    for (auto it = ch.rbegin(); it != ch.rend(); ++it) stack.push_back(*it);  // pre-order, left first
  }
  return found;
}

bool has_annotation(CXCursor decl, const char* name) {
  bool found = false;
  struct Ctx { const char* name; bool* found; } ctx{name, &found};
  clang_visitChildren(decl, [](CXCursor a, CXCursor, CXClientData d) -> CXChildVisitResult {
    auto* ctx = static_cast<Ctx*>(d);
    if (clang_getCursorKind(a) == CXCursor_AnnotateAttr && cursor_spelling(a) == ctx->name) *ctx->found = true;
    return CXChildVisit_Continue;
  }, &ctx);
  return found;
}

struct Walker {
  const std::string* text;
  KernelInfo* kernel;
  std::map<std::string, std::string> alias;  // local pointer -> the parameter it was derived from
  std::set<std::string> written;

  // (kind, name) of the memory an address expression designates
  std::pair<std::string, std::string> classify(CXCursor expr) const {
    CXCursor decl = root_variable(expr);
    if (clang_Cursor_isNull(decl)) return {"unknown", ""};
    std::string name = cursor_spelling(decl);
    if (clang_getCursorKind(decl) == CXCursor_ParmDecl) return {"parameter", name};
    if (has_annotation(decl, "rpl_shared")) return {"shared", name};
    CXCursorKind parent = clang_getCursorKind(clang_getCursorSemanticParent(decl));
    bool local = parent == CXCursor_FunctionDecl || parent == CXCursor_FunctionTemplate;
    if (!local) return {"global", name};
    auto a = alias.find(name);
    if (a != alias.end()) return {"parameter", a->second};
    return {"local", name};
  }

  std::string operator_between(CXCursor lhs, CXCursor rhs) const {
    std::size_t b = cursor_offsets(lhs).second, e = cursor_offsets(rhs).first;
    if (e <= b || e > text->size()) return "";
    std::string op = text->substr(b, e - b);
    op.erase(std::remove_if(op.begin(), op.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n'; }), op.end());
    return op;
  }

  void note_store(CXCursor lhs) {
    if (clang_getCursorKind(strip_implicit(lhs)) == CXCursor_DeclRefExpr) return;  // the variable itself, not memory
    auto [kind, name] = classify(lhs);
    if (kind == "parameter") written.insert(name);
  }

  void note_pointer_copy(const std::string& local, CXCursor init) {
    auto [kind, name] = classify(init);
    if (kind == "parameter") alias[local] = name;
  }

  void walk(CXCursor c) {
    CXCursorKind k = clang_getCursorKind(c);
    auto ch = cursor_children(c);
    if (k == CXCursor_VarDecl && is_pointer_like(c) && !ch.empty()) note_pointer_copy(cursor_spelling(c), ch.back());
    if ((k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) && ch.size() == 2) {
      std::string op = operator_between(ch[0], ch[1]);
      bool assign = k == CXCursor_CompoundAssignOperator || op == "=";
      if (assign) {
        note_store(ch[0]);
        CXCursor lhs = strip_implicit(ch[0]);
        if (clang_getCursorKind(lhs) == CXCursor_DeclRefExpr && is_pointer_like(lhs)) note_pointer_copy(cursor_spelling(lhs), ch[1]);
      }
    }
    if (k == CXCursor_UnaryOperator && ch.size() == 1) {
      auto [b, e] = cursor_offsets(c);
      std::string t = e > b && e <= text->size() ? text->substr(b, e - b) : "";
      bool incdec = t.rfind("++", 0) == 0 || t.rfind("--", 0) == 0 ||
                    (t.size() >= 2 && (t.compare(t.size() - 2, 2, "++") == 0 || t.compare(t.size() - 2, 2, "--") == 0));
      if (incdec) note_store(ch[0]);
    }
    if (k == CXCursor_CallExpr) {
      std::string callee = cursor_spelling(c);
      // a dependent call in a template: the callee is a nameless reference around an OverloadedDeclRef
      for (CXCursor f = ch.empty() ? clang_getNullCursor() : ch[0]; callee.empty() && !clang_Cursor_isNull(f);) {
        callee = cursor_spelling(f);
        auto inner = cursor_children(f);
        f = inner.empty() ? clang_getNullCursor() : inner[0];
      }
      if (is_atomic_function(callee)) {
        AtomicUse use;
        use.function = callee;
        clang_getExpansionLocation(clang_getCursorLocation(c), nullptr, &use.line, nullptr, nullptr);
        // the callee reference comes first among the children; the first argument follows
        std::vector<CXCursor> args;
        for (int i = 0, n = clang_Cursor_getNumArguments(c); i < n; ++i) args.push_back(clang_Cursor_getArgument(c, unsigned(i)));
        if (args.empty() && ch.size() > 1) args.assign(ch.begin() + 1, ch.end());
        if (!args.empty()) std::tie(use.target_kind, use.target) = classify(args[0]);
        else use.target_kind = "unknown";
        if (use.target_kind == "parameter") written.insert(use.target);
        kernel->atomics.push_back(use);
      }
    }
    if (k == CXCursor_LambdaExpr) return;
    for (CXCursor child : ch) walk(child);
  }
};

}  // namespace

bool is_atomic_function(const std::string& id) {
  return id.rfind("atomic", 0) == 0 || id.rfind("__atomic", 0) == 0 || id.rfind("__hip_atomic", 0) == 0 ||
         id.rfind("__nv_atomic", 0) == 0 || id.rfind("__builtin_amdgcn_atomic", 0) == 0;
}

void collect_memory_effects(CXCursor body, const std::string& text, KernelInfo& kernel) {
  Walker w{&text, &kernel, {}, {}};
  w.walk(body);
  kernel.written_params.assign(w.written.begin(), w.written.end());
}

}  // namespace rpl::optimize
