#include "optimize/source_model.hpp"

#include "support/comments.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <cstdlib>
#include <memory>
#include <initializer_list>
#include <cstring>
#include <optional>
#include <regex>
#include <utility>
#include <vector>

#include "optimize/clang_parse.hpp"
#include "optimize/gpu_stub_headers.hpp"
#include "optimize/memory_effects.hpp"
#include "support/errors.hpp"
#include "support/temp_file.hpp"

namespace rpl::optimize {
namespace fs = std::filesystem;
namespace {

std::string take(CXString s) {
  const char* c = clang_getCString(s);
  std::string out = c ? c : "";
  clang_disposeString(s);
  return out;
}

// The stub headers, written once per process into a private temporary directory.
const fs::path& stub_directory() {
  static const fs::path dir = [] {
    std::string tmpl = (temporary_directory() / "rpl-gpu-stubs-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw Error(ExitCode::OutputFailed, "cannot create a temporary directory for the parser's stub headers");
    for (const auto& [name, text] : gpu_stub_headers()) {
      fs::path p = fs::path(tmpl) / name;
      fs::create_directories(p.parent_path());
      std::ofstream(p) << text;
    }
    return fs::path(tmpl);
  }();
  return dir;
}

struct Offsets {
  std::size_t begin = 0, end = 0;
  unsigned line = 0;
  bool in_main_file = false;
};

Offsets extent_of(CXCursor c) {
  CXSourceRange r = clang_getCursorExtent(c);
  Offsets o;
  CXFile f1 = nullptr, f2 = nullptr;
  unsigned line = 0, col = 0, b = 0, e = 0;
  clang_getExpansionLocation(clang_getRangeStart(r), &f1, &line, &col, &b);
  clang_getExpansionLocation(clang_getRangeEnd(r), &f2, nullptr, nullptr, &e);
  o.begin = b, o.end = e, o.line = line;
  // where the name is: a range may start inside a macro (`__global__`) spelled in a stub header
  o.in_main_file = clang_Location_isFromMainFile(clang_getCursorLocation(c)) != 0;
  return o;
}

std::string normalized_text(const std::string& text, std::size_t b, std::size_t e) {
  std::string out;
  bool space = false;
  for (std::size_t i = b; i < e && i < text.size(); ++i) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) { space = !out.empty(); continue; }
    if (space) out += ' ';
    space = false;
    out += text[i];
  }
  return out;
}

bool is_loop(CXCursorKind k) { return k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt; }

// A `#pragma unroll` / `#pragma nounroll` on the line(s) just before the loop.
bool preceded_by_pragma(const std::string& text, std::size_t offset) {
  std::size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  if (line_start == std::string::npos) return false;
  // the loop keyword may follow other code on its line ("{ for"): then no pragma can apply
  for (std::size_t i = line_start + 1; i < offset; ++i)
    if (!std::isspace(static_cast<unsigned char>(text[i]))) return false;
  std::size_t prev_end = line_start;
  while (prev_end > 0) {
    std::size_t prev_start = text.rfind('\n', prev_end - 1);
    prev_start = prev_start == std::string::npos ? 0 : prev_start + 1;
    std::string line = normalized_text(text, prev_start, prev_end);
    if (line.empty()) { prev_end = prev_start == 0 ? 0 : prev_start - 1; continue; }
    return line.rfind("#pragma unroll", 0) == 0 || line.rfind("#pragma nounroll", 0) == 0 ||
           line.rfind("#pragma clang loop", 0) == 0 || line.rfind("_Pragma", 0) == 0;
  }
  return false;
}

struct LoopWalk {
  const std::string* text;
  std::vector<LoopInfo>* loops;
  int depth = 0;
};

// Returns whether `c` contains a loop.
bool collect_loops(CXCursor c, LoopWalk& w) {
  struct Ctx { LoopWalk* w; bool found; };
  Ctx ctx{&w, false};
  clang_visitChildren(c, [](CXCursor child, CXCursor, CXClientData data) -> CXChildVisitResult {
    auto* ctx = static_cast<Ctx*>(data);
    CXCursorKind k = clang_getCursorKind(child);
    if (k == CXCursor_LambdaExpr) return CXChildVisit_Continue;  // a lambda's loops are not the kernel's
    if (is_loop(k)) {
      ctx->found = true;
      Offsets o = extent_of(child);
      std::size_t index = ctx->w->loops->size();
      LoopInfo loop;
      loop.offset = o.begin;
      loop.line = o.line;
      loop.kind = k == CXCursor_ForStmt ? "for" : k == CXCursor_WhileStmt ? "while" : "do";
      loop.depth = ctx->w->depth;
      loop.has_pragma = preceded_by_pragma(*ctx->w->text, o.begin);
      ctx->w->loops->push_back(loop);
      ++ctx->w->depth;
      bool nested = collect_loops(child, *ctx->w);
      --ctx->w->depth;
      (*ctx->w->loops)[index].innermost = !nested;
      return CXChildVisit_Continue;
    }
    if (collect_loops(child, *ctx->w)) ctx->found = true;
    return CXChildVisit_Continue;
  }, &ctx);
  return ctx.found;
}

struct Walk {
  SourceModel* model;
  std::vector<std::string> scope;
  bool extern_c = false;
};

// One past the end of the declaration at [.., end): its ';' when one follows (whitespace between).
std::size_t through_semicolon(const std::string& text, std::size_t end) {
  std::size_t i = end;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  return i < text.size() && text[i] == ';' ? i + 1 : end;
}

// A `constexpr` (or `consteval`) function without __device__, `constexpr int div_up(int a, int b)`: it runs in
// constant expressions (the tile counts of new constants) or, compiled with --expt-relaxed-constexpr, in the kernel,
// and the host calls it only where the host's code names it, which an unchanged host under a new name never does. It
// is a helper like a device function, unless an attribute (a `constructor` runs it before main) comes with it.
bool constexpr_host_function(CXCursor c, const std::string& text) {
  const Offsets whole = extent_of(c);
  if (!whole.in_main_file) return false;
  const std::string name = take(clang_getCursorSpelling(c));
  const std::string decl = text.substr(whole.begin, whole.end - whole.begin);
  const std::size_t at = decl.find(name + "(") != std::string::npos ? decl.find(name + "(") : decl.find(name);
  const std::string head = decl.substr(0, at == std::string::npos ? 0 : at);
  static const std::regex keyword(R"(\b(constexpr|consteval)\b)"), attribute(R"(__attribute__|\[\[|__declspec)");
  return std::regex_search(head, keyword) && !std::regex_search(head, attribute);
}

// Where a declaration starting at `begin` really starts: an explicit instantiation (`template __device__ float
// times<2>(float);`, `extern template ...`) is given a range that leaves out its leading keywords.
std::size_t with_instantiation_keywords(const std::string& text, std::size_t begin) {
  const auto keyword_before = [&](std::size_t at, const char* word) -> std::optional<std::size_t> {
    const std::size_t n = std::strlen(word);
    while (at > 0 && std::isspace(static_cast<unsigned char>(text[at - 1]))) --at;
    if (at < n || text.compare(at - n, n, word) != 0) return std::nullopt;
    if (at > n && (std::isalnum(static_cast<unsigned char>(text[at - n - 1])) || text[at - n - 1] == '_')) return std::nullopt;
    return at - n;
  };
  const auto t = keyword_before(begin, "template");
  if (!t) return begin;
  const auto e = keyword_before(*t, "extern");
  return e ? *e : *t;
}

void visit_function(CXCursor c, Walk& w) {
  if (!clang_isCursorDefinition(c)) {
    if (Offsets o = extent_of(c); o.in_main_file)
      w.model->prototypes.push_back({take(clang_getCursorSpelling(c)), with_instantiation_keywords(w.model->text, o.begin),
                                     through_semicolon(w.model->text, o.end)});
    return;
  }
  KernelInfo k;
  bool global = false;
  CXCursor body = clang_getNullCursor();
  struct Ctx { KernelInfo* k; bool* global; CXCursor* body; const std::string* text; };
  Ctx ctx{&k, &global, &body, &w.model->text};
  clang_visitChildren(c, [](CXCursor child, CXCursor, CXClientData data) -> CXChildVisitResult {
    auto* ctx = static_cast<Ctx*>(data);
    switch (clang_getCursorKind(child)) {
      case CXCursor_AnnotateAttr: {
        std::string s = take(clang_getCursorSpelling(child));
        if (s == "rpl_global") *ctx->global = true;
        if (s.rfind("rpl_", 0) == 0) ctx->k->attributes.push_back(s.substr(4));
        break;
      }
      case CXCursor_ParmDecl: {
        CXType t = clang_getCursorType(child);
        ctx->k->params.push_back({take(clang_getCursorSpelling(child)), take(clang_getTypeSpelling(t)),
                                  take(clang_getTypeSpelling(clang_getCanonicalType(t)))});
        break;
      }
      case CXCursor_TemplateTypeParameter:
      case CXCursor_NonTypeTemplateParameter:
      case CXCursor_TemplateTemplateParameter: {
        Offsets o = extent_of(child);
        ctx->k->template_params.push_back(normalized_text(*ctx->text, o.begin, o.end));
        break;
      }
      case CXCursor_CompoundStmt: *ctx->body = child; break;
      default: {
        // (an UnexposedAttr names nothing: with the toolkit's headers it is __launch_bounds__, read from its annotation)
        if (clang_isAttribute(clang_getCursorKind(child)) && clang_getCursorKind(child) != CXCursor_UnexposedAttr)
          ctx->k->attributes.push_back(take(clang_getCursorKindSpelling(clang_getCursorKind(child))));
        break;
      }
    }
    return CXChildVisit_Continue;
  }, &ctx);
  if (!global && !clang_Cursor_isNull(body) &&
      (std::find(k.attributes.begin(), k.attributes.end(), "device") != k.attributes.end() ||
       constexpr_host_function(c, w.model->text))) {
    Offsets whole = extent_of(c);
    if (whole.in_main_file) {
      std::vector<std::string> types;
      for (const auto& p : k.params) types.push_back(p.canonical_type);
      w.model->device_functions.push_back(
          {take(clang_getCursorSpelling(c)), whole.begin, extent_of(body).begin, extent_of(body).end, std::move(types)});
    }
    return;
  }
  if (!global || clang_Cursor_isNull(body)) return;
  Offsets whole = extent_of(c);
  if (!whole.in_main_file) return;
  Offsets b = extent_of(body);
  k.name = take(clang_getCursorSpelling(c));
  std::string q;
  for (const auto& s : w.scope) q += s + "::";
  k.qualified_name = q + k.name;
  k.is_template = clang_getCursorKind(c) == CXCursor_FunctionTemplate;
  k.return_type = take(clang_getTypeSpelling(clang_getResultType(clang_getCursorType(c))));
  if (w.extern_c) k.attributes.push_back("extern \"C\"");
  CX_StorageClass sc = clang_Cursor_getStorageClass(c);
  if (sc == CX_SC_Static) k.attributes.push_back("static");
  if (sc == CX_SC_Extern) k.attributes.push_back("extern");
  if (clang_Cursor_isFunctionInlined(c)) k.attributes.push_back("inline");
  k.decl_begin = whole.begin;
  k.body_begin = b.begin;
  k.decl_end = b.end;
  k.line = whole.line;
  LoopWalk lw{&w.model->text, &k.loops, 0};
  collect_loops(body, lw);
  collect_memory_effects(body, w.model->text, k);
  w.model->kernels.push_back(std::move(k));
}

// A macro definition's whole directive: back from its name to the '#', on to the end of its last line.
std::optional<std::pair<std::size_t, std::size_t>> directive_range(const std::string& text, std::size_t name_begin,
                                                                   std::size_t body_end) {
  std::size_t hash = text.rfind('#', name_begin);
  if (hash == std::string::npos) return std::nullopt;
  std::size_t i = hash + 1;
  while (i < name_begin && (text[i] == ' ' || text[i] == '\t')) ++i;
  if (text.compare(i, 6, "define") != 0) return std::nullopt;
  for (i += 6; i < name_begin; ++i)
    if (text[i] != ' ' && text[i] != '\t') return std::nullopt;
  std::size_t e = std::max(body_end, name_begin);
  while (e < text.size() && !(text[e] == '\n' && (e == 0 || text[e - 1] != '\\'))) ++e;
  return std::make_pair(hash, e);
}

// Whether an object of type `t` is const: the type, or for an array the array type or its elements' at any level
// (libclang puts the qualifier on one or the other, depending on how the declaration was written).
bool const_object(CXType t) {
  for (t = clang_getCanonicalType(t);; t = clang_getCanonicalType(clang_getArrayElementType(t))) {
    if (clang_isConstQualifiedType(t)) return true;
    if (t.kind != CXType_ConstantArray && t.kind != CXType_IncompleteArray && t.kind != CXType_VariableArray &&
        t.kind != CXType_DependentSizedArray)
      return false;
  }
}

// `constexpr` or `constinit` in a declaration's text before its name: the compiler then initialises it at compile time.
bool declared_constant(const std::string& head) {
  static const std::regex keyword(R"(\b(constexpr|constinit)\b)");
  return std::regex_search(head, keyword);
}

// Whether the variable at `c` is initialised at compile time: declared constexpr or constinit (the compiler then
// guarantees it), or its initialiser is one libclang evaluates (a `const int` of literals and other constants).
bool constant_initialised(CXCursor c, const std::string& text, const Offsets& o) {
  const std::string decl = text.substr(o.begin, o.end - o.begin);
  const std::string name = take(clang_getCursorSpelling(c));
  const std::size_t at = decl.find(name);
  if (declared_constant(decl.substr(0, at == std::string::npos ? decl.size() : at))) return true;
  CXEvalResult r = clang_Cursor_Evaluate(c);
  if (!r) return false;
  const CXEvalResultKind kind = clang_EvalResult_getKind(r);
  clang_EvalResult_dispose(r);
  return kind == CXEval_Int || kind == CXEval_Float || kind == CXEval_StrLiteral;
}

void add_file_scope_decl(CXCursor c, const char* kind, Walk& w) {
  if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return;
  Offsets o = extent_of(c);
  FileScopeDecl d{{take(clang_getCursorSpelling(c))}, kind, o.begin, through_semicolon(w.model->text, o.end)};
  if (clang_getCursorKind(c) == CXCursor_EnumDecl && !clang_EnumDecl_isScoped(c))
    clang_visitChildren(c, [](CXCursor e, CXCursor, CXClientData names) -> CXChildVisitResult {
      if (clang_getCursorKind(e) == CXCursor_EnumConstantDecl)
        static_cast<std::vector<std::string>*>(names)->push_back(take(clang_getCursorSpelling(e)));
      return CXChildVisit_Continue;
    }, &d.names);
  d.specialization = !clang_Cursor_isNull(clang_getSpecializedCursorTemplate(c)) ||
                     clang_getCursorKind(c) == CXCursor_ClassTemplatePartialSpecialization;
  if (clang_getCursorKind(c) == CXCursor_VarDecl) d.dynamic_init = !constant_initialised(c, w.model->text, o);
  w.model->file_scope_decls.push_back(std::move(d));
}

// A variable template, `template <int N> constexpr float kInv = 1.0f / N;`: libclang 15 gives it no cursor kind of
// its own (an UnexposedDecl named after the variable whose extent starts at `template`), no type and no children to
// read, so it is read from its text. A `constexpr`/`constinit` one is a constant addition over the whole declaration
// (its initialiser depends on the parameters: only those keywords make it constant-initialised); one declared
// `__device__`, `__shared__`, `__constant__` or `__managed__` is a device global; any other (mutable, or `const`
// initialised when the program starts) is not recorded, so its text stays unexplained. An explicit or partial
// specialization (`template <>`, the name followed by `<`) is never new. Returns whether `c` was one.
bool add_variable_template(CXCursor c, const Offsets& o, Walk& w) {
  const std::string name = take(clang_getCursorSpelling(c));
  if (name.empty()) return false;
  const std::size_t end = through_semicolon(w.model->text, o.end);
  const std::string decl = w.model->text.substr(o.begin, end - o.begin);
  // the template head: `template` and its parameter list, to the '>' that closes it
  std::size_t head = decl.find('<');
  if (head == std::string::npos) return false;
  for (int depth = 0; head < decl.size(); ++head) {
    depth += decl[head] == '<' ? 1 : decl[head] == '>' ? -1 : 0;
    if (depth == 0) break;
  }
  std::smatch m;
  const std::string rest = decl.substr(std::min(head + 1, decl.size()));
  if (!std::regex_search(rest, m, std::regex("\\b" + name + "\\b"))) return false;
  const std::string before = m.prefix().str(), after = m.suffix().str();
  if (before.find('(') != std::string::npos) return false;  // a function template's return type, not a variable
  static const std::regex device(R"(\b(__device__|__shared__|__constant__|__managed__)\b|annotate\s*\(\s*"rpl_)");
  if (std::regex_search(before, device)) {
    w.model->device_globals.push_back(name);
    return true;
  }
  if (!declared_constant(before)) return true;
  FileScopeDecl d{{name}, "constant", o.begin, end};
  static const std::regex explicit_head(R"(^template\s*<\s*>)");
  const std::size_t next = after.find_first_not_of(" \t\r\n");
  d.specialization = std::regex_search(decl, explicit_head) || (next != std::string::npos && after[next] == '<');
  w.model->file_scope_decls.push_back(std::move(d));
  return true;
}

bool has_device_annotation(CXCursor c) {
  bool device = false;
  clang_visitChildren(c, [](CXCursor a, CXCursor, CXClientData d) -> CXChildVisitResult {
    if (clang_getCursorKind(a) == CXCursor_AnnotateAttr) {
      std::string s = take(clang_getCursorSpelling(a));
      if (s == "rpl_device" || s == "rpl_shared" || s == "rpl_constant" || s == "rpl_managed") *static_cast<bool*>(d) = true;
    }
    return CXChildVisit_Continue;
  }, &device);
  return device;
}

void visit_scope(CXCursor parent, Walk& w) {
  clang_visitChildren(parent, [](CXCursor c, CXCursor, CXClientData data) -> CXChildVisitResult {
    auto& w = *static_cast<Walk*>(data);
    switch (clang_getCursorKind(c)) {
      case CXCursor_Namespace: {
        w.scope.push_back(take(clang_getCursorSpelling(c)));
        visit_scope(c, w);
        w.scope.pop_back();
        break;
      }
      case CXCursor_LinkageSpec:
      case CXCursor_UnexposedDecl: {  // libclang 15 exposes `extern "C"` blocks as UnexposedDecl
        bool saved = w.extern_c;
        Offsets o = extent_of(c);
        if (!o.in_main_file) break;
        // and variable templates (no cursor kind of their own in libclang 15)
        if (w.model->text.compare(o.begin, 8, "template") == 0 && add_variable_template(c, o, w)) break;
        w.extern_c = w.extern_c || w.model->text.compare(o.begin, 6, "extern") == 0;
        visit_scope(c, w);
        w.extern_c = saved;
        break;
      }
      case CXCursor_FunctionDecl:
      case CXCursor_FunctionTemplate: visit_function(c, w); break;
      case CXCursor_VarDecl: {
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) break;
        if (has_device_annotation(c)) w.model->device_globals.push_back(take(clang_getCursorSpelling(c)));
        else if (const_object(clang_getCursorType(c))) add_file_scope_decl(c, "constant", w);  // constexpr too
        break;
      }
      case CXCursor_StructDecl:
      case CXCursor_ClassDecl:
      case CXCursor_UnionDecl:
      case CXCursor_EnumDecl:
      case CXCursor_ClassTemplate:
      case CXCursor_ClassTemplatePartialSpecialization:
        if (clang_isCursorDefinition(c)) add_file_scope_decl(c, "type", w);
        break;
      case CXCursor_TypedefDecl:
      case CXCursor_TypeAliasDecl:
      case CXCursor_TypeAliasTemplateDecl: add_file_scope_decl(c, "type", w); break;
      case CXCursor_NamespaceAlias: add_file_scope_decl(c, "namespace alias", w); break;
      case CXCursor_StaticAssert: {  // declares nothing: the checks of a tiling scheme's constants, say
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) break;
        Offsets o = extent_of(c);
        w.model->file_scope_decls.push_back({{}, "static assertion", o.begin, through_semicolon(w.model->text, o.end), false});
        break;
      }
      case CXCursor_MacroDefinition: {
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c)) || clang_Cursor_isMacroBuiltin(c)) break;
        Offsets o = extent_of(c);
        if (auto r = directive_range(w.model->text, o.begin, o.end))
          w.model->file_scope_decls.push_back({{take(clang_getCursorSpelling(c))}, "macro", r->first, r->second, false});
        break;
      }
      default: break;
    }
    return CXChildVisit_Continue;
  }, &w);
}

}  // namespace

const KernelInfo* SourceModel::find(const std::string& name) const {
  for (const auto& k : kernels)
    if (k.name == name || k.qualified_name == name) return &k;
  return nullptr;
}

std::string blank_launch_syntax(const std::string& text) {
  std::string out = text;
  std::size_t pos = 0;
  while ((pos = out.find("<<<", pos)) != std::string::npos) {
    std::size_t end = out.find(">>>", pos + 3);
    if (end == std::string::npos) break;
    for (std::size_t i = pos; i < end + 3; ++i)
      if (out[i] != '\n') out[i] = ' ';
    pos = end + 3;
  }
  return out;
}

std::string text_outside(const std::string& text, const KernelInfo& kernel) {
  std::string before = blank_comments(text.substr(0, std::min(kernel.decl_begin, text.size())));
  std::string after = kernel.decl_end < text.size() ? blank_comments(text.substr(kernel.decl_end)) : "";
  return normalized_text(before, 0, before.size()) + " @@KERNEL@@ " + normalized_text(after, 0, after.size());
}

namespace {

// Folders named by environment variables, then the parents' parents of a tool found on PATH (nvcc, hipcc live in
// TOOLKIT/bin), then a fixed default; the first that holds `probe` (a header under include/) is the toolkit.
std::optional<fs::path> find_toolkit(std::initializer_list<const char*> vars, const char* tool, const char* fallback,
                                     const fs::path& probe) {
  if (const char* forced = std::getenv("RPL_OPTIMIZE_HEADERS"); forced && std::string(forced) == "stubs") return std::nullopt;
  std::vector<fs::path> candidates;
  for (const char* var : vars)
    if (const char* v = std::getenv(var); v && *v) candidates.emplace_back(v);
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    for (std::size_t b = 0; b <= p.size();) {
      std::size_t e = p.find(':', b);
      if (e == std::string::npos) e = p.size();
      fs::path exe = fs::path(p.substr(b, e - b)) / tool;
      std::error_code ec;
      if (e > b && fs::exists(exe, ec)) candidates.push_back(fs::weakly_canonical(exe, ec).parent_path().parent_path());
      b = e + 1;
    }
  }
  candidates.emplace_back(fallback);
  for (const auto& c : candidates) {
    std::error_code ec;
    if (fs::exists(c / "include" / probe, ec)) return c;
  }
  return std::nullopt;
}

// The CUDA toolkit whose headers the parser uses: $CUDA_PATH, $CUDA_HOME, the nvcc on PATH, /usr/local/cuda.
std::optional<fs::path> find_cuda_toolkit() {
  return find_toolkit({"CUDA_PATH", "CUDA_HOME"}, "nvcc", "/usr/local/cuda", "cuda_runtime.h");
}

// The ROCm installation whose HIP headers the parser uses: $ROCM_PATH, the hipcc on PATH (Debian's is /usr/bin,
// so /usr), /opt/rocm. ($HIP_PATH names ROCm's hip/ folder, not the root clang's --rocm-path wants.)
std::optional<fs::path> find_hip_toolkit() {
  return find_toolkit({"ROCM_PATH"}, "hipcc", "/opt/rocm", fs::path("hip") / "hip_runtime.h");
}

// Forced after clang's CUDA wrapper: the CUDA keywords keep their meaning and also carry the annotations the
// source model reads (the same ones the stub headers give), so kernels, launch bounds and device variables are
// found the same way in both modes. texture_fetch_functions.h: CUDA 12 removed it, clang 15's wrapper still
// includes it.
constexpr const char* kToolkitAnnotations = R"RPL(#pragma once
#undef __global__
#define __global__ __attribute__((global)) __attribute__((annotate("rpl_global")))
#undef __device__
#define __device__ __attribute__((device)) __attribute__((annotate("rpl_device")))
#undef __shared__
#define __shared__ __attribute__((shared)) __attribute__((annotate("rpl_shared")))
#undef __constant__
#define __constant__ __attribute__((constant)) __attribute__((annotate("rpl_constant")))
#undef __managed__
#define __managed__ __attribute__((managed)) __attribute__((annotate("rpl_managed")))
#undef __launch_bounds__
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__))) __attribute__((annotate("rpl_launch_bounds(" #__VA_ARGS__ ")")))
// clang 15 lowers host-side launches `k<<<g, b>>>(...)` through this call, which CUDA 12 removed from its headers
#ifndef __HIP__
extern "C" int cudaConfigureCall(dim3 grid, dim3 block, unsigned long shared = 0, struct CUstream_st* stream = 0);
// Device intrinsics that clang 15 does not find in CUDA 13's headers ("no matching function for call to '__ldcs'",
// "undeclared identifier '__reduce_add_sync'"): without these the parse of a kernel that uses one fell back to the
// stubs, and new helpers and constants beside it were refused. Templates, so that the toolkit's own overloads win
// where clang sees them; the compiler, not this parse, judges the calls.
#define RPL_LOAD_HINT(name) template <typename T> __attribute__((device)) T name(const T*);
RPL_LOAD_HINT(__ldcs) RPL_LOAD_HINT(__ldcg) RPL_LOAD_HINT(__ldca) RPL_LOAD_HINT(__ldlu) RPL_LOAD_HINT(__ldcv)
#define RPL_STORE_HINT(name) template <typename P, typename V> __attribute__((device)) void name(P*, V);
RPL_STORE_HINT(__stcs) RPL_STORE_HINT(__stcg) RPL_STORE_HINT(__stwb) RPL_STORE_HINT(__stwt)
#define RPL_WARP_REDUCE(name) template <typename M, typename T> __attribute__((device)) T name(M, T);
RPL_WARP_REDUCE(__reduce_add_sync) RPL_WARP_REDUCE(__reduce_min_sync) RPL_WARP_REDUCE(__reduce_max_sync)
RPL_WARP_REDUCE(__reduce_and_sync) RPL_WARP_REDUCE(__reduce_or_sync) RPL_WARP_REDUCE(__reduce_xor_sync)
#undef RPL_LOAD_HINT
#undef RPL_STORE_HINT
#undef RPL_WARP_REDUCE
#endif
)RPL";

const fs::path& toolkit_shim_directory() {
  static const fs::path dir = [] {
    fs::path d = stub_directory() / "toolkit-shim";
    fs::create_directories(d);
    std::ofstream(d / "rpl_toolkit_annotations.h") << kToolkitAnnotations;
    std::ofstream(d / "texture_fetch_functions.h") << "#pragma once\n";
    return d;
  }();
  return dir;
}

bool is_cuda_source(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  return ext == ".cu" || ext == ".cuh";
}

// A HIP source: a .hip file, or C++ that includes HIP's runtime header (hipcc compiles .cpp files too).
bool is_hip_source(const std::string& path, const std::string& text) {
  std::string ext = fs::path(path).extension().string();
  return ext == ".hip" || (!is_cuda_source(path) && text.find("hip/hip_runtime") != std::string::npos);
}

// The device-side arguments both toolkit modes share, after the mode's own: our annotations are included after
// `first_include` (if any), so the toolkit's own definitions of __global__ and the rest do not replace them.
std::vector<std::string> with_annotations(std::vector<std::string> args, const std::string& first_include,
                                          const std::string& src_dir) {
  const fs::path& shim = toolkit_shim_directory();
  args.insert(args.end(), {"--cuda-device-only", "-std=c++17", "-isystem", shim.string()});
  if (!first_include.empty()) args.insert(args.end(), {"-include", first_include});
  args.insert(args.end(), {"-include", (shim / "rpl_toolkit_annotations.h").string(), "-I" + src_dir, "-Wno-everything",
                           "-ferror-limit=0"});
  return args;
}

// clang's arguments for a parse with the installed toolkit's own headers (device side), or nullopt when the source
// is neither CUDA nor HIP or no toolkit is installed. HIP: ROCm's hip_runtime.h comes before our annotations, so a
// source that includes it again keeps them.
std::optional<std::pair<fs::path, std::vector<std::string>>> toolkit_parse_args(const std::string& path, const std::string& text,
                                                                              const std::string& src_dir) {
  if (auto cuda = is_cuda_source(path) ? find_cuda_toolkit() : std::nullopt) {
    std::vector<std::string> args = with_annotations(
        {"-x", "cuda", "--cuda-path=" + cuda->string(), "--cuda-gpu-arch=sm_80", "-nocudalib"}, "", src_dir);
    if (fs::exists(*cuda / "include" / "cccl")) args.insert(args.end(), {"-isystem", (*cuda / "include" / "cccl").string()});
    return std::make_pair(*cuda, args);
  }
  if (auto rocm = is_hip_source(path, text) ? find_hip_toolkit() : std::nullopt)
    return std::make_pair(*rocm, with_annotations({"-x", "hip", "--rocm-path=" + rocm->string(), "--offload-arch=gfx90a", "-nogpulib"},
                                                  "hip/hip_runtime.h", src_dir));
  return std::nullopt;
}

}  // namespace

ParsedUnit::ParsedUnit(const std::string& path, const std::string& text, const std::vector<std::string>& user_flags) {
  std::string abs = fs::absolute(path).string();
  std::string src_dir = fs::absolute(path).parent_path().string();
  index_ = clang_createIndex(0, 0);
  auto parse = [&](const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    for (auto& a : args) argv.push_back(a.c_str());
    for (auto& a : user_flags) argv.push_back(a.c_str());  // last: the application's -std wins over ours
    CXUnsavedFile unsaved{abs.c_str(), blanked_.data(), static_cast<unsigned long>(blanked_.size())};
    return clang_parseTranslationUnit2(index_, abs.c_str(), argv.data(), int(argv.size()), &unsaved, 1,
                                       CXTranslationUnit_KeepGoing | CXTranslationUnit_DetailedPreprocessingRecord, &unit_);
  };
  // The installed toolkit's own headers first (clang's CUDA or HIP mode, device side): the real device API, vector
  // types, __ldg overloads, cooperative groups, cub. A fatal error (a header clang cannot read) falls back to the
  // stub headers.
  if (auto toolkit = toolkit_parse_args(path, text, src_dir)) {
    blanked_ = text;  // clang's CUDA and HIP modes read the launch syntax themselves
    const auto& [root, args] = *toolkit;
    if (parse(args) == CXError_Success && unit_) {
      // A fatal error, or an error in the user's file, falls back: without clang's own CUDA headers (a libclang
      // installed without its resource directory, as on a GPU machine given only the library) the toolkit parse
      // reports the builtin variables (blockIdx, ...) as undeclared, while the stubs declare them.
      bool clean = true;
      for (unsigned i = 0, n = clang_getNumDiagnostics(unit_); i < n && clean; ++i) {
        CXDiagnostic d = clang_getDiagnostic(unit_, i);
        // Errors inside the toolkit's own headers are its business (the parse of the user's file still holds).
        clean = clang_getDiagnosticSeverity(d) < CXDiagnostic_Error ||
                (clang_getDiagnosticSeverity(d) == CXDiagnostic_Error &&
                 !clang_Location_isFromMainFile(clang_getDiagnosticLocation(d)));
        clang_disposeDiagnostic(d);
      }
      if (clean) {
        headers_ = "toolkit";
        toolkit_ = root.string();
        return;
      }
      clang_disposeTranslationUnit(unit_);
      unit_ = nullptr;
    }
  }
  blanked_ = blank_launch_syntax(text);
  std::string stubs = stub_directory().string();
  std::vector<std::string> args = {"-x", "c++", "-std=c++17", "-I" + stubs, "-I" + src_dir, "-include",
                                   (stub_directory() / kStubPrelude).string(), "-Wno-everything", "-ferror-limit=0"};
  CXErrorCode rc = parse(args);
  if (rc != CXError_Success || !unit_) {
    clang_disposeIndex(index_);
    throw Error(ExitCode::InputInvalid, fmt::format("{}: the C++ parser (libclang) could not read it (error {})", path, int(rc)));
  }
  headers_ = "stubs";
}

ParsedUnit::~ParsedUnit() {
  clang_disposeTranslationUnit(unit_);
  clang_disposeIndex(index_);
}

std::string cursor_spelling(CXCursor c) { return take(clang_getCursorSpelling(c)); }

std::vector<CXCursor> cursor_children(CXCursor c) {
  std::vector<CXCursor> out;
  clang_visitChildren(c, [](CXCursor ch, CXCursor, CXClientData d) {
    static_cast<std::vector<CXCursor>*>(d)->push_back(ch);
    return CXChildVisit_Continue;
  }, &out);
  return out;
}

CXCursor strip_implicit(CXCursor c) {
  while (clang_getCursorKind(c) == CXCursor_UnexposedExpr || clang_getCursorKind(c) == CXCursor_ParenExpr) {
    auto ch = cursor_children(c);
    if (ch.size() != 1) break;
    c = ch[0];
  }
  return c;
}

std::pair<std::size_t, std::size_t> cursor_offsets(CXCursor c) {
  Offsets o = extent_of(c);
  return {o.begin, o.end};
}

std::vector<std::string> parser_flags_from_compile_flags(const std::vector<std::string>& compile_flags) {
  // nvcc's and hipcc's spellings of the flags that change what the source means to a parser, with their clang
  // form: "-I dir", "-Idir", "--include-path dir", "--include-path=dir", and so on.
  struct Form {
    const char* flag;
    const char* clang;
    bool joined;  // clang takes the value glued to the flag ("-Idir"), else as the next argument
  };
  static const Form forms[] = {{"-I", "-I", true},           {"--include-path", "-I", true},
                               {"-isystem", "-isystem", false}, {"--system-include", "-isystem", false},
                               {"-D", "-D", true},           {"--define-macro", "-D", true},
                               {"-U", "-U", true},           {"--undefine-macro", "-U", true},
                               {"-include", "-include", false}, {"--pre-include", "-include", false},
                               {"-std", "-std=", true},      {"--std", "-std=", true}};
  std::vector<std::string> out;
  for (std::size_t i = 0; i < compile_flags.size(); ++i) {
    const std::string& a = compile_flags[i];
    for (const Form& f : forms) {
      const std::string flag = f.flag;
      std::string value;
      if (a == flag) {
        if (i + 1 >= compile_flags.size()) break;
        value = compile_flags[++i];
      } else if (a.rfind(flag + "=", 0) == 0) {
        value = a.substr(flag.size() + 1);
      } else if (flag.size() == 2 && a.rfind(flag, 0) == 0 && a.size() > 2) {  // -Idir, -DX=1
        value = a.substr(2);
      } else {
        continue;
      }
      if (f.joined) out.push_back(f.clang + value);
      else out.insert(out.end(), {f.clang, value});
      break;
    }
  }
  return out;
}

SourceModel parse_source(const std::string& path, const std::string& text, const std::vector<std::string>& user_flags) {
  SourceModel model;
  model.path = path;
  model.text = text;
  ParsedUnit parsed(path, text, user_flags);
  CXTranslationUnit tu = parsed.unit();
  model.headers = parsed.headers();
  model.toolkit = parsed.toolkit();
  Walk w{&model, {}, false};
  CXCursor root = clang_getTranslationUnitCursor(tu);
  visit_scope(root, w);
  clang_visitChildren(root, [](CXCursor c, CXCursor, CXClientData data) -> CXChildVisitResult {
    if (clang_getCursorKind(c) == CXCursor_InclusionDirective && clang_Location_isFromMainFile(clang_getCursorLocation(c))) {
      auto* m = static_cast<SourceModel*>(data);
      m->includes.push_back(take(clang_getCursorSpelling(c)));
      m->includes_end = std::max(m->includes_end, extent_of(c).end);
    }
    return CXChildVisit_Continue;
  }, &model);

  // Preprocessor blocks left out for every target (SourceModel::disabled): libclang's skipped ranges of the main
  // file whose opening directive is `#if 0`, or tests only macros without "__" that the parse did not define.
  if (CXFile main = clang_getFile(tu, take(clang_getTranslationUnitSpelling(tu)).c_str())) {
    if (CXSourceRangeList* ranges = clang_getSkippedRanges(tu, main)) {
      for (unsigned i = 0; i < ranges->count; ++i) {
        unsigned b = 0, e = 0;
        clang_getSpellingLocation(clang_getRangeStart(ranges->ranges[i]), nullptr, nullptr, nullptr, &b);
        clang_getSpellingLocation(clang_getRangeEnd(ranges->ranges[i]), nullptr, nullptr, nullptr, &e);
        if (b >= e || e > text.size()) continue;
        const std::size_t line_end = std::min<std::size_t>(text.find('\n', b), e);
        const std::string directive = text.substr(b, line_end - b);
        static const std::regex opening(R"(^\s*#\s*(if|ifdef|ifndef)\b(.*)$)");
        std::smatch m;
        if (!std::regex_match(directive, m, opening) || m[1] == "ifndef") continue;
        const std::string condition = m[2].str();
        if (condition.find("__") != std::string::npos) continue;  // the compilers' own macros: target-dependent
        model.disabled.emplace_back(b, e);
      }
      clang_disposeSourceRangeList(ranges);
    }
  }

  for (unsigned i = 0, n = clang_getNumDiagnostics(tu); i < n; ++i) {
    CXDiagnostic d = clang_getDiagnostic(tu, i);
    CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
    // With the toolkit's headers, errors inside them are clang 15 meeting a newer CUDA (texture templates, CCCL's
    // device-side variadics), not the source's: only the source's own errors are kept.
    bool in_main = clang_Location_isFromMainFile(clang_getDiagnosticLocation(d)) != 0;
    if (sev >= CXDiagnostic_Error && (in_main || model.headers != "toolkit")) {
      CXFile file = nullptr;
      unsigned line = 0, col = 0, off = 0;
      clang_getExpansionLocation(clang_getDiagnosticLocation(d), &file, &line, &col, &off);
      bool main_file = clang_Location_isFromMainFile(clang_getDiagnosticLocation(d)) != 0;
      std::string msg = take(clang_getDiagnosticSpelling(d));
      std::string where = main_file ? fmt::format("{}:{}", line, col) : take(clang_getFileName(file)) + fmt::format(":{}", line);
      model.errors.push_back(fmt::format("{}: {}", where, msg));
      if (main_file)
        for (auto& k : model.kernels)
          if (off >= k.decl_begin && off < k.decl_end) k.errors.push_back(model.errors.back());
    }
    clang_disposeDiagnostic(d);
  }
  return model;
}

}  // namespace rpl::optimize
