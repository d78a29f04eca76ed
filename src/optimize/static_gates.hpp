#pragma once
// The guard's first two gates, decided on the parsed sources alone (no compiler, no GPU):
// - signature: the kernel's parameters (types and qualifiers, as written and canonical), template parameters
//   (defaults included), return type, attributes (__global__, __launch_bounds__, linkage, storage) are
//   unchanged, and so is every byte (up to whitespace) outside the kernel: other functions, globals, macros,
//   host code, launches;
// - structure: no new file-scope __device__/__shared__/__constant__/__managed__ variables (state that outlives a
//   launch), and inside the kernel no reads of clocks or timers, no printf, no new atomics on memory the original does not write (block-local
//   shared memory excepted), no asm the original did not have.
// A kernel the parser cannot read (stub headers, or a newer toolkit than clang 15 knows) is not rejected for that:
// the AST-level checks stand aside and the compiled code object decides (binary_gates.hpp).
// Order of the checks: kernel signature, new device globals, text outside the kernel, kernel tokens, so that
// each adversarial change is reported by the rule it breaks.
#include <map>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "optimize/source_model.hpp"

namespace rpl::optimize {

struct StaticVerdict {
  bool passed = true;
  std::string gate;     // "signature" or "structure" (the gate that failed; "structure" when all passed)
  std::string reason;
  nlohmann::json evidence = nlohmann::json::object();

  static StaticVerdict failed(std::string gate, std::string reason, nlohmann::json evidence = nlohmann::json::object()) {
    return {false, std::move(gate), std::move(reason), std::move(evidence)};
  }
};

StaticVerdict check_static_gates(const SourceModel& original, const SourceModel& candidate, const std::string& kernel);

// Headers of the GPU toolkit itself (cuda_bf16.h, cooperative_groups.h, cub/..., their HIP counterparts): a
// candidate may include them (they change no ABI and real optimizations need them).
bool is_toolkit_header(const std::string& name);
// A text_outside() text with its #include directives of toolkit headers removed.
std::string without_toolkit_includes(const std::string& normalized);

// Identifiers of the kernel's text (comments and string literals skipped), with how often each occurs.
std::map<std::string, int> kernel_identifiers(const std::string& text, const KernelInfo& kernel);

}  // namespace rpl::optimize
