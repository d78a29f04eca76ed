#pragma once
// NVIDIA side of collectors/code_object_facts.hpp (cubin_facts.cpp says what is read and how).
#include <string>

#include "collectors/binary_image.hpp"
#include "collectors/code_object_facts.hpp"

namespace rpl::collectors::nvidia {

// Fills `facts` from the cubin at `path` (its bytes `image`); SASS through cuobjdump when the toolkit has it.
void read_cubin_facts(const std::string& path, Bytes image, CodeObjectFacts& facts);

}  // namespace rpl::collectors::nvidia
