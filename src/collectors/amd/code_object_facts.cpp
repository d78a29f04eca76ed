// AMD side of code_object_facts.hpp. Kernarg ABI from the NT_AMDGPU_METADATA note's .args (offset, size,
// value kind, address space, qualifiers); hidden arguments are listed apart because the compiler adds them by use
// (code object v4): a new hidden_hostcall_buffer / hidden_printf_buffer says the kernel now prints. Bounds:
// .max_flat_workgroup_size (amdgpu-flat-work-group-size, __launch_bounds__) and .reqd_workgroup_size. ISA through
// llvm-objdump: s_memtime, s_memrealtime, s_getreg of the clock registers, s_sendmsg_rtn of the real-time clock
// (gfx11+), s_trap.
#include "collectors/amd/code_object_facts.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "collectors/amd/code_object.hpp"
#include "collectors/elf_tables.hpp"
#include "support/process.hpp"

namespace rpl::collectors {

std::vector<CodeFinding> amdgcn_findings(const std::string& disassembly) {
  static const std::regex label(R"(^[0-9a-fA-F]+\s+<([^>]+)>:)");
  static const std::regex clock(
      R"(\b(s_memtime|s_memrealtime)\b|\bs_getreg_b32\b.*HW_REG_(SHADER_CYCLES|SHADER_TIME|REALTIME)|\bs_sendmsg_rtn_b(32|64)\b.*(REALTIME|RTN_GET_REALTIME|RTN_GET_TMA))");
  static const std::regex trap(R"(\bs_trap\b)");
  std::vector<CodeFinding> out;
  std::istringstream in(disassembly);
  std::string line, current;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, label)) current = m[1];
    std::string code = line.substr(0, line.find("//"));
    if (std::regex_search(code, clock)) out.push_back({current, "clock", "ISA", code});
    else if (std::regex_search(code, trap)) out.push_back({current, "trap", "ISA", code});
  }
  return out;
}

namespace amd {
namespace fs = std::filesystem;
namespace {

constexpr uint64_t kSectionWritable = 0x1;  // SHF_WRITE

// ROCm's own first, then the newest Debian LLVM: an older llvm-objdump aborts on newer targets (LLVM 14 on gfx940).
std::optional<std::string> find_llvm_objdump() {
  for (const char* dir : {"/opt/rocm/llvm/bin", "/usr/lib/llvm-20/bin", "/usr/lib/llvm-19/bin", "/usr/lib/llvm-18/bin",
                          "/usr/lib/llvm-17/bin", "/usr/lib/llvm-16/bin", "/usr/lib/llvm-15/bin"}) {
    std::error_code ec;
    if (fs::exists(fs::path(dir) / "llvm-objdump", ec)) return (fs::path(dir) / "llvm-objdump").string();
  }
  return find_executable("llvm-objdump");
}

}  // namespace

void read_amdgpu_facts(const std::string& path, Bytes image, CodeObjectFacts& facts) {
  facts.vendor = "amd";
  const CodeObject co = read_code_object(image, path);
  facts.read.push_back("code object ELF (symbols, NT_AMDGPU_METADATA)");
  for (const auto& k : co.kernels) {
    KernelAbi abi;
    abi.symbol = k.name;
    abi.registers = k.vgpr_count;
    abi.static_shared_bytes = k.group_segment_fixed_size;
    for (const auto& a : k.args) {
      if (a.value_kind.rfind("hidden_", 0) == 0) {
        abi.hidden.push_back(a.value_kind);
        continue;
      }
      std::string kind = a.value_kind + (a.address_space.empty() ? "" : " " + a.address_space) +
                         (a.is_const ? " const" : "") + (a.is_restrict ? " restrict" : "") + (a.is_volatile ? " volatile" : "");
      abi.params.push_back({a.offset, a.size, a.pointee_align, kind});
      abi.param_block_size = std::max(abi.param_block_size, a.offset + a.size);
    }
    abi.bounds.push_back(fmt::format("max_flat_workgroup_size {}", k.max_flat_workgroup_size));
    if (!k.reqd_workgroup_size.empty())
      abi.bounds.push_back(fmt::format("reqd_workgroup_size {}", fmt::join(k.reqd_workgroup_size, " ")));
    abi.bounds.push_back(fmt::format("kernarg_segment_align {}", k.kernarg_segment_align));
    std::sort(abi.hidden.begin(), abi.hidden.end());
    for (const auto& h : abi.hidden)
      if (h == "hidden_hostcall_buffer" || h == "hidden_printf_buffer")
        facts.findings.push_back({k.name, "print", "metadata", h + " argument"});
    facts.kernels.push_back(std::move(abi));
  }
  const ElfTables t = read_elf_tables(image, path);
  for (const auto& s : t.symbols) {
    bool defined = s.section_index != 0;
    if (s.type == kSymFunc && defined && s.binding != kBindLocal) facts.functions.push_back(s.name);
    if (s.type == kSymFunc && !defined) facts.externs.push_back(s.name);
    // device data that outlives a launch; the kernel descriptors, the translation unit's id, HIP's builtin
    // coordinate objects (emitted by use) and printf's format strings (the print rule's) are not
    bool builtin = s.name.size() > 3 && s.name.compare(s.name.size() - 3, 3, ".kd") == 0;
    builtin = builtin || s.name.rfind("__hip_cuid_", 0) == 0 || s.name.rfind("_ZN17__HIP_Coordinates", 0) == 0 ||
              s.name.rfind(".str", 0) == 0 || s.name.empty();
    if (s.type == kSymObject && defined && !builtin) {
      facts.data_symbols.push_back(fmt::format("{} ({})", s.name, s.section));
      // in a section the code object declares read-only (.rodata: no SHF_WRITE): constants the compiler placed there
      // because the source never writes them, a kernel's static constexpr table or a local array's initialiser
      // (`_ZZ...E5kTaps.const`, `__const.<kernel>.kTaps`); __constant__ and __device__ variables are in .data/.bss
      auto sec = std::find_if(t.sections.begin(), t.sections.end(), [&](const ElfSection& e) { return e.name == s.section; });
      if (sec != t.sections.end() && (sec->flags & kSectionWritable) == 0) facts.read_only_data.push_back(facts.data_symbols.back());
    }
  }
  std::sort(facts.read_only_data.begin(), facts.read_only_data.end());
  std::sort(facts.functions.begin(), facts.functions.end());
  std::sort(facts.data_symbols.begin(), facts.data_symbols.end());
  std::sort(facts.externs.begin(), facts.externs.end());
  auto tool = find_llvm_objdump();
  if (!tool) {
    facts.notes.push_back("no llvm-objdump: the ISA was not read (the metadata and symbols were)");
    return;
  }
  // llvm-objdump reads a file: the code object goes beside the input when the input was a bundle
  std::string elf = path;
  if (!is_elf(MappedFile(path).bytes())) {
    elf = path + ".elf";
    std::ofstream(elf, std::ios::binary).write(reinterpret_cast<const char*>(image.data()), std::streamsize(image.size()));
  }
  std::string out = path + ".isa.txt";
  ProcessSpec spec;
  spec.argv = {*tool, "-d", "--mcpu=" + co.processor, elf};
  spec.stdout_file = out;
  spec.stderr_file = out + ".stderr";
  spec.timeout_s = 120;
  ProcessResult r = run_process(spec);
  if (!r.ok()) {
    facts.notes.push_back(fmt::format("{} -d failed ({}): the ISA was not read", *tool, r.describe()));
    return;
  }
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  facts.read.push_back("ISA (" + *tool + " -d)");
  auto f = amdgcn_findings(text.str());
  facts.findings.insert(facts.findings.end(), f.begin(), f.end());
}

}  // namespace amd
}  // namespace rpl::collectors
