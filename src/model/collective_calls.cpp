#include "model/collective_calls.hpp"

#include "model/data_types.hpp"

namespace rpl {

std::string normalize_data_type(std::string_view name) {
  return std::string(data_type_of_spelling(name).value_or(name));
}

uint32_t data_type_bytes(std::string_view t) {
  if (t == "i8" || t == "u8" || t == "f8e4m3" || t == "f8e5m2") return 1;
  if (t == "f16" || t == "bf16") return 2;
  if (t == "i32" || t == "u32" || t == "f32") return 4;
  if (t == "i64" || t == "u64" || t == "f64") return 8;
  return 0;
}

}  // namespace rpl
