#include "collectors/code_object_facts.hpp"

#include <fmt/core.h>

#include <fstream>
#include <sstream>

#include "collectors/amd/code_object_facts.hpp"
#include "collectors/amd/offload_bundle.hpp"
#include "collectors/binary_image.hpp"
#include "collectors/nvidia/cubin_facts.hpp"
#include "support/errors.hpp"

namespace rpl::collectors {

CodeObjectFacts read_code_object_facts(const std::string& code_object, const std::string& ptx) {
  MappedFile file(code_object);
  Bytes bytes = file.bytes();
  CodeObjectFacts facts;
  facts.file = code_object;
  if (starts_with(bytes, amd::kBundleMagic) || starts_with(bytes, amd::kCompressedBundleMagic)) {
    amd::OffloadBundles bundles = amd::read_offload_bundles(bytes, code_object);
    for (const auto& e : bundles.entries)
      if (amd::is_amdgpu_entry(e.id) && is_elf(e.bytes)) {
        amd::read_amdgpu_facts(code_object, e.bytes, facts);
        return facts;
      }
    throw Error(ExitCode::InputInvalid, fmt::format("{}: the offload bundle holds no AMD GPU code object", code_object));
  }
  if (!is_elf(bytes)) throw Error(ExitCode::InputInvalid, fmt::format("{}: not a GPU code object (not ELF)", code_object));
  ElfImage elf(bytes, code_object);
  if (elf.machine() == kElfMachineAmdgpu) {
    amd::read_amdgpu_facts(code_object, bytes, facts);
  } else if (elf.machine() == kElfMachineCuda) {
    nvidia::read_cubin_facts(code_object, bytes, facts);
    if (!ptx.empty()) {
      std::ifstream in(ptx);
      if (!in) {
        facts.notes.push_back(fmt::format("the PTX {} could not be read", ptx));
      } else {
        std::stringstream text;
        text << in.rdbuf();
        facts.read.push_back("PTX (" + ptx + ")");
        const std::string ptx_text = text.str();
        auto f = ptx_findings(ptx_text);
        facts.findings.insert(facts.findings.end(), f.begin(), f.end());
        // initialised device data the code only reads (a kernel's static constexpr table), "name (section)", and
        // atomics on a kernel's const inputs: one reading of where the PTX's addresses go
        const std::string init = " (.nv.global.init)";
        std::vector<std::string> names;
        for (const auto& d : facts.data_symbols)
          if (d.size() > init.size() && d.compare(d.size() - init.size(), init.size(), init) == 0)
            names.push_back(d.substr(0, d.size() - init.size()));
        PtxAddressFacts flow = ptx_address_facts(ptx_text, names);
        for (const auto& n : flow.read_only_symbols) facts.read_only_data.push_back(n + init);
        facts.findings.insert(facts.findings.end(), flow.atomics_on_const_inputs.begin(), flow.atomics_on_const_inputs.end());
      }
    } else {
      facts.notes.push_back("no PTX was kept for this cubin: clock reads and exits are judged on the SASS alone");
    }
  } else {
    throw Error(ExitCode::InputInvalid, fmt::format("{}: ELF machine {} is neither CUDA nor AMDGPU", code_object, elf.machine()));
  }
  return facts;
}

}  // namespace rpl::collectors
