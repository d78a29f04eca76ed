#pragma once
// Internal to src/optimize: what memory a kernel body updates, from the parser's AST: its atomic calls and their
// targets, and the pointer parameters it stores through. The structure gate uses it to tell an atomic on memory
// the kernel already writes (or on block-local shared memory) from one that opens a new side channel.
#include <clang-c/Index.h>

#include <string>

#include "optimize/source_model.hpp"

namespace rpl::optimize {

// Fills kernel.atomics and kernel.written_params from the kernel's body.
void collect_memory_effects(CXCursor body, const std::string& text, KernelInfo& kernel);

// Whether an identifier names an atomic read-modify-write (CUDA, HIP, the compilers' builtins).
bool is_atomic_function(const std::string& name);

}  // namespace rpl::optimize
