#pragma once
// Element types of a capture's memory regions, from the kernel's signature: the regions its pointer parameters
// point into (found through the captured argument buffer) take the pointee's type. Used by replay's
// verification (capture/replay_compare.hpp: magnitudes in the known type) and by the optimizer's equivalence
// gate (poison and random values of the right type).
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "capture/manifest.hpp"
#include "capture/replay_compare.hpp"

namespace rpl::capture {

struct ElementType {
  std::string name = "bytes";  // f16 bf16 f32 f64 i8 u8 i16 u16 i32 u32 i64 u64 bytes
  uint64_t size = 1;
  uint64_t phase = 0;          // byte offset of the first element boundary inside the region
  bool is_float() const { return name[0] == 'f' || name == "bf16"; }
};

// The element type of a C/C++ type as a demangler prints it ("float const*", "__half*", "int"): nullopt when
// the parameter is not a pointer to a known scalar (or vector of scalars).
std::optional<ElementType> pointee_element_type(const std::string& param_type);

// Top-level parameter types of a demangled signature: "void k<float>(float const*, float*, int)" ->
// {"float const*", "float*", "int"}.
std::vector<std::string> demangled_parameters(const std::string& demangled);

// Region id -> element type, for the regions the kernel's pointer parameters point into (others: bytes). The
// parameter types come from the demangled name, or from the source (`source_param_types`, canonical types from
// the parser) when the name carries none (extern "C").
std::map<uint64_t, ElementType> region_element_types(const std::filesystem::path& capture_dir, const Manifest& m,
                                                     const std::vector<std::string>& source_param_types = {});

// How replay's comparison reads a region of this type: f32, f16 and bf16 as such; other known types (integers,
// f64) as raw bytes; "bytes" (unknown or two views) and elements not starting at the region's start inferred
// from the differences.
Element comparison_element(const ElementType& t);

// comparison_element of every region of `m` (Infer where region_element_types knows nothing).
std::vector<Element> comparison_elements(const std::filesystem::path& capture_dir, const Manifest& m);

}  // namespace rpl::capture
