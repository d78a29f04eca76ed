#pragma once
// The spellings of element data types that collective libraries use, in one table: NCCL's / RCCL's API names
// in their call records (model/collective_calls) and the type words in their kernel names
// (analysis/collectives) both map to the kernel-name form ("f32", "bf16", "i8").
#include <optional>
#include <span>
#include <string_view>

namespace rpl {

// One spelling of a data type and its normalised form ("ncclBfloat16" -> "bf16").
struct DataTypeSpelling {
  std::string_view spelled, normal;
};

// Every spelling known: the normalised forms themselves, NCCL's ncclDataType_t names (as its profiler plugin
// reports them), the C names, and the vendor words of NCCL's / RCCL's kernel names (__nv_bfloat16, rccl_float8).
std::span<const DataTypeSpelling> data_type_spellings();

// The normalised form of a known spelling; nullopt when unknown.
std::optional<std::string_view> data_type_of_spelling(std::string_view spelled);

}  // namespace rpl
