#pragma once
// Internal to src/optimize: the inline assembly statements of a kernel's text, read well enough for the structure
// gate to tell a hand-written optimization (ld.global.nc, cp.async, ldmatrix, mma.sync, prefetch, AMD's
// buffer_load / ds_* / v_*) from what opens a side channel the later gates cannot judge by the outputs alone. The
// binary structure gate still counts clock reads, prints, traps and exits in the compiled code, whatever the text.
#include <optional>
#include <string>
#include <vector>

namespace rpl::optimize {

struct AsmStatement {
  std::string templ;                      // the assembler template, string literals joined and unescaped
  std::vector<std::string> instructions;  // its mnemonics with their qualifiers: "ld.global.nc.v4.f32", "s_waitcnt"
  bool readable = true;                   // false: the template is not string literals (a macro, a constexpr string)
};

// The asm / __asm__ statements in text[begin, end), in order; comments, strings and character literals skipped.
std::vector<AsmStatement> asm_statements(const std::string& text, std::size_t begin, std::size_t end);

// Why an inline assembly statement cannot be admitted, or nullopt: a template the gate cannot read; an instruction
// that reads a timer or a performance counter (%clock, %globaltimer, %pm0.., s_memtime, s_memrealtime, s_getreg),
// stops or calls out (exit, ret, trap, brkpt, pmevent, call; s_trap, s_sethalt, s_setpc_b64); an atomic on memory
// other than shared memory (atom / red without .shared, a cp.reduce.async.bulk or multimem.red into global memory;
// AMD global_ / flat_ / buffer_atomic), whose target the parser cannot place. Comments in the template are skipped.
std::optional<std::string> inadmissible_asm(const AsmStatement& statement);

}  // namespace rpl::optimize
