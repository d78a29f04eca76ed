#include "optimize/static_gates.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <set>

#include <fmt/ranges.h>

#include "optimize/inline_asm.hpp"
#include "optimize/memory_effects.hpp"
#include "support/comments.hpp"

namespace rpl::optimize {
namespace {

using nlohmann::json;

json describe(const KernelInfo& k) {
  json params = json::array();
  for (const auto& p : k.params) params.push_back({{"name", p.name}, {"type", p.type}, {"canonical_type", p.canonical_type}});
  return {{"name", k.qualified_name}, {"return_type", k.return_type}, {"template_params", k.template_params},
          {"attributes", k.attributes}, {"params", params}};
}

std::optional<StaticVerdict> compare_signature(const KernelInfo& a, const KernelInfo& b) {
  json ev = {{"original", describe(a)}, {"candidate", describe(b)}};
  if (a.qualified_name != b.qualified_name)
    return StaticVerdict::failed("signature", fmt::format("the kernel's scope changed ({} -> {})", a.qualified_name, b.qualified_name), ev);
  if (a.params.size() != b.params.size())
    return StaticVerdict::failed("signature", fmt::format("the kernel takes {} parameters; the candidate's takes {}", a.params.size(), b.params.size()), ev);
  for (std::size_t i = 0; i < a.params.size(); ++i) {
    const auto& p = a.params[i];
    const auto& q = b.params[i];
    if (p.type != q.type || p.canonical_type != q.canonical_type)
      return StaticVerdict::failed("signature", fmt::format("parameter {} ({}) changed type: '{}' -> '{}'", i + 1, p.name, p.type, q.type), ev);
  }
  if (a.template_params != b.template_params)
    return StaticVerdict::failed("signature", fmt::format("template parameters changed: <{}> -> <{}>", fmt::join(a.template_params, ", "),
                                         fmt::join(b.template_params, ", ")), ev);
  if (a.return_type != b.return_type)
    return StaticVerdict::failed("signature", fmt::format("return type changed: {} -> {}", a.return_type, b.return_type), ev);
  // Launch bounds may be added, changed or removed (an optimization caps registers with them); the binary gate
  // holds the compiled bounds against the captured launches. Every other attribute (linkage, storage) must stay.
  auto without_bounds = [](std::vector<std::string> attributes) {
    attributes.erase(std::remove_if(attributes.begin(), attributes.end(),
                                    [](const std::string& x) { return x.rfind("launch_bounds(", 0) == 0; }),
                     attributes.end());
    std::sort(attributes.begin(), attributes.end());
    return attributes;
  };
  if (without_bounds(a.attributes) != without_bounds(b.attributes))
    return StaticVerdict::failed("signature", fmt::format("attributes changed (linkage, storage): [{}] -> [{}]", fmt::join(a.attributes, ", "),
                                         fmt::join(b.attributes, ", ")), ev);
  return std::nullopt;
}

// Where two texts first differ, with a little context, for the evidence.
json first_difference(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  auto around = [&](const std::string& s) { return s.substr(i > 40 ? i - 40 : 0, 120); };
  return {{"at_normalized_offset", i}, {"original", around(a)}, {"candidate", around(b)}};
}

const std::set<std::string>& timer_identifiers() {
  static const std::set<std::string> ids = {"clock", "clock64", "__clock64", "__clock", "__globaltimer", "globaltimer",
                                            "wall_clock64", "__builtin_readcyclecounter", "__builtin_amdgcn_s_memtime",
                                            "__builtin_amdgcn_s_memrealtime", "__builtin_readsteadycounter", "s_memtime",
                                            "s_memrealtime", "__rdtsc", "clock_gettime", "time", "gettimeofday"};
  return ids;
}

const std::set<std::string>& print_identifiers() {
  static const std::set<std::string> ids = {"printf", "fprintf", "puts", "vprintf", "__assertfail", "__builtin_trap", "__trap",
                                            "__brkpt"};
  return ids;
}

// New atomics are allowed only on memory the original already writes (a pointer parameter it stores through or
// updates atomically) or on block-local shared memory, which dies with the launch; anything else (a read-only
// input, a global, memory the parser cannot place) would be a new side channel.
std::optional<StaticVerdict> check_new_atomics(const KernelInfo& a, const KernelInfo& b) {
  std::set<std::string> original_targets;
  for (const auto& u : a.atomics) original_targets.insert(u.target_kind + ":" + u.target);
  for (const auto& u : b.atomics) {
    if (original_targets.count(u.target_kind + ":" + u.target)) continue;
    bool written = u.target_kind == "parameter" &&
                   std::binary_search(a.written_params.begin(), a.written_params.end(), u.target);
    if (u.target_kind == "shared" || u.target_kind == "local" || written) continue;
    std::string what = u.target.empty() ? "memory the parser cannot place" : fmt::format("{} '{}'", u.target_kind, u.target);
    return StaticVerdict::failed("structure",
                fmt::format("the candidate adds an atomic operation ({}, line {}) on {}, which the original does not write",
                            u.function, u.line, what),
                {{"function", u.function}, {"target", u.target}, {"target_kind", u.target_kind}, {"line", u.line},
                 {"original_written_params", a.written_params}});
  }
  return std::nullopt;
}

}  // namespace

bool is_toolkit_header(const std::string& name) {
  static const std::set<std::string> exact = {
      "cuda_runtime.h", "cuda_runtime_api.h", "device_atomic_functions.h", "sm_20_atomic_functions.h",
      "sm_32_atomic_functions.h", "sm_70_rt.h", "sm_80_rt.h", "sm_90_rt.h", "cuda_fp6.h", "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda_fp4.h", "cooperative_groups.h", "mma.h",
      "cuda_pipeline.h", "cuda_awbarrier.h", "cuda_pipeline_primitives.h", "cuda_awbarrier_primitives.h",
      "cuda_awbarrier_helpers.h", "cuda_pipeline_helpers.h", "math_constants.h", "cuda_fp16.hpp", "cuda_bf16.hpp",
      "cuda_fp8.hpp", "cuda_texture_types.h", "texture_fetch_functions.h", "sm_20_intrinsics.h", "sm_30_intrinsics.h",
      "sm_32_intrinsics.h", "sm_35_intrinsics.h", "sm_60_atomic_functions.h", "sm_61_intrinsics.h",
      "vector_types.h", "vector_functions.h", "device_functions.h",
      "device_launch_parameters.h", "cuda/std/cstdint", "hip/hip_runtime.h", "hip/hip_fp16.h", "hip/hip_bf16.h",
      "hip/hip_cooperative_groups.h", "hip/hip_vector_types.h", "cub/cub.cuh", "hipcub/hipcub.hpp"};
  // The C and C++ standard library's own headers that device code uses (traits, fixed-width integers, limits,
  // math): they ship with the compiler and hold none of the application's code.
  static const std::set<std::string> standard = {
      "type_traits", "cstdint", "stdint.h", "cstddef", "stddef.h", "climits", "limits.h", "cfloat", "float.h", "limits",
      "utility", "cmath", "math.h", "array", "tuple", "bit", "numeric", "algorithm", "cassert", "assert.h", "initializer_list",
      "cstring", "string.h", "new", "iterator", "functional", "concepts", "complex", "cstdlib", "stdlib.h", "cstdio", "stdio.h"};
  if (exact.count(name) || standard.count(name)) return true;
  for (const char* prefix : {"cooperative_groups/", "cub/", "cuda/", "nv/", "thrust/", "hipcub/", "rocprim/",
                             "hip/amd_detail/amd_hip_"})
    if (name.rfind(prefix, 0) == 0 && name.find("..") == std::string::npos) return true;
  return false;
}

std::string without_toolkit_includes(const std::string& normalized) {
  // The text is whitespace-normalised: directives appear as "#include <name>" or "#include \"name\"".
  std::string out;
  std::size_t i = 0;
  while (i < normalized.size()) {
    std::size_t p = normalized.find("#include", i);
    if (p == std::string::npos) break;
    std::size_t q = p + 8;
    while (q < normalized.size() && normalized[q] == ' ') ++q;
    char open = q < normalized.size() ? normalized[q] : 0;
    char close = open == '<' ? '>' : open == '"' ? '"' : 0;
    std::size_t e = close ? normalized.find(close, q + 1) : std::string::npos;
    if (e == std::string::npos || !is_toolkit_header(normalized.substr(q + 1, e - q - 1))) {
      out.append(normalized, i, q - i);
      i = q;
      continue;
    }
    out.append(normalized, i, p - i);
    i = e + 1;
    while (i < normalized.size() && normalized[i] == ' ') ++i;
  }
  out.append(normalized, std::min(i, normalized.size()), std::string::npos);
  return out;
}

// The source with the blocks the preprocessor leaves out for every target blanked (newlines kept, offsets unchanged).
static std::string active_text(const SourceModel& m) {
  std::string out = m.text;
  for (const auto& [b, e] : m.disabled)
    for (std::size_t i = b; i < e && i < out.size(); ++i)
      if (out[i] != '\n') out[i] = ' ';
  return out;
}

// Timer names that are also ordinary variable names (a kernel's `float time` parameter): they count only where they
// are called, `time(` or `clock (`; the binary gate still finds a clock read in the code object whatever its spelling.
static bool counts_only_as_call(const std::string& id) { return id == "time" || id == "clock"; }

// Spaces from `from` to `to`: what a candidate adds, left out of the text compared with the original's.
static void blank(std::string& text, std::size_t from, std::size_t to) {
  std::fill(text.begin() + static_cast<std::ptrdiff_t>(from), text.begin() + static_cast<std::ptrdiff_t>(to), ' ');
}

void count_identifiers(const std::string& text, std::size_t begin, std::size_t end_at, std::map<std::string, int>& ids,
                       bool calls_apart) {
  std::size_t i = begin, end = std::min(end_at, text.size());
  while (i < end) {
    char c = text[i];
    if (c == '/' && i + 1 < end && text[i + 1] == '/') { while (i < end && text[i] != '\n') ++i; continue; }
    if (c == '/' && i + 1 < end && text[i + 1] == '*') {
      std::size_t e = text.find("*/", i + 2);
      i = e == std::string::npos ? end : e + 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      ++i;
      while (i < end && text[i] != c) i += text[i] == '\\' ? 2 : 1;
      ++i;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t s = i;
      while (i < end && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
      std::string id = text.substr(s, i - s);
      std::size_t next = i;  // what follows the identifier
      while (next < end && std::isspace(static_cast<unsigned char>(text[next]))) ++next;
      // `static constexpr`: a constant, not state that outlives a launch
      if (calls_apart && id == "static" && text.compare(next, 9, "constexpr") == 0 &&
          (next + 9 >= end || !(std::isalnum(static_cast<unsigned char>(text[next + 9])) || text[next + 9] == '_')))
        id = "static constexpr";
      if (calls_apart && counts_only_as_call(id) && (next >= end || text[next] != '('))
        id += " (not called)";  // kept apart from the timer's name
      ++ids[id];
      continue;
    }
    ++i;
  }
}

std::map<std::string, int> kernel_identifiers(const std::string& text, const KernelInfo& kernel) {
  std::map<std::string, int> ids;
  count_identifiers(text, kernel.decl_begin, kernel.decl_end, ids, true);
  return ids;
}

bool plain_identifier(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// The type an operand names, without qualifiers and references ("const float4 &" -> "float4").
std::string operand_type(std::string t) {
  static const std::regex noise(R"(\b(const|volatile|struct|class|union|enum)\b|&|\s)");
  return std::regex_replace(t, noise, "");
}

// CUDA's and HIP's vector types (float4, int2, uchar4, double2, ...): the toolkit defines no arithmetic on them, so
// an expression of the original that applies an operator to them would not compile; a new operator over them
// (helper_math.h's float4 operator+, say) cannot change what the original's code means.
bool toolkit_vector_type(const std::string& t) {
  static const std::regex vector(R"((u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4])");
  return std::regex_match(t, vector);
}

// An arithmetic, bitwise, comparison or compound-assignment operator function (`operator+`, `operator+=`,
// `operator==`), whose operands are all of the candidate's new types or toolkit vector types, and at least one of
// them: no expression of the original can resolve to it (C++ needs a class or enum operand, and the original has
// none of those types with that operator), so it is as new as a helper under a new name.
bool new_operator(const DeviceFunction& f, const std::set<std::string>& new_types) {
  static const std::regex symbol(R"(operator\s*(\+|-|\*|/|%|\^|&|\||~|!|<|>|\+=|-=|\*=|/=|%=|\^=|&=|\|=|<<|>>|<<=|>>=|==|!=|<=|>=))");
  static const std::regex scalar(R"((unsigned|signed|short|long|int|char|float|double|bool|__half|__nv_bfloat16|_Float16)+)");
  if (!std::regex_match(f.name, symbol) || f.param_types.empty()) return false;
  bool any_class = false;
  for (const std::string& p : f.param_types) {
    const std::string t = operand_type(p);
    if (new_types.count(t) || toolkit_vector_type(t)) any_class = true;
    else if (!std::regex_match(t, scalar))
      return false;  // an operand of a type the original has: its expressions could resolve here
  }
  return any_class;
}

// Whether text[from, to) is one declaration's head: no `;`, `{`, `}` or `#` that would end it or start other code.
bool one_declaration_head(const std::string& text, std::size_t from, std::size_t to) {
  return from < to && to <= text.size() && text.substr(from, to - from).find_first_of(";{}#") == std::string::npos;
}

// Whether [f.begin, f.end) holds exactly one function definition: a head with __device__ (one_declaration_head), the
// body from its '{' to its matching '}' at the end (comments and literals taken as they come: an unbalanced brace in
// one only makes this say no).
bool whole_definition(const std::string& text, const DeviceFunction& f) {
  if (f.body_begin >= f.end || f.end > text.size() || text[f.body_begin] != '{' || text[f.end - 1] != '}' ||
      !one_declaration_head(text, f.begin, f.body_begin) ||
      text.substr(f.begin, f.body_begin - f.begin).find("__device__") == std::string::npos)
    return false;
  int depth = 0;
  for (std::size_t i = f.body_begin; i < f.end; ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}' && --depth == 0 && i + 1 != f.end) return false;
    if (depth < 0) return false;
  }
  return depth == 0;
}

// The candidate's new helper functions: __device__ definitions whose name is an identifier that appears nowhere in
// the original (`known`: the original's identifiers), so no overload, specialisation or shadowing can change what the
// original's other code calls; and operators over the candidate's new types or toolkit vector types (new_operator).
// Blanks, in place (offsets kept), each #if/#ifdef/#ifndef block whose lines between its directives (#else, #elif,
// #endif) are all blank: once the candidate's additions are blanked, an include guard or an architecture switch around
// new helpers, which can only make those additions present or absent. Returns whether it blanked any; called until it
// does not, the blocks nest from the inside out.
bool blank_empty_conditionals(std::string& text) {
  static const std::regex block(
      R"((^|\n)([ \t]*#[ \t]*if(n?def)?\b[^\n]*(\s*\n[ \t]*#[ \t]*(else|elif)\b[^\n]*)*\s*\n[ \t]*#[ \t]*endif\b[^\n]*))");
  // comments are not code: looked for in a copy with them blanked (newlines kept), so the offsets hold for `text`
  const std::string code = blank_comments(text);
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), block); it != std::sregex_iterator(); ++it)
    spans.emplace_back(static_cast<std::size_t>(it->position(2)), static_cast<std::size_t>(it->position(2) + it->length(2)));
  for (const auto& [from, to] : spans) blank(text, from, to);
  return !spans.empty();
}

std::vector<DeviceFunction> new_device_functions(const std::map<std::string, int>& known, const SourceModel& candidate) {
  std::set<std::string> new_types;
  for (const FileScopeDecl& d : candidate.file_scope_decls)
    if (d.kind == "type" && !d.specialization)
      for (const std::string& n : d.names)
        if (plain_identifier(n) && !known.count(n)) new_types.insert(n);
  std::vector<DeviceFunction> out;
  for (const DeviceFunction& f : candidate.device_functions)
    if ((plain_identifier(f.name) && !known.count(f.name)) || new_operator(f, new_types)) out.push_back(f);
  return out;
}

std::string collapsed(const std::string& text) {
  std::string out;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

bool reserved_identifier(const std::string& name) {
  return name.size() >= 2 && name[0] == '_' && (name[1] == '_' || std::isupper(static_cast<unsigned char>(name[1])));
}

// The candidate's new file-scope declarations (FileScopeDecl): each of the names it declares is an identifier that
// appears nowhere in the original and is not reserved to the implementation, so that it cannot change what the
// original's own code means; a macro comes after the last #include, so that it cannot change a header either. The
// ones refused, with why, go to `refused` (for the message when the text outside the kernel then differs).
// Without a clean parse only macros and namespace aliases count: a macro's range comes from the preprocessor's
// record and the directive's text, which a parse error elsewhere does not move; a declaration's extent might, so an
// alias counts only when its range holds exactly the alias.
std::vector<FileScopeDecl> new_file_scope_decls(const std::map<std::string, int>& known, const SourceModel& original,
                                                const SourceModel& candidate, bool parsed, std::vector<std::string>& refused) {
  std::vector<FileScopeDecl> out;
  // (a namespace alias too, when its range holds exactly `namespace NAME = A::B;`: nothing else can hide there)
  static const std::regex alias(R"(namespace\s+[A-Za-z_]\w*\s*=\s*(::\s*)?[A-Za-z_]\w*(\s*::\s*[A-Za-z_]\w*)*\s*;)");
  for (const FileScopeDecl& d : candidate.file_scope_decls) {
    if (!parsed && d.kind != "macro" &&
        !(d.kind == "namespace alias" && std::regex_match(candidate.text.substr(d.begin, d.end - d.begin), alias)))
      continue;
    if (d.kind == "static assertion") {
      // It declares nothing, holds no state and emits no code: it can only make the compile fail. One the original
      // has, the same text, is the original's (the comparison of the text outside judges it).
      const std::string text = collapsed(candidate.text.substr(d.begin, d.end - d.begin));
      if (std::none_of(original.file_scope_decls.begin(), original.file_scope_decls.end(), [&](const FileScopeDecl& o) {
            return o.kind == d.kind && collapsed(original.text.substr(o.begin, o.end - o.begin)) == text;
          }))
        out.push_back(d);
      continue;
    }
    std::vector<std::string> names;
    for (const std::string& n : d.names)
      if (!n.empty() && n[0] != '(') names.push_back(n);  // an anonymous enum declares its enumerators only
    const std::string what = fmt::format("{} {}", d.kind, names.empty() ? std::string("(unnamed)") : fmt::format("{}", fmt::join(names, ", ")));
    std::string why;
    if (names.empty()) why = "declares no name";
    else if (d.specialization) why = "specializes a template (never a new name)";
    else if (d.dynamic_init)
      why = "is not initialised by a constant expression (its initialiser would run when the program starts, host code "
            "before main): declare it constexpr";
    for (const std::string& n : names) {
      if (!why.empty()) break;
      if (!plain_identifier(n)) why = "is not a plain identifier";
      else if (known.count(n)) why = fmt::format("reuses the name {}, which the original has", n);
      else if (reserved_identifier(n)) why = fmt::format("uses the reserved name {}", n);
    }
    if (why.empty() && d.kind == "macro" && d.begin < candidate.includes_end) why = "comes before an #include (it could change the header)";
    if (why.empty()) {
      out.push_back(d);
      continue;
    }
    // the original's own declarations, unchanged, are not additions (the comparison of the text outside judges them)
    const std::string text = collapsed(candidate.text.substr(d.begin, d.end - d.begin));
    const bool unchanged = std::any_of(original.file_scope_decls.begin(), original.file_scope_decls.end(), [&](const FileScopeDecl& o) {
      return o.kind == d.kind && o.names == d.names && collapsed(original.text.substr(o.begin, o.end - o.begin)) == text;
    });
    if (!unchanged) refused.push_back(fmt::format("new {} {}", what, why));
  }
  return out;
}

StaticVerdict check_static_gates(const SourceModel& original, const SourceModel& candidate, const std::string& kernel) {
  const KernelInfo* a = original.find(kernel);
  if (!a) return StaticVerdict::failed("signature", fmt::format("kernel {} is not in the original source", kernel));
  const KernelInfo* b = candidate.find(kernel);
  if (!b) return StaticVerdict::failed("signature", fmt::format("the candidate has no kernel named {} (or it no longer parses as one)", kernel),
                      {{"candidate_errors", candidate.errors}});
  // The compiler is the parser of record: our parse failing (stub headers, or clang 15 meeting a newer toolkit)
  // is never a reason to reject. The AST-level checks (signature as written, atomics) then stand aside and the
  // signature is judged on the compiled code object (binary gates).
  // (both must also have been parsed the same way: a candidate whose headers made the parser fall back to the stubs
  // spells its types and attributes differently)
  const bool parsed = a->errors.empty() && b->errors.empty() && original.headers == candidate.headers;
  json deferred = json::object();
  if (!parsed)
    deferred = {{"parser_errors", b->errors.empty() ? a->errors : b->errors},
                {"parser_headers", {{"original", original.headers}, {"candidate", candidate.headers}}},
                {"deferred_to", "the compiler and the code object's signature (binary gates)"}};
  if (parsed)
    if (auto v = compare_signature(*a, *b)) return *v;

  std::vector<std::string> new_globals;
  for (const auto& g : candidate.device_globals)
    if (std::find(original.device_globals.begin(), original.device_globals.end(), g) == original.device_globals.end())
      new_globals.push_back(g);
  if (!new_globals.empty())
    return StaticVerdict::failed("structure", fmt::format("new device variable(s) that outlive a launch: {}", fmt::join(new_globals, ", ")),
                {{"new_device_globals", new_globals}});

  // New helper functions the kernel may call are the candidate's own (the same checks as the kernel's body below).
  // So are new macros, constants, types and namespace aliases (new names only), judged as the kernel's text is.
  std::map<std::string, int> known;  // the original's identifiers: what an addition's name must not be
  count_identifiers(original.text, 0, original.text.size(), known, false);
  // Without a clean parse (the stub headers, a kernel calling what they do not declare) a helper counts only when its
  // range is exactly one definition: declaration specifiers with __device__, then a body whose braces balance.
  std::vector<DeviceFunction> helpers = new_device_functions(known, candidate);
  if (!parsed)
    helpers.erase(std::remove_if(helpers.begin(), helpers.end(),
                                 [&](const DeviceFunction& f) { return !whole_definition(candidate.text, f); }),
                  helpers.end());
  std::vector<std::string> refused_decls;
  const std::vector<FileScopeDecl> decls = new_file_scope_decls(known, original, candidate, parsed, refused_decls);
  std::string candidate_without_helpers = candidate.text;
  for (const DeviceFunction& f : helpers) blank(candidate_without_helpers, f.begin, f.end);
  for (const FileScopeDecl& d : decls) blank(candidate_without_helpers, d.begin, d.end);
  // `#undef NAME` of a macro the candidate adds (defined before the kernel, undefined after it) is part of the addition.
  {
    std::set<std::string> new_macros;
    for (const FileScopeDecl& d : decls)
      if (d.kind == "macro") new_macros.insert(d.names.begin(), d.names.end());
    static const std::regex undef(R"((^|\n)[ \t]*#[ \t]*undef[ \t]+([A-Za-z_]\w*)[ \t]*(?=\n|$))");
    for (auto it = std::sregex_iterator(candidate.text.begin(), candidate.text.end(), undef); it != std::sregex_iterator(); ++it)
      if (new_macros.count((*it)[2].str()))
        blank(candidate_without_helpers, static_cast<std::size_t>(it->position(0) + it->length(1)),
              static_cast<std::size_t>(it->position(0) + it->length(0)));
  }
  // A forward declaration of a new helper (`__device__ float half_of(float);` before the kernel, the definition
  // after it) is part of the helper: the prototypes libclang found, each its exact range (a text search once reached
  // back over a refused `#define` right before the prototype and blanked it too).
  for (const FunctionDeclaration& p : candidate.prototypes)
    if (std::any_of(helpers.begin(), helpers.end(), [&](const DeviceFunction& f) { return f.name == p.name; }) &&
        (parsed || (p.end > p.begin && candidate.text[p.end - 1] == ';' && one_declaration_head(candidate.text, p.begin, p.end - 1))))
      blank(candidate_without_helpers, p.begin, p.end);
  // An explicit instantiation of a new helper template or type (`template __device__ float times<2>(float);`,
  // `extern template ...`, `template struct Tile<4>;`) is part of it: it names only the addition, and libclang gives
  // it no cursor, so it is read from the text.
  {
    std::set<std::string> added;
    for (const DeviceFunction& f : helpers) added.insert(f.name);
    for (const FileScopeDecl& d : decls)
      if (d.kind == "type") added.insert(d.names.begin(), d.names.end());
    static const std::regex instantiation(
        R"((^|[;}\n])(\s*(extern\s+)?template\s+(?!<)[^;{}<>()]*?\b([A-Za-z_]\w*)\s*<[^;{}<>]*>\s*(\([^;{}]*\))?\s*;))");
    const std::string code = blank_comments(candidate_without_helpers);
    for (auto it = std::sregex_iterator(code.begin(), code.end(), instantiation); it != std::sregex_iterator(); ++it)
      if (added.count((*it)[4].str()))
        blank(candidate_without_helpers, static_cast<std::size_t>(it->position(2)),
              static_cast<std::size_t>(it->position(2) + it->length(2)));
  }
  // A namespace under a new name, or an anonymous one, that holds only the candidate's additions is part of them
  // (what is left of it once they are blanked is `namespace detail { }`); nested ones, from the inside out.
  for (bool blanked = true; blanked;) {
    // (`inline namespace`, and C++17's nested `namespace a::b { }` too: each of its names must be new)
    static const std::regex empty_namespace(R"(\b(inline\s+)?namespace(\s+([A-Za-z_]\w*(\s*::\s*[A-Za-z_]\w*)*))?\s*\{\s*\})");
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    for (auto it = std::sregex_iterator(candidate_without_helpers.begin(), candidate_without_helpers.end(), empty_namespace);
         it != std::sregex_iterator(); ++it) {
      static const std::regex part(R"([A-Za-z_]\w*)");
      const std::string names = (*it)[3].str();
      bool taken = false;
      for (auto p = std::sregex_iterator(names.begin(), names.end(), part); p != std::sregex_iterator(); ++p)
        taken = taken || known.count(p->str()) || reserved_identifier(p->str());
      if (taken) continue;
      spans.emplace_back(static_cast<std::size_t>(it->position(0)), static_cast<std::size_t>(it->position(0) + it->length(0)));
    }
    for (const auto& [from, to] : spans) blank(candidate_without_helpers, from, to);
    blanked = !spans.empty();
    blanked = blank_empty_conditionals(candidate_without_helpers) || blanked;
  }
  // (the same on the original's text: an empty conditional block there is nothing either)
  std::string original_text = original.text;
  while (blank_empty_conditionals(original_text)) {
  }
  std::string out_a = without_toolkit_includes(text_outside(original_text, *a)),
              out_b = without_toolkit_includes(text_outside(candidate_without_helpers, *b));
  if (out_a != out_b) {
    json evidence = first_difference(out_a, out_b);
    if (!refused_decls.empty()) evidence["refused_additions"] = refused_decls;
    return StaticVerdict::failed("signature", fmt::format("the candidate changes code outside the kernel (other functions, globals, "
                             "macros, host code or launches must stay as they are; new helper functions, macros, constants and "
                             "types may be added under new names){}", refused_decls.empty() ? "" : ": " + fmt::format("{}", fmt::join(refused_decls, "; "))),
                             evidence);
  }

  // What the kernels, helpers and declarations hold is read without the blocks the preprocessor leaves out for every
  // target (`#if 0`, an undefined DEBUG switch: SourceModel::disabled): a printf there is not in the code.
  const std::string original_active = active_text(original), candidate_active = active_text(candidate);
  auto ia = kernel_identifiers(original_active, *a), ib = kernel_identifiers(candidate_active, *b);
  for (const DeviceFunction& f : helpers) count_identifiers(candidate_active, f.body_begin, f.end, ib, true);
  std::map<std::string, int> ib_with_decls = ib;  // a macro or a type's member functions can hold what the kernel may not
  for (const FileScopeDecl& d : decls) count_identifiers(candidate_active, d.begin, d.end, ib_with_decls, true);
  auto count = [](const std::map<std::string, int>& m, const std::string& id) {
    auto it = m.find(id);
    return it == m.end() ? 0 : it->second;
  };
  std::string kernel_text_b = candidate_active.substr(b->decl_begin, b->decl_end - b->decl_begin);
  for (const DeviceFunction& f : helpers) kernel_text_b += candidate_active.substr(f.body_begin, f.end - f.body_begin);
  for (const FileScopeDecl& d : decls) kernel_text_b += candidate_active.substr(d.begin, d.end - d.begin);
  std::string kernel_text_a = original_active.substr(a->decl_begin, a->decl_end - a->decl_begin);
  for (const auto& [id, n] : ib_with_decls) {
    if (timer_identifiers().count(id) && n > count(ia, id))
      return StaticVerdict::failed("structure", fmt::format("the candidate reads a clock or timer ({})", id), {{"identifier", id}});
    if (print_identifiers().count(id) && n > count(ia, id))
      return StaticVerdict::failed("structure", fmt::format("the candidate prints or traps ({})", id), {{"identifier", id}});
    // (a file-scope `static constexpr` is a constant with internal linkage, not state: counted in the kernel's text only)
    if (id == "static" && count(ib, id) > count(ia, id))
      return StaticVerdict::failed("structure", "the candidate adds a static variable (state that outlives a launch)", {{"identifier", id}});
  }
  // Inline assembly the original does not have: hand-written optimizations use it (ld.global.nc, cp.async, mma.sync,
  // ldmatrix); what the outputs cannot judge (timers, traps, exits, calls, atomics on memory the parser cannot place)
  // is refused. The statements the original has, the same text, are the original's.
  std::vector<AsmStatement> original_asm = asm_statements(original_active, a->decl_begin, a->decl_end);
  json added_asm = json::array();
  std::vector<AsmStatement> candidate_asm = asm_statements(candidate_active, b->decl_begin, b->decl_end);
  for (const DeviceFunction& f : helpers)
    for (AsmStatement& st : asm_statements(candidate_active, f.body_begin, f.end)) candidate_asm.push_back(std::move(st));
  for (const FileScopeDecl& d : decls)
    for (AsmStatement& st : asm_statements(candidate_active, d.begin, d.end)) candidate_asm.push_back(std::move(st));
  for (const AsmStatement& st : candidate_asm) {
    auto same = std::find_if(original_asm.begin(), original_asm.end(), [&](const AsmStatement& o) {
      return o.readable == st.readable && o.templ == st.templ;
    });
    if (same != original_asm.end()) {
      original_asm.erase(same);
      continue;
    }
    if (auto why = inadmissible_asm(st))
      return StaticVerdict::failed("structure", fmt::format("the candidate adds {}", *why), {{"asm_template", st.templ}});
    added_asm.push_back({{"template", st.templ}, {"instructions", st.instructions}});
  }
  if (parsed)
    if (auto v = check_new_atomics(*a, *b)) return *v;
  for (const char* needle : {"globaltimer", "clock"})
    if (kernel_text_b.find(std::string("%") + needle) != std::string::npos &&
        kernel_text_a.find(std::string("%") + needle) == std::string::npos)
      return StaticVerdict::failed("structure", fmt::format("the candidate reads the %{} register", needle));
  json added_decls = json::array(), helper_names = json::array();
  for (const FileScopeDecl& d : decls) added_decls.push_back({{"kind", d.kind}, {"names", d.names}});
  for (const DeviceFunction& f : helpers) helper_names.push_back(f.name);
  if (!parsed) {
    if (!added_asm.empty()) deferred["added_inline_asm"] = added_asm;
    if (!decls.empty()) deferred["added_declarations"] = added_decls;
    if (!helpers.empty()) deferred["added_device_functions"] = helper_names;
    return {true, "structure", "text outside the kernel and kernel tokens unchanged; the parser could not read the kernel, so "
                               "its signature is judged on the code object", deferred};
  }
  json added = json::object();
  if (!helpers.empty()) added["added_device_functions"] = helper_names;
  if (!decls.empty()) added["added_declarations"] = added_decls;
  if (!added_asm.empty()) added["added_inline_asm"] = added_asm;
  if ((!helpers.empty() || !decls.empty()) && added_asm.empty())
    return {true, "structure", fmt::format("signature, text outside the kernel and structure unchanged; {} new device "
                                           "function{} and {} new declaration{} (macros, constants, types) under new names, "
                                           "checked as the kernel's body is",
                                           helpers.size(), helpers.size() == 1 ? "" : "s", decls.size(), decls.size() == 1 ? "" : "s"),
            added};
  if (!added_asm.empty())
    return {true, "structure", fmt::format("signature, text outside the kernel and structure unchanged; {} inline assembly "
                                           "statement{} added, none that reads a timer, traps, exits, calls out or adds "
                                           "an atomic outside shared memory", added_asm.size(), added_asm.size() == 1 ? "" : "s"),
            added};
  return {true, "structure", "signature, text outside the kernel and structure unchanged", json::object()};
}

}  // namespace rpl::optimize
