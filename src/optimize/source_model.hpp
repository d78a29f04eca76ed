#pragma once
// The kernel source as a C++ parser sees it (libclang, Debian's libclang-15): which functions are kernels, each
// kernel's signature (parameters, types, qualifiers, template parameters, launch bounds, attributes), where its
// body and loops are, and what text lies outside it. CUDA/HIP sources parse without any GPU toolkit: the
// launch syntax `k<<<g, b>>>(args)` is blanked (offsets kept) and a small set of stub headers of our own
// (cuda_runtime.h, hip/hip_runtime.h, ...) declares the runtime API loosely; kernels are found by the
// `__global__` attribute the stubs turn into an annotation.
#include <cstddef>
#include <string>
#include <vector>

namespace rpl::optimize {

struct ParamInfo {
  std::string name;
  std::string type;            // as written, resolved by the parser ("const float *__restrict")
  std::string canonical_type;  // typedefs and aliases removed
};

struct LoopInfo {
  std::size_t offset = 0;      // byte offset of the loop keyword in the source
  unsigned line = 0;           // 1-based
  std::string kind;            // "for", "while", "do"
  int depth = 0;               // 0: outermost loop of the kernel
  bool innermost = true;       // holds no other loop
  bool has_pragma = false;     // a `#pragma unroll` (or nounroll) is already on it
};

// One atomic call in a kernel and the memory it updates, found from its first argument's root variable.
struct AtomicUse {
  std::string function;   // atomicAdd, __hip_atomic_fetch_add, ...
  std::string target;     // the root variable ("hist" for `&hist[i]`); a local pointer resolves to the parameter it
                          // was derived from
  std::string target_kind;  // "parameter", "shared" (block-local, dies with the launch), "local", "global", "unknown"
  unsigned line = 0;
};

struct KernelInfo {
  std::string name;
  std::string qualified_name;              // with namespaces
  bool is_template = false;
  std::vector<std::string> template_params;  // each template parameter's text, defaults included
  std::vector<ParamInfo> params;
  std::string return_type;
  std::vector<std::string> attributes;     // "global", "launch_bounds(256, 2)", "extern C", "static", ...
  std::size_t decl_begin = 0;              // byte range of the whole declaration (template header included)
  std::size_t body_begin = 0;              // the body's '{'
  std::size_t decl_end = 0;                // one past the body's '}'
  unsigned line = 0;
  std::vector<LoopInfo> loops;             // in source order
  std::vector<std::string> errors;         // parser errors located inside this kernel
  std::vector<AtomicUse> atomics;          // in source order
  std::vector<std::string> written_params; // pointer parameters the kernel stores through (directly or via a local
                                           // pointer derived from them), sorted
};

// A file-scope function definition with __device__ and without __global__: a helper kernels call.
struct DeviceFunction {
  std::string name;
  std::size_t begin = 0;       // byte range of the whole definition (template header included)
  std::size_t body_begin = 0;  // its body's '{'
  std::size_t end = 0;         // one past the body's '}'
  std::vector<std::string> param_types;  // canonical, in order (an operator's operands)
};

// A function declared without a body (a prototype): its name and byte range, the ';' included.
struct FunctionDeclaration {
  std::string name;
  std::size_t begin = 0, end = 0;
};

// A file-scope declaration that introduces a name and holds no state: a macro, a constant (const or constexpr, not
// __device__), a type (struct, class, union, enum, typedef or alias, templates included) or a namespace alias.
// Hand-written optimizations add them beside the kernel (`#define TILE 32`, `constexpr int kWarps = 8;`,
// `struct __align__(16) Pair`, `namespace cg = cooperative_groups;`); the guard admits those whose name is new.
struct FileScopeDecl {
  std::vector<std::string> names;  // the names it brings into its scope (an unscoped enum's enumerators too)
  std::string kind;            // "macro", "constant", "type", "namespace alias", "static assertion" (no name)
  std::size_t begin = 0;       // byte range of the whole declaration: a macro's from its '#' to its line's end
  std::size_t end = 0;         // (continuation lines included), a declaration's with its ';'
  bool specialization = false; // an explicit or partial specialization of a template (never a new name)
  // A constant neither constexpr (constinit) nor with an initialiser libclang evaluates: it is initialised when the
  // program starts, so its initialiser (a call, a constructor) can run host code before main.
  bool dynamic_init = false;
};

struct SourceModel {
  std::string path;
  std::string text;
  std::vector<KernelInfo> kernels;
  std::vector<std::string> errors;         // every parser error, "line:col: message"
  std::vector<std::string> includes;       // header names the source includes
  std::vector<std::string> device_globals; // file-scope __device__/__shared__/__constant__/__managed__ variables
  std::vector<DeviceFunction> device_functions;  // file-scope __device__ function definitions, in source order
  std::vector<FunctionDeclaration> prototypes;  // declarations without a body in the source itself
  std::vector<FileScopeDecl> file_scope_decls;   // in source order
  std::size_t includes_end = 0;            // one past the main file's last #include directive (0: none)
  std::string headers;                     // "toolkit": parsed with the installed CUDA's or ROCm's headers; "stubs": with ours,
                                           // whose errors never reject a candidate (the compiler is the parser of record)
  std::string toolkit;                     // the CUDA toolkit's or ROCm's folder when headers == "toolkit"
  // Byte ranges of the main file the preprocessor leaves out for every target: an `#if 0` block, or an `#ifdef` /
  // `#if defined` / `#if` of a macro that neither the file nor the flags define (a DEBUG switch). Blocks under the
  // compilers' own macros (`__CUDA_ARCH__`, any name with "__") and `#else` / `#elif` branches are never counted as
  // left out: the parser reads the host side, the compiler the device side too.
  std::vector<std::pair<std::size_t, std::size_t>> disabled;
  const KernelInfo* find(const std::string& name) const;
};

// Parses `text` (the contents of `path`; the path only names it and locates its own headers). Throws
// rpl::Error(InputInvalid) when libclang cannot build a translation unit at all. Parser errors are kept in
// `errors` (and per kernel), not thrown: the caller decides (a kernel with errors is unusable).
// `user_flags` are clang arguments for the application's own headers and macros (-I, -isystem, -D, -U, -include,
// -std), as parser_flags_from_compile_flags() makes them from the flags the application is compiled with.
SourceModel parse_source(const std::string& path, const std::string& text, const std::vector<std::string>& user_flags = {});

// The compile flags (nvcc's or hipcc's spelling, `--compile-flags`) that tell the parser where the application's
// headers are and which macros it defines, as clang arguments; every other flag (optimisation, architecture,
// code generation) is dropped, it does not change what the source means to a parser.
std::vector<std::string> parser_flags_from_compile_flags(const std::vector<std::string>& compile_flags);

// The source with the launch syntax `<<<...>>>` replaced by spaces, byte offsets unchanged.
std::string blank_launch_syntax(const std::string& text);


// The text outside the kernel's declaration, comments removed and whitespace runs collapsed: the code that must
// not change.
std::string text_outside(const std::string& text, const KernelInfo& kernel);

}  // namespace rpl::optimize
