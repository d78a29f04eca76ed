#include "model/data_types.hpp"

namespace rpl {
namespace {

// The normalised forms, NCCL's ncclDataType_t names, the C names, then the vendor words of kernel names.
constexpr DataTypeSpelling kSpellings[] = {
    {"i8", "i8"},                {"u8", "u8"},                 {"i32", "i32"},            {"u32", "u32"},
    {"i64", "i64"},              {"u64", "u64"},               {"f16", "f16"},            {"f32", "f32"},
    {"f64", "f64"},              {"bf16", "bf16"},             {"f8e4m3", "f8e4m3"},      {"f8e5m2", "f8e5m2"},
    {"ncclInt8", "i8"},          {"ncclChar", "i8"},           {"ncclUint8", "u8"},       {"ncclInt32", "i32"},
    {"ncclInt", "i32"},          {"ncclUint32", "u32"},        {"ncclInt64", "i64"},      {"ncclUint64", "u64"},
    {"ncclFloat16", "f16"},      {"ncclHalf", "f16"},          {"ncclFloat32", "f32"},    {"ncclFloat", "f32"},
    {"ncclFloat64", "f64"},      {"ncclDouble", "f64"},        {"ncclBfloat16", "bf16"},  {"ncclFloat8e4m3", "f8e4m3"},
    {"ncclFloat8e5m2", "f8e5m2"}, {"ncclFp8E4M3", "f8e4m3"},   {"ncclFp8E5M2", "f8e5m2"}, {"int8_t", "i8"},
    {"uint8_t", "u8"},           {"int32_t", "i32"},           {"uint32_t", "u32"},       {"int64_t", "i64"},
    {"uint64_t", "u64"},         {"half", "f16"},              {"float", "f32"},          {"double", "f64"},
    {"__nv_bfloat16", "bf16"},   {"rccl_bfloat16", "bf16"},    {"hip_bfloat16", "bf16"},  {"__nv_fp8_e4m3", "f8e4m3"},
    {"__nv_fp8_e5m2", "f8e5m2"}, {"rccl_float8", "f8e4m3"},    {"rccl_bfloat8", "f8e5m2"},
};

}  // namespace

std::span<const DataTypeSpelling> data_type_spellings() { return kSpellings; }

std::optional<std::string_view> data_type_of_spelling(std::string_view spelled) {
  for (const auto& t : kSpellings)
    if (spelled == t.spelled) return t.normal;
  return std::nullopt;
}

}  // namespace rpl
