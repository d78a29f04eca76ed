// NVIDIA side of code_object_facts.hpp: the cubin's symbols and per-kernel .nv.info attributes (EIATTR_*), the
// PTX nvcc kept, and the SASS cuobjdump prints when the toolkit has it.
//
// .nv.info entries (CUDA 13.0 cubins, checked here on nvcc output): u8 format (1 none, 2 byte, 3 half, 4 sized),
// u8 attribute, then a u16 value (format 3), or a u16 size and that many bytes (format 4). Attributes used:
// 0x05 MAX_THREADS (3 x u32, __launch_bounds__), 0x10 REQNTID (3 x u32), 0x1b MAXREG_COUNT (half),
// 0x17 KPARAM_INFO (u32 index, u16 ordinal, u16 offset, u32: bits 0-7 log2 of the pointee alignment, bits 18-31
// the size), 0x19 CBANK_PARAM_SIZE (half), 0x0f EXTERNS (u32 symbol indices).
#include <fmt/core.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "collectors/code_object_facts.hpp"
#include "collectors/elf_tables.hpp"
#include "collectors/nvidia/cubin_facts.hpp"
#include "collectors/nvidia/cubin_resources.hpp"
#include "support/comments.hpp"
#include "support/process.hpp"

namespace rpl::collectors {
namespace {

uint32_t u32_at(Bytes b, std::size_t o) {
  uint32_t v = 0;
  if (o + 4 <= b.size()) std::memcpy(&v, b.data() + o, 4);
  return v;
}
uint16_t u16_at(Bytes b, std::size_t o) {
  uint16_t v = 0;
  if (o + 2 <= b.size()) std::memcpy(&v, b.data() + o, 2);
  return v;
}

constexpr uint8_t kRegcount = 0x2f;
constexpr uint8_t kMaxThreads = 0x05, kExterns = 0x0f, kReqntid = 0x10, kKparamInfo = 0x17, kCbankParamSize = 0x19,
                  kMaxregCount = 0x1b;

void read_kernel_info(Bytes info, KernelAbi& k, std::vector<uint32_t>& externs) {
  std::map<uint16_t, ParamSlot> by_ordinal;
  for (std::size_t p = 0; p + 4 <= info.size();) {
    uint8_t format = static_cast<uint8_t>(info[p]), attr = static_cast<uint8_t>(info[p + 1]);
    if (format == 4) {
      uint16_t size = u16_at(info, p + 2);
      Bytes v = info.subspan(p + 4, std::min<std::size_t>(size, info.size() - p - 4));
      if (attr == kKparamInfo && v.size() >= 12) {
        uint32_t flags = u32_at(v, 8);
        by_ordinal[u16_at(v, 4)] = {u16_at(v, 6), (flags >> 18) & 0x3fff, 1u << (flags & 0xff), ""};
      } else if ((attr == kMaxThreads || attr == kReqntid) && v.size() >= 12) {
        k.bounds.push_back(fmt::format("{} {} {} {}", attr == kMaxThreads ? "max_threads" : "reqntid", u32_at(v, 0),
                                       u32_at(v, 4), u32_at(v, 8)));
      } else if (attr == kExterns) {
        for (std::size_t i = 0; i + 4 <= v.size(); i += 4) externs.push_back(u32_at(v, i));
      }
      p += 4 + size;
    } else {
      if (format == 3 && attr == kCbankParamSize) k.param_block_size = u16_at(info, p + 2);
      if (format == 3 && attr == kMaxregCount) k.bounds.push_back(fmt::format("max_registers {}", u16_at(info, p + 2)));
      p += 4;
    }
  }
  for (auto& [ordinal, slot] : by_ordinal) k.params.push_back(slot);
  std::sort(k.bounds.begin(), k.bounds.end());
}

// The function a PTX line opens (".visible .entry NAME(", ".func (.param ...) NAME("), or "".
std::string ptx_function_name(const std::string& line) {
  static const std::regex opens(R"(^\s*(\.visible\s+|\.weak\s+)?(\.entry|\.func)\s+(\([^)]*\)\s*)?([A-Za-z_$][\w$]*)\s*\(?)");
  std::smatch m;
  if (line.find(".extern") != std::string::npos || !std::regex_search(line, m, opens)) return "";
  return m[4];
}

}  // namespace

std::vector<CodeFinding> ptx_findings(const std::string& ptx) {
  static const std::regex clock(R"(%(clock64|clock_hi|clock|globaltimer_lo|globaltimer_hi|globaltimer)\b)");
  static const std::regex print(R"(\bcall(\.uni)?\b.*\bvprintf\b|^\s*vprintf,\s*$)");
  // what may precede an instruction's mnemonic: braces (a scope inline assembly opens), labels, a guard predicate
  static const std::regex prefix(R"(^(?:\s+|[{}]|[$%\w.]+:(?!:)|@!?%\w+)*)");
  std::vector<CodeFinding> out;
  // comments blanked (`/* */` may span lines; newlines kept, so the lines pair up): a comment in front of an
  // instruction must not hide it. The raw lines still give nvcc's inline-asm marks, which are comments.
  std::istringstream in(ptx), blanked(blank_comments(ptx));
  std::string line, code, function;
  bool in_call = false, in_asm = false;
  while (std::getline(in, line) && std::getline(blanked, code)) {
    if (auto f = ptx_function_name(line); !f.empty()) function = f;
    // nvcc brackets what an asm statement wrote with these comments; a `ret` there is the source's, and ends the
    // thread as `exit` does
    if (line.find("// begin inline asm") != std::string::npos) in_asm = true;
    if (line.find("// end inline asm") != std::string::npos) in_asm = false;
    if (std::regex_search(code, clock)) out.push_back({function, "clock", "PTX", code});
    // nvcc writes a call over several lines: "call.uni (retval0),\n\tvprintf,\n\t(...);"
    if (code.find("call") != std::string::npos) in_call = code.find(';') == std::string::npos;
    if (std::regex_search(code, print) && (in_call || code.find("call") != std::string::npos))
      out.push_back({function, "print", "PTX", code});
    // every instruction the line ends with `;`, braced or guarded (`{ @%p1 trap; }`)
    for (std::size_t b = 0, e; (e = code.find(';', b)) != std::string::npos; b = e + 1) {
      const std::string statement = std::regex_replace(code.substr(b, e - b), prefix, "");
      const std::string mnemonic = statement.substr(0, statement.find_first_of(" \t"));
      const std::string base = mnemonic.substr(0, mnemonic.find('.'));
      if (base == "trap" || base == "brkpt") out.push_back({function, "trap", "PTX", code});
      if (base == "exit" || (base == "ret" && in_asm)) out.push_back({function, "exit", "PTX", code});
    }
  }
  return out;
}

std::vector<CodeFinding> sass_findings(const std::string& sass) {
  static const std::regex function(R"(Function\s*:\s*(\S+))");
  static const std::regex clock(R"(\bSR_(CLOCKLO|CLOCKHI|GLOBALTIMERLO|GLOBALTIMERHI|GLOBALTIMER)\b)");
  static const std::regex trap(R"(\bBPT\.TRAP\b)");
  std::vector<CodeFinding> out;
  std::istringstream in(sass);
  std::string line, current;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, function)) current = m[1];
    if (std::regex_search(line, clock)) out.push_back({current, "clock", "SASS", line});
    else if (std::regex_search(line, trap)) out.push_back({current, "trap", "SASS", line});
  }
  return out;
}

namespace nvidia {

void read_cubin_facts(const std::string& path, Bytes image, CodeObjectFacts& facts) {
  const ElfTables t = read_elf_tables(image, path);
  facts.vendor = "nvidia";
  facts.read.push_back("cubin ELF (symbols, .nv.info)");
  std::vector<uint32_t> extern_indices;
  for (const auto& s : t.symbols) {
    bool defined = s.section_index != 0;
    // (nvcc's own subroutines, `$__internal_N_$__cuda_sm3x_div_rn_noftz_f32_slowpath` and the like, are not the
    // source's interface: a reciprocal hoisted out of a division swaps one for another)
    if (s.type == kSymFunc && defined && s.binding != kBindLocal && s.name.rfind("$__internal_", 0) != 0)
      facts.functions.push_back(s.name);
    // device data that outlives a launch: .nv.global (__device__), .nv.constant1+ (__constant__); block-local
    // shared memory (.nv.shared.*) and kernel parameter banks (.nv.constant0.*) die with the launch
    bool lasting = s.section.rfind(".nv.global", 0) == 0 ||
                   (s.section.rfind(".nv.constant", 0) == 0 && s.section.rfind(".nv.constant0", 0) != 0);
    if (s.type == kSymObject && defined && lasting && !s.name.empty() && s.name[0] != '$')
      facts.data_symbols.push_back(fmt::format("{} ({})", s.name, s.section));
    if (s.type == kSymFunc && !defined) facts.externs.push_back(s.name);
    if (s.type == kSymFunc && defined && (s.other & 0x10)) {
      KernelAbi k;
      k.symbol = s.name;
      for (const auto& sec : t.sections)
        if (sec.name == ".nv.info." + s.name)
          if (auto info = t.contents(sec)) read_kernel_info(*info, k, extern_indices);
      facts.kernels.push_back(std::move(k));
    }
  }
  // registers per function: the cubin-wide .nv.info holds EIATTR_REGCOUNT (u32 symbol index, u32 count)
  for (const auto& sec : t.sections) {
    if (sec.name != ".nv.info") continue;
    auto info = t.contents(sec);
    for (std::size_t p = 0; info && p + 4 <= info->size();) {
      uint8_t format = static_cast<uint8_t>((*info)[p]), attr = static_cast<uint8_t>((*info)[p + 1]);
      std::size_t size = format == 4 ? u16_at(*info, p + 2) : 0;
      if (format == 4 && attr == kRegcount && size >= 8) {
        uint32_t index = u32_at(*info, p + 4), count = u32_at(*info, p + 8);
        if (index >= 1 && index <= t.symbols.size())  // symbol indices count the null entry read_elf_tables drops
          for (auto& k : facts.kernels)
            if (k.symbol == t.symbols[index - 1].name) k.registers = count;
      }
      p += format == 4 ? 4 + size : 4;
    }
  }
  for (auto& k : facts.kernels)
    for (const auto& sec : t.sections)
      if (sec.name == ".nv.shared." + k.symbol) k.static_shared_bytes = static_cast<uint32_t>(sec.size);
  std::sort(facts.functions.begin(), facts.functions.end());
  std::sort(facts.data_symbols.begin(), facts.data_symbols.end());
  std::sort(facts.externs.begin(), facts.externs.end());
  facts.externs.erase(std::unique(facts.externs.begin(), facts.externs.end()), facts.externs.end());
  // The SASS, where the toolkit has a disassembler: what the GPU runs.
  if (auto tool = find_cuobjdump()) {
    std::string out = path + ".sass.txt";
    ProcessSpec spec;
    spec.argv = {*tool, "-sass", path};
    spec.stdout_file = out;
    spec.stderr_file = out + ".stderr";
    spec.timeout_s = 120;
    ProcessResult r = run_process(spec);
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    if (r.ok()) {
      facts.read.push_back("SASS (" + *tool + " -sass)");
      auto f = sass_findings(text.str());
      facts.findings.insert(facts.findings.end(), f.begin(), f.end());
    } else {
      facts.notes.push_back(fmt::format("{} -sass failed ({}): the SASS was not read", *tool, r.describe()));
    }
  } else {
    facts.notes.push_back("no cuobjdump in this toolkit: the SASS was not read (the PTX and the cubin's tables were)");
  }
}

}  // namespace nvidia
}  // namespace rpl::collectors
