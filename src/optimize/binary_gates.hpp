#pragma once
// The guard's gates on the compiled code objects (after the compile gate), which judge what runs whatever the
// source looked like to our parser:
// - binary_signature: the same exported functions, and every kernel's ABI unchanged: mangled symbol (parameter
//   types, template arguments), parameter block (offsets, sizes, alignment; AMD: value kind, address space,
//   qualifiers), required sizes (.reqntid; AMD reqd work-group size, kernarg alignment); launch bounds that only cap
//   (.maxntid, max registers; amdgpu-flat-work-group-size) may change, as optimizations do, when every captured
//   launch still fits them;
// - binary_structure: no new device data that outlives a launch (.nv.global/.nv.constantN; AMD .bss/.data), no new
//   external calls (vprintf, malloc, ...), and per function no more clock/timer reads, prints, traps or inline-asm
//   exits than the original's (PTX, SASS, AMD ISA) - a read hidden behind a macro or an inline function in
//   another header is found here.
#include <cstdint>
#include <vector>

#include "collectors/code_object_facts.hpp"
#include "optimize/static_gates.hpp"

namespace rpl::optimize {

// `gate` of the verdict is "binary_signature" or "binary_structure". launched_threads: the threads per block of each
// launch of the kernel that was captured or profiled (none known: changed bounds are admitted unchecked, and the replay
// judges them).
StaticVerdict check_binary_gates(const collectors::CodeObjectFacts& original, const collectors::CodeObjectFacts& candidate,
                                 const std::vector<uint64_t>& launched_threads = {});

nlohmann::json describe_facts(const collectors::CodeObjectFacts& facts);

}  // namespace rpl::optimize
