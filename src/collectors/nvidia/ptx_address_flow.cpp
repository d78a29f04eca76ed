// Where addresses flow in a module's PTX (code_object_facts.hpp): which device data symbols the code only ever reads
// (ptx_read_only_symbols), and which atomics act on a kernel's read-only inputs (ptx_atomics_on_const_inputs).
//
// nvcc places a kernel-local `static constexpr` table that the kernel indexes at run time in `.nv.global.init`:
// writable device memory that outlives a launch, like a `__device__` variable. Whether it can carry anything from
// one launch to the next is a question of what the code does with its address, and the PTX answers it: every
// register that holds an address derived from the symbol (moved, converted, offset, selected) is followed, flow-
// insensitively, through each function; the symbol is read-only when no store, atomic, reduction, copy or call takes
// such a register, and no other data's initialiser takes its address. A 64-bit value loaded through such an address
// is followed too (a table of pointers). Whatever cannot be read as an instruction counts against the symbol.
// The same following from a kernel's `const T*` parameters finds an atomic on an input (a side channel through
// memory the original only reads), which the static gate cannot see when the kernel does not parse, or when the
// address went through memory (a pointer kept in a `__shared__` variable).
#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "collectors/code_object_facts.hpp"
#include "support/comments.hpp"
#include "support/demangle.hpp"

namespace rpl::collectors {
namespace {

struct Statement {
  std::size_t function = 0;  // which function body it is in (0: outside every function)
  std::string header;        // a function's header (`.visible .entry NAME(params)`): the function it opens
  bool directive = false;    // `.reg`, `.global ... = {...}`, `.pragma`: not an instruction
  std::string mnemonic;      // "ld.global.nc.f32"
  std::vector<std::string> operands;
  std::vector<std::vector<std::string>> tokens;  // each operand's registers and names, read once
  std::string text;
};

// `s` split at the commas outside the brackets `opens`/`closes` name: a PTX instruction's operands (braces, brackets,
// parentheses), a demangled signature's parameters (angle brackets, parentheses).
std::vector<std::string> split_top_level(const std::string& s, const std::string& opens, const std::string& closes) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (opens.find(c) != std::string::npos) ++depth;
    if (closes.find(c) != std::string::npos) --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (cur.find_first_not_of(" \t\r\n") != std::string::npos) out.push_back(cur);
  return out;
}

// The registers (`%rd11`) and names (`_ZZ1kPfE1t`) in an operand, in order.
std::vector<std::string> tokens_of(const std::string& operand) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < operand.size();) {
    const char c = operand[i];
    if (c == '%' || c == '$' || c == '_' || std::isalpha(static_cast<unsigned char>(c))) {
      std::size_t e = i + 1;
      while (e < operand.size() && word(operand[e])) ++e;
      out.push_back(operand.substr(i, e - i));
      i = e;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {  // a number (0f3F800000, 16): not a name
      while (i < operand.size() && word(operand[i])) ++i;
    } else {
      ++i;
    }
  }
  return out;
}

std::vector<Statement> statements(const std::string& ptx) {
  static const std::regex labels(R"(^\s*(?:[$%\w.]+:(?!:)\s*)+)");  // not `shared::cta`
  static const std::regex guard(R"(^\s*@!?%\w+\s+)");
  std::vector<Statement> out;
  const std::string text = blank_comments(ptx);
  std::size_t function = 0;
  int depth = 0;
  std::string cur;
  auto flush = [&] {
    std::string s = std::regex_replace(cur, labels, "");
    cur.clear();
    if (s.find(".entry") != std::string::npos || s.find(".func") != std::string::npos) {
      // a function's header (`.visible .entry name(params)`): its body is the next brace block
      if (depth == 0) {
        ++function;
        Statement h;
        h.function = function;
        h.header = s;
        out.push_back(std::move(h));
      }
      return;
    }
    s = std::regex_replace(s, guard, "");
    const std::size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return;
    s = s.substr(b);
    Statement st;
    st.function = depth > 0 ? function : 0;
    st.text = s;
    st.directive = s[0] == '.';
    const std::size_t e = s.find_first_of(" \t\r\n");
    st.mnemonic = s.substr(0, e);
    if (e != std::string::npos) st.operands = split_top_level(s.substr(e), "{[(", "}])");
    for (const std::string& op : st.operands) st.tokens.push_back(tokens_of(op));
    out.push_back(std::move(st));
  };
  // A brace opens or closes a block (a function's body, a scope inline assembly opens) where a statement would
  // start, or after a function's header; elsewhere it is a vector operand's or an initialiser's.
  auto at_statement_start = [&] {
    const std::string s = std::regex_replace(cur, labels, "");
    return s.find_first_not_of(" \t\r\n") == std::string::npos || s.find(".entry") != std::string::npos ||
           s.find(".func") != std::string::npos;
  };
  for (char c : text) {
    if (c == ';') {
      flush();
    } else if (c == '{' && at_statement_start()) {
      flush();
      ++depth;
    } else if (c == '}' && depth > 0 && at_statement_start()) {
      flush();
      --depth;
    } else {
      cur += c;
    }
  }
  flush();
  return out;
}

bool mentions(const std::vector<std::string>& tokens, const std::set<std::string>& tainted) {
  return std::any_of(tokens.begin(), tokens.end(), [&](const std::string& t) { return tainted.count(t) > 0; });
}

bool mentions(const std::string& text, const std::set<std::string>& tainted) { return mentions(tokens_of(text), tainted); }

std::vector<std::string> registers_in(const std::string& operand) {
  std::vector<std::string> out = tokens_of(operand);
  out.erase(std::remove_if(out.begin(), out.end(), [](const std::string& t) { return t[0] != '%'; }), out.end());
  return out;
}

std::string base_of(const std::string& mnemonic) { return mnemonic.substr(0, mnemonic.find('.')); }

bool writes_memory(const std::string& mnemonic) {
  static const std::set<std::string> bases = {"st", "red", "atom", "stmatrix", "multimem", "cp", "tensormap", "call",
                                              "wmma", "sured", "sust", "suq", "mbarrier"};
  const std::string base = base_of(mnemonic);
  if (base == "wmma") return mnemonic.find(".store") != std::string::npos;
  return bases.count(base) > 0;
}

bool loads(const std::string& mnemonic) {
  const std::string base = base_of(mnemonic);
  return base == "ld" || base == "ldu" || base == "prefetch" || base == "prefetchu" || base == "ldmatrix";
}

bool loads_64_bit(const std::string& mnemonic) {
  return mnemonic.find(".u64") != std::string::npos || mnemonic.find(".b64") != std::string::npos ||
         mnemonic.find(".s64") != std::string::npos;
}

// The module's statements by function (0: outside every function), and where each symbol asked about is named.
struct Program {
  std::vector<std::vector<const Statement*>> functions;
  std::vector<std::string> headers;                       // each function's header ("" for 0)
  std::map<std::string, std::set<std::size_t>> named_in;  // symbol -> the functions (0: a directive outside) naming it
};

Program index(const std::vector<Statement>& statements_read, const std::set<std::string>& asked) {
  Program program;
  for (const Statement& st : statements_read) {
    if (program.functions.size() <= st.function) {
      program.functions.resize(st.function + 1);
      program.headers.resize(st.function + 1);
    }
    if (!st.header.empty()) {
      program.headers[st.function] = st.header;
      continue;
    }
    program.functions[st.function].push_back(&st);
    // a directive's names are not split into operands (`.global ... sym[16] = {...}`): read from its text
    for (const std::string& t : st.directive ? tokens_of(st.text) : std::vector<std::string>{})
      if (asked.count(t)) program.named_in[t].insert(st.function);
    for (const auto& op : st.tokens)
      for (const std::string& t : op)
        if (asked.count(t)) program.named_in[t].insert(st.function);
  }
  if (program.functions.empty()) {
    program.functions.resize(1);
    program.headers.resize(1);
  }
  return program;
}

// The state space a load or store names (`ld.shared.u64`: "shared"; `st.local`, `ld.global.nc`), "" when generic.
std::string state_space(const std::string& mnemonic) {
  for (const char* space : {"shared", "local", "global", "param", "const"})
    if (mnemonic.find(std::string(".") + space) != std::string::npos) return space;
  return "";
}

// Follows the registers holding an address derived from `tainted`'s names through `body`, flow-insensitively, and
// hands each instruction that writes memory (store, atomic, reduction, copy, call) and takes one to `on_write`; an
// instruction that has one only as its destination goes to `on_write` too. Stops, returning false, when `on_write`
// does. An address stored to memory as a 64-bit value (a pointer kept in a `__shared__` variable) taints every
// 64-bit value loaded from that state space (any, for a generic store): the registers do not carry it there.
template <class OnWrite>
bool follow(const std::vector<const Statement*>& body, std::set<std::string> tainted, OnWrite on_write) {
  static const std::set<std::string> no_effect = {"bra", "ret", "exit", "bar", "barrier", "membar", "fence", "trap",
                                                  "brkpt", "nanosleep", "pmevent", "setmaxnreg"};
  std::set<const Statement*> reported;
  std::set<std::string> holding;  // state spaces an address was stored to
  const auto loaded_from_holding = [&](const Statement& st) {
    if (holding.empty() || !loads(st.mnemonic) || !loads_64_bit(st.mnemonic)) return false;
    const std::string space = state_space(st.mnemonic);
    if (space == "param" || space == "const") return false;  // a kernel's parameters, a call's arguments
    return holding.count("") > 0 || space.empty() || holding.count(space) > 0;
  };
  for (bool grew = true; grew;) {
    grew = false;
    for (const Statement* st : body) {
      if (st->directive || st->operands.empty()) continue;
      if (loaded_from_holding(*st))
        for (const std::string& r : registers_in(st->operands[0]))
          if (tainted.insert(r).second) grew = true;
      bool any = false;
      for (const auto& t : st->tokens) any = any || mentions(t, tainted);
      if (!any) continue;
      if (writes_memory(st->mnemonic)) {
        bool value = false;  // a store's value operands (after the address) hold the address itself
        for (std::size_t i = 1; base_of(st->mnemonic) == "st" && i < st->tokens.size(); ++i) value = value || mentions(st->tokens[i], tainted);
        const std::string space = state_space(st->mnemonic);  // `st.param` passes a call's argument: not memory kept
        if (value && loads_64_bit(st->mnemonic) && space != "param" && holding.insert(space).second) grew = true;
        if (reported.insert(st).second && !on_write(*st)) return false;
        continue;
      }
      if (no_effect.count(base_of(st->mnemonic))) continue;
      if (loads(st->mnemonic)) {
        // the address is read from; only a loaded address (a table of pointers) is followed
        if (!loads_64_bit(st->mnemonic)) continue;
      } else {
        bool source = false;  // the destination is the first operand; a source must be tainted
        for (std::size_t i = 1; i < st->tokens.size(); ++i) source = source || mentions(st->tokens[i], tainted);
        if (!source) {  // the symbol or an address from it written as a destination: not an instruction read
          if (reported.insert(st).second && !on_write(*st)) return false;
          continue;
        }
      }
      for (const std::string& r : registers_in(st->operands[0]))
        if (tainted.insert(r).second) grew = true;
    }
  }
  return true;
}

// Whether the PTX only reads `symbol`.
bool only_read(const Program& program, const std::string& symbol) {
  const auto named = program.named_in.find(symbol);
  if (named == program.named_in.end()) return true;  // never used
  const std::set<std::string> sym{symbol};
  for (std::size_t f : named->second) {
    if (f != 0) continue;
    // outside every function: its own declaration names it first; any other data's initialiser that takes its address
    for (const Statement* st : program.functions[0]) {
      const std::size_t eq = st->text.find('=');
      if (eq == std::string::npos || !mentions(st->text.substr(eq), sym)) continue;
      if (!mentions(st->text.substr(0, eq), sym)) return false;  // another symbol's initialiser holds this one's address
    }
  }
  // only the functions that name the symbol can hold an address derived from it
  for (std::size_t f : named->second)
    if (f != 0 && !follow(program.functions[f], sym, [](const Statement&) { return false; })) return false;
  return true;
}

// The `const T*` parameters of kernel `kernel`, as PTX names them (`NAME_param_1`), from its mangled name (`float
// const*`, restrict or not); none when the name does not demangle to a signature.
std::set<std::string> const_pointer_params(const std::string& kernel) {
  static const std::regex const_pointer(R"(\bconst\s*\*\s*(__restrict__|__restrict|restrict)?\s*$)");
  const std::string signature = demangle(kernel);
  const std::size_t open = signature.find('('), close = signature.rfind(')');
  std::set<std::string> inputs;
  if (open == std::string::npos || close == std::string::npos || close < open) return inputs;
  std::vector<std::string> params = split_top_level(signature.substr(open + 1, close - open - 1), "<(", ">)");
  for (std::size_t i = 0; i < params.size(); ++i)
    if (std::regex_search(params[i], const_pointer)) inputs.insert(kernel + "_param_" + std::to_string(i));
  return inputs;
}

std::vector<CodeFinding> atomics_on_const_inputs(const Program& program) {
  static const std::regex entry(R"(\.entry\s+([\w$]+))");
  std::vector<CodeFinding> out;
  for (std::size_t f = 1; f < program.functions.size(); ++f) {
    std::smatch m;
    if (!std::regex_search(program.headers[f], m, entry)) continue;
    const std::string kernel = m[1];
    const std::set<std::string> inputs = const_pointer_params(kernel);
    if (inputs.empty()) continue;
    follow(program.functions[f], inputs, [&](const Statement& st) {
      const std::string base = base_of(st.mnemonic);
      // a bulk reduction (cp.reduce.async.bulk) or a multimem reduction is an atomic too
      if (base == "atom" || base == "red" || st.mnemonic.rfind("cp.reduce", 0) == 0 || st.mnemonic.rfind("multimem.red", 0) == 0)
        out.push_back({kernel, "atomic_on_input", "PTX", st.text});
      return true;
    });
  }
  return out;
}

}  // namespace

PtxAddressFacts ptx_address_facts(const std::string& ptx, const std::vector<std::string>& symbols) {
  const std::vector<Statement> statements_read = statements(ptx);
  const Program program = index(statements_read, std::set<std::string>(symbols.begin(), symbols.end()));
  PtxAddressFacts out;
  for (const std::string& s : symbols)
    if (only_read(program, s)) out.read_only_symbols.push_back(s);
  out.atomics_on_const_inputs = atomics_on_const_inputs(program);
  return out;
}

std::vector<std::string> ptx_read_only_symbols(const std::string& ptx, const std::vector<std::string>& symbols) {
  return ptx_address_facts(ptx, symbols).read_only_symbols;
}

std::vector<CodeFinding> ptx_atomics_on_const_inputs(const std::string& ptx) {
  return ptx_address_facts(ptx, {}).atomics_on_const_inputs;
}

}  // namespace rpl::collectors
