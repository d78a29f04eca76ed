#include "support/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace rpl {

std::string demangle(const std::string& mangled) {
  if (!mangled.starts_with("_Z")) return mangled;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                   &std::free);
  return status == 0 && text ? std::string(text.get()) : mangled;
}

}  // namespace rpl
