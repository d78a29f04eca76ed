#include "model/collective_calls.hpp"

#include <cctype>

namespace rpl {
namespace {

struct TypeName {
  std::string_view spelled, normal;
};
// NCCL's ncclDataType_t names (as its profiler plugin reports them), RCCL's, and the C names.
constexpr TypeName kNames[] = {
    {"ncclInt8", "i8"},          {"ncclChar", "i8"},           {"ncclUint8", "u8"},       {"ncclInt32", "i32"},
    {"ncclInt", "i32"},          {"ncclUint32", "u32"},        {"ncclInt64", "i64"},      {"ncclUint64", "u64"},
    {"ncclFloat16", "f16"},      {"ncclHalf", "f16"},          {"ncclFloat32", "f32"},    {"ncclFloat", "f32"},
    {"ncclFloat64", "f64"},      {"ncclDouble", "f64"},        {"ncclBfloat16", "bf16"},  {"ncclFloat8e4m3", "f8e4m3"},
    {"ncclFloat8e5m2", "f8e5m2"}, {"ncclFp8E4M3", "f8e4m3"},   {"ncclFp8E5M2", "f8e5m2"}, {"int8_t", "i8"},
    {"uint8_t", "u8"},           {"int32_t", "i32"},           {"uint32_t", "u32"},       {"int64_t", "i64"},
    {"uint64_t", "u64"},         {"half", "f16"},              {"float", "f32"},          {"double", "f64"},
};

}  // namespace

std::string normalize_data_type(std::string_view name) {
  for (const auto& t : kNames)
    if (name == t.spelled) return std::string(t.normal);
  return std::string(name);
}

uint32_t data_type_bytes(std::string_view t) {
  if (t == "i8" || t == "u8" || t == "f8e4m3" || t == "f8e5m2") return 1;
  if (t == "f16" || t == "bf16") return 2;
  if (t == "i32" || t == "u32" || t == "f32") return 4;
  if (t == "i64" || t == "u64" || t == "f64") return 8;
  return 0;
}

}  // namespace rpl
