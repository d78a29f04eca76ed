#pragma once
// AMD side of collectors/code_object_facts.hpp: the kernarg metadata (.args), flat work-group size bounds, the
// code object's symbols, and the ISA llvm-objdump prints.
#include <string>

#include "collectors/binary_image.hpp"
#include "collectors/code_object_facts.hpp"

namespace rpl::collectors::amd {

// Fills `facts` from one AMDGPU code object ELF `image`; `path` names it and locates the disassembly written
// beside it (path + ".isa.txt").
void read_amdgpu_facts(const std::string& path, Bytes image, CodeObjectFacts& facts);

}  // namespace rpl::collectors::amd
