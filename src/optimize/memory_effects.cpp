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

// Whether a variable holds a pointer (its value is an address; an array or reference is the object itself).
bool holds_pointer(CXCursor decl) { return clang_getCanonicalType(clang_getCursorType(decl)).kind == CXType_Pointer; }

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

// Calls into the source's own functions are followed this deep, and at most this many times per kernel (each call
// site walks its callee again, with its own arguments: a wide call tree must not make the walk explode). Past
// either bound an atomic goes unseen here; the equivalence gate still compares the whole final memory.
constexpr int kMaxCallDepth = 8;
constexpr std::size_t kMaxFollows = 4096;

// What an address expression designates: (kind, name) as AtomicUse has them.
using Memory = std::pair<std::string, std::string>;

// The definition, in the main file, of a function declaration (a helper, a function template's pattern, a
// lambda's call operator); null for the toolkit's functions.
CXCursor definition_in_main_file(CXCursor decl) {
  CXCursor def = clang_getCursorDefinition(decl);
  if (clang_Cursor_isNull(def)) return def;
  CXCursorKind k = clang_getCursorKind(def);
  bool function = k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate || k == CXCursor_CXXMethod;
  if (!function || !clang_Location_isFromMainFile(clang_getCursorLocation(def))) return clang_getNullCursor();
  return def;
}

// A call's callee reference and what it wraps: its first child, that one's first child, and so on. In a template a
// dependent call's callee is a nameless reference around an OverloadedDeclRef.
std::vector<CXCursor> callee_chain(const std::vector<CXCursor>& call_children) {
  std::vector<CXCursor> chain;
  for (CXCursor f = call_children.empty() ? clang_getNullCursor() : call_children[0]; !clang_Cursor_isNull(f);) {
    chain.push_back(f);
    auto inner = cursor_children(f);
    f = inner.empty() ? clang_getNullCursor() : inner[0];
  }
  return chain;
}

// The name a call calls: its own spelling, else the first name along its callee chain.
std::string callee_name(CXCursor call, const std::vector<CXCursor>& chain) {
  std::string name = cursor_spelling(call);
  for (std::size_t i = 0; name.empty() && i < chain.size(); ++i) name = cursor_spelling(chain[i]);
  return name;
}

// The source's own functions a call may reach: the one it resolves to, or, for a call a template leaves
// unresolved (its arguments depend on a template parameter), every overload its name finds.
std::vector<CXCursor> callees_in_main_file(CXCursor call, const std::vector<CXCursor>& chain) {
  CXCursor def = definition_in_main_file(clang_getCursorReferenced(call));
  if (!clang_Cursor_isNull(def)) return {def};
  std::vector<CXCursor> out;
  for (CXCursor f : chain) {
    if (clang_getCursorKind(f) != CXCursor_OverloadedDeclRef) continue;
    for (unsigned i = 0, n = clang_getNumOverloadedDecls(f); i < n; ++i) {
      CXCursor d = definition_in_main_file(clang_getOverloadedDecl(f, i));
      if (!clang_Cursor_isNull(d)) out.push_back(d);
    }
    break;
  }
  return out;
}

CXCursor function_body(CXCursor def) {
  for (CXCursor c : cursor_children(def))
    if (clang_getCursorKind(c) == CXCursor_CompoundStmt) return c;
  return clang_getNullCursor();
}

// What every walk of one kernel's body shares, the walks into its helpers and lambdas included.
struct KernelWalk {
  const std::string& text;
  KernelInfo& kernel;
  std::set<std::string> written;   // the kernel's parameters stored through or updated atomically
  std::set<std::size_t> active;    // the definitions being walked (offsets), so that recursion ends
  std::size_t follows = 0;         // calls followed so far (kMaxFollows bounds the walk)
};

struct Walker {
  KernelWalk* state;
  // a helper's or lambda's parameters, by their declaration's offset: the memory its caller passed (kind "unknown"
  // where the caller is not seen, as for a lambda's own parameters at its definition)
  std::map<std::size_t, Memory> bound;
  int depth = 0;
  std::map<std::string, Memory> alias;  // local pointer -> the memory it was derived from

  // (kind, name) of the memory an address expression designates
  Memory classify(CXCursor expr) const {
    CXCursor decl = root_variable(expr);
    if (clang_Cursor_isNull(decl)) return {"unknown", ""};
    std::string name = cursor_spelling(decl);
    if (clang_getCursorKind(decl) == CXCursor_ParmDecl) {
      auto b = bound.find(cursor_offsets(decl).first);
      if (b != bound.end()) return b->second;
      return {"parameter", name};
    }
    // A pointer variable designates what it points to, which is where this walk saw it assigned from; a pointer
    // kept in shared memory or set where the walk cannot see (an asm output, a helper's out-parameter) points to
    // memory the parser cannot place, not to the block-local memory that holds the pointer.
    auto a = alias.find(name);
    if (has_annotation(decl, "rpl_shared")) {
      if (!holds_pointer(decl)) return {"shared", name};
      return a != alias.end() ? a->second : Memory{"unknown", ""};
    }
    CXCursorKind parent = clang_getCursorKind(clang_getCursorSemanticParent(decl));
    bool local = parent == CXCursor_FunctionDecl || parent == CXCursor_FunctionTemplate || parent == CXCursor_CXXMethod;
    if (!local) return {"global", name};
    if (a != alias.end()) return a->second;
    return holds_pointer(decl) ? Memory{"unknown", ""} : Memory{"local", name};
  }

  std::string operator_between(CXCursor lhs, CXCursor rhs) const {
    std::size_t b = cursor_offsets(lhs).second, e = cursor_offsets(rhs).first;
    if (e <= b || e > state->text.size()) return "";
    std::string op = state->text.substr(b, e - b);
    op.erase(std::remove_if(op.begin(), op.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n'; }), op.end());
    return op;
  }

  void note_store(CXCursor lhs) {
    if (clang_getCursorKind(strip_implicit(lhs)) == CXCursor_DeclRefExpr) return;  // the variable itself, not memory
    auto [kind, name] = classify(lhs);
    if (kind == "parameter") state->written.insert(name);
  }

  // `decl` (a pointer or reference; an array is the object itself) now designates what `init` does
  void note_pointer_copy(CXCursor decl, CXCursor init) {
    const CXTypeKind k = clang_getCanonicalType(clang_getCursorType(decl)).kind;
    if (k == CXType_Pointer || k == CXType_LValueReference || k == CXType_RValueReference)
      alias[cursor_spelling(decl)] = classify(init);
  }

  std::vector<CXCursor> call_arguments(CXCursor call, const std::vector<CXCursor>& ch) const {
    std::vector<CXCursor> args;
    for (int i = 0, n = clang_Cursor_getNumArguments(call); i < n; ++i) args.push_back(clang_Cursor_getArgument(call, unsigned(i)));
    // the callee reference comes first among the children; the arguments follow
    if (args.empty() && ch.size() > 1) args.assign(ch.begin() + 1, ch.end());
    return args;
  }

  // A lambda's body, where it is defined: what it captures is the enclosing function's; its own parameters are
  // memory this walk cannot place.
  void walk_lambda(CXCursor lambda) {
    Walker inner{state, bound, depth, alias};
    for (CXCursor c : cursor_children(lambda))
      if (clang_getCursorKind(c) == CXCursor_ParmDecl) inner.bound[cursor_offsets(c).first] = {"unknown", ""};
    for (CXCursor c : cursor_children(lambda))
      if (clang_getCursorKind(c) == CXCursor_CompoundStmt) inner.walk(c);
  }

  // A call to a function of the source (a new helper, a template, a lambda's call operator): its body, with each
  // parameter standing for what the caller passed, so that an atomic or a store inside is the caller's.
  void follow_call(CXCursor call, const std::vector<CXCursor>& chain, const std::vector<CXCursor>& args) {
    if (depth >= kMaxCallDepth) return;
    for (CXCursor def : callees_in_main_file(call, chain))
      if (state->follows++ < kMaxFollows) follow(def, args);
  }

  void follow(CXCursor def, const std::vector<CXCursor>& args) {
    CXCursor body = function_body(def);
    std::size_t at = cursor_offsets(def).first;
    if (clang_Cursor_isNull(body) || state->active.count(at)) return;
    Walker inner{state, {}, depth + 1, {}};
    std::vector<CXCursor> params;
    for (CXCursor c : cursor_children(def))
      if (clang_getCursorKind(c) == CXCursor_ParmDecl) params.push_back(c);
    // a member call (a lambda's operator()) can list the object first among the arguments
    std::size_t skip = args.size() > params.size() ? args.size() - params.size() : 0;
    for (std::size_t i = 0; i < params.size(); ++i)
      inner.bound[cursor_offsets(params[i]).first] = i + skip < args.size() ? classify(args[i + skip]) : Memory{"unknown", ""};
    state->active.insert(at);
    inner.walk(body);
    state->active.erase(at);
  }

  void walk(CXCursor c) {
    CXCursorKind kind = clang_getCursorKind(c);
    auto ch = cursor_children(c);
    if (kind == CXCursor_VarDecl && is_pointer_like(c) && !ch.empty()) note_pointer_copy(c, ch.back());
    if ((kind == CXCursor_BinaryOperator || kind == CXCursor_CompoundAssignOperator) && ch.size() == 2) {
      std::string op = operator_between(ch[0], ch[1]);
      bool assign = kind == CXCursor_CompoundAssignOperator || op == "=";
      if (assign) {
        note_store(ch[0]);
        CXCursor lhs = strip_implicit(ch[0]);
        if (clang_getCursorKind(lhs) == CXCursor_DeclRefExpr && is_pointer_like(lhs))
          note_pointer_copy(clang_getCursorReferenced(lhs), ch[1]);
      }
    }
    if (kind == CXCursor_UnaryOperator && ch.size() == 1) {
      auto [b, e] = cursor_offsets(c);
      std::string t = e > b && e <= state->text.size() ? state->text.substr(b, e - b) : "";
      bool incdec = t.rfind("++", 0) == 0 || t.rfind("--", 0) == 0 ||
                    (t.size() >= 2 && (t.compare(t.size() - 2, 2, "++") == 0 || t.compare(t.size() - 2, 2, "--") == 0));
      if (incdec) note_store(ch[0]);
    }
    if (kind == CXCursor_CallExpr) {
      const std::vector<CXCursor> chain = callee_chain(ch);
      const std::string callee = callee_name(c, chain);
      std::vector<CXCursor> args = call_arguments(c, ch);
      if (is_atomic_function(callee)) {
        AtomicUse use;
        use.function = callee;
        clang_getExpansionLocation(clang_getCursorLocation(c), nullptr, &use.line, nullptr, nullptr);
        if (!args.empty()) std::tie(use.target_kind, use.target) = classify(args[0]);
        else use.target_kind = "unknown";
        if (use.target_kind == "parameter") state->written.insert(use.target);
        state->kernel.atomics.push_back(use);
      } else {
        follow_call(c, chain, args);
      }
    }
    if (kind == CXCursor_LambdaExpr) return walk_lambda(c);
    for (CXCursor child : ch) walk(child);
  }
};

}  // namespace

bool is_atomic_function(const std::string& id) {
  return id.rfind("atomic", 0) == 0 || id.rfind("__atomic", 0) == 0 || id.rfind("__hip_atomic", 0) == 0 ||
         id.rfind("__nv_atomic", 0) == 0 || id.rfind("__builtin_amdgcn_atomic", 0) == 0;
}

void collect_memory_effects(CXCursor body, const std::string& text, KernelInfo& kernel) {
  KernelWalk shared{text, kernel};
  Walker{&shared}.walk(body);
  kernel.written_params.assign(shared.written.begin(), shared.written.end());
}

}  // namespace rpl::optimize
