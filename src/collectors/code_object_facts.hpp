#pragma once
// What the optimizer's gates judge on a compiled code object (an NVIDIA cubin, an AMD code object or offload
// bundle), whatever the source looked like: each kernel's ABI (mangled symbol, parameter block, launch bounds),
// the exported functions and data symbols, the external calls, and instruction-level findings (clock and timer
// reads, prints, traps) per function, from the machine code and, on NVIDIA, the PTX the compiler kept. Pure file
// reading plus the toolkit's own disassemblers when present (cuobjdump, llvm-objdump); no GPU is needed.
#include <cstdint>
#include <string>
#include <vector>

namespace rpl::collectors {

struct ParamSlot {
  uint32_t offset = 0;
  uint32_t size = 0;
  uint32_t align = 0;    // NVIDIA: 1 << the pointee's log alignment; AMD: the pointee alignment (0 when not given)
  std::string kind;      // AMD: "value_kind address_space [const] [restrict] [volatile]"; NVIDIA: ""
  bool operator==(const ParamSlot&) const = default;
};

struct KernelAbi {
  std::string symbol;                 // mangled: parameter types and template arguments
  std::vector<ParamSlot> params;      // explicit parameters, in order
  uint32_t param_block_size = 0;      // NVIDIA: EIATTR_CBANK_PARAM_SIZE; AMD: the end of the last explicit argument
  std::vector<std::string> bounds;    // launch bounds as the object states them: "max_threads 256 1 1",
                                      // "reqntid 128 1 1", "max_registers 128", "max_flat_workgroup_size 256", ...
  std::vector<std::string> hidden;    // AMD: hidden arguments' kinds (hostcall/printf buffers say a kernel prints)
  // Resources, for the facts the proposers are given (not compared by the gates: a faster kernel may use more)
  uint32_t registers = 0;             // per thread (NVIDIA EIATTR_REGCOUNT; AMD .vgpr_count)
  uint32_t static_shared_bytes = 0;   // per block (NVIDIA .nv.shared.<kernel>; AMD .group_segment_fixed_size)
};

// One instruction-level fact in one function.
struct CodeFinding {
  std::string function;  // the kernel or device function it is in
  std::string rule;      // "clock" (clock/timer read), "print", "trap", "exit" (early exit through inline asm),
                         // "atomic_on_input" (an atomic on a kernel's const input)
  std::string source;    // "PTX", "SASS", "ISA"
  std::string evidence;  // the instruction text
};

struct CodeObjectFacts {
  std::string vendor;                       // "nvidia" or "amd"
  std::string file;
  std::vector<KernelAbi> kernels;
  std::vector<std::string> functions;       // defined global function symbols, sorted (not nvcc's $__internal_ ones)
  std::vector<std::string> data_symbols;    // device data that outlives a launch ("name (section)"), sorted
  // Of data_symbols, the initialised ones the code only ever reads (NVIDIA: by the PTX, ptx_read_only_symbols; none
  // without PTX): a kernel-local `static constexpr` table nvcc places in .nv.global.init. Same form, sorted.
  std::vector<std::string> read_only_data;
  std::vector<std::string> externs;         // undefined functions called (vprintf, malloc, ...), sorted
  std::vector<CodeFinding> findings;
  std::vector<std::string> read;            // what was read: "cubin ELF", "PTX", "SASS (cuobjdump)", ...
  std::vector<std::string> notes;           // what could not be read, and why
};

// Reads `code_object` (a cubin, an AMD code object, or a clang offload bundle holding one); `ptx` is the PTX the
// compiler kept for it ("" when none). Throws rpl::Error(InputMissing/InputInvalid/InputCorrupt) when the file
// cannot be read as a code object.
CodeObjectFacts read_code_object_facts(const std::string& code_object, const std::string& ptx = {});

// Instruction-level findings from texts (exposed for tests on recorded outputs).
std::vector<CodeFinding> ptx_findings(const std::string& ptx);
std::vector<CodeFinding> sass_findings(const std::string& cuobjdump_sass);
// Of `symbols` (device data names), those the PTX only reads: no store, atomic, reduction, copy or call takes an
// address derived from one, and no other data's initialiser holds it (nvidia/ptx_address_flow.cpp).
std::vector<std::string> ptx_read_only_symbols(const std::string& ptx, const std::vector<std::string>& symbols);
// Atomics and reductions on an address derived from a kernel's `const T*` parameter (rule "atomic_on_input"): a side
// channel through memory the kernel only reads (nvidia/ptx_address_flow.cpp; one function's body: a pointer passed to
// a helper that is not inlined is not followed).
std::vector<CodeFinding> ptx_atomics_on_const_inputs(const std::string& ptx);
// Both from one reading of the PTX (what read_code_object_facts uses).
struct PtxAddressFacts {
  std::vector<std::string> read_only_symbols;
  std::vector<CodeFinding> atomics_on_const_inputs;
};
PtxAddressFacts ptx_address_facts(const std::string& ptx, const std::vector<std::string>& symbols);
std::vector<CodeFinding> amdgcn_findings(const std::string& llvm_objdump);

}  // namespace rpl::collectors
