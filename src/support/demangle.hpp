#pragma once
#include <string>

namespace rpl {

// "_Z7add_onePfi" -> "add_one(float*, int)"; the input unchanged when it is not a mangled C++ name.
std::string demangle(const std::string& mangled);

}  // namespace rpl
