#include "collectors/amd/code_object.hpp"

// Header-only use of msgpack-cxx without its optional Boost adaptors.
#define MSGPACK_NO_BOOST
#include <msgpack.hpp>

#include <array>
#include <cstring>
#include <fmt/format.h>

#include "support/errors.hpp"

namespace rpl::collectors::amd {

namespace {

// Bounds for the MessagePack decoder so a damaged note cannot ask for gigabytes. Real notes hold at
// most tens of thousands of kernels with a few dozen keys each.
const msgpack::unpack_limit kMetadataLimits(/*array=*/1u << 22, /*map=*/1u << 22, /*str=*/1u << 24,
                                            /*bin=*/1u << 24, /*ext=*/1u << 24, /*depth=*/64);

// EF_AMDGPU_MACH values (e_flags & 0xff) for the processors we know, used only when a code object has
// no amdhsa.target key (code object v3 may omit it).
struct MachName {
  uint32_t mach;
  const char* name;
};
constexpr std::array kMachNames{
    MachName{0x02c, "gfx900"}, MachName{0x02f, "gfx906"},  MachName{0x030, "gfx908"},
    MachName{0x03f, "gfx90a"}, MachName{0x040, "gfx940"},  MachName{0x04b, "gfx941"},
    MachName{0x04c, "gfx942"}, MachName{0x04f, "gfx950"},  MachName{0x033, "gfx1010"},
    MachName{0x036, "gfx1030"}, MachName{0x041, "gfx1100"}, MachName{0x048, "gfx1200"},
    MachName{0x04e, "gfx1201"},
};

std::string processor_of_mach(uint32_t flags) {
  for (const auto& m : kMachNames) {
    if (m.mach == (flags & 0xff)) return m.name;
  }
  return {};
}

std::string_view as_string(const msgpack::object& o) { return {o.via.str.ptr, o.via.str.size}; }

const msgpack::object* find_key(const msgpack::object& map, std::string_view key) {
  for (uint32_t i = 0; i < map.via.map.size; ++i) {
    const auto& kv = map.via.map.ptr[i];
    if (kv.key.type == msgpack::type::STR && as_string(kv.key) == key) return &kv.val;
  }
  return nullptr;
}

// Reads one kernel's map; `where` names the kernel in errors.
class KernelFields {
 public:
  KernelFields(const msgpack::object& map, std::string where) : map_(map), where_(std::move(where)) {}

  std::string string(std::string_view key) const {
    const msgpack::object* v = find_key(map_, key);
    if (v == nullptr) missing(key);
    if (v->type != msgpack::type::STR) wrong_type(key, "a string");
    return std::string(as_string(*v));
  }

  uint32_t number(std::string_view key, bool required) const {
    const msgpack::object* v = find_key(map_, key);
    if (v == nullptr) {
      if (required) missing(key);
      return 0;
    }
    if (v->type != msgpack::type::POSITIVE_INTEGER || v->via.u64 > UINT32_MAX) {
      wrong_type(key, "an unsigned 32-bit integer");
    }
    return static_cast<uint32_t>(v->via.u64);
  }

  bool flag(std::string_view key) const {
    const msgpack::object* v = find_key(map_, key);
    if (v == nullptr) return false;
    if (v->type != msgpack::type::BOOLEAN) wrong_type(key, "a boolean");
    return v->via.boolean;
  }

 private:
  [[noreturn]] void missing(std::string_view key) const {
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: metadata lacks the required key {}", where_, key));
  }
  [[noreturn]] void wrong_type(std::string_view key, const char* expected) const {
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: metadata key {} is not {}", where_, key, expected));
  }

  const msgpack::object& map_;
  std::string where_;
};

KernelDescriptor decode_descriptor(Bytes d) {
  auto u32 = [&](std::size_t offset) {
    uint32_t v = 0;
    std::memcpy(&v, d.data() + offset, 4);
    return v;
  };
  KernelDescriptor kd;
  kd.group_segment_fixed_size = u32(0);
  kd.private_segment_fixed_size = u32(4);
  kd.kernarg_size = u32(8);
  kd.compute_pgm_rsrc3 = u32(44);
  kd.compute_pgm_rsrc1 = u32(48);
  kd.compute_pgm_rsrc2 = u32(52);
  std::memcpy(&kd.kernel_code_properties, d.data() + 56, 2);
  return kd;
}

CodeObjectKernel read_kernel(const msgpack::object& map, const std::string& where,
                             const std::unordered_map<std::string_view, Bytes>& descriptors) {
  if (map.type != msgpack::type::MAP) {
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: metadata entry is not a map", where));
  }
  const KernelFields f(map, where);
  CodeObjectKernel k;
  k.name = f.string(".name");
  const KernelFields named(map, fmt::format("{} ({})", where, k.name));
  k.symbol = named.string(".symbol");
  k.sgpr_count = named.number(".sgpr_count", true);
  k.vgpr_count = named.number(".vgpr_count", true);
  k.agpr_count = named.number(".agpr_count", false);
  k.group_segment_fixed_size = named.number(".group_segment_fixed_size", true);
  k.private_segment_fixed_size = named.number(".private_segment_fixed_size", true);
  k.kernarg_segment_size = named.number(".kernarg_segment_size", true);
  k.wavefront_size = named.number(".wavefront_size", true);
  k.max_flat_workgroup_size = named.number(".max_flat_workgroup_size", true);
  k.sgpr_spill_count = named.number(".sgpr_spill_count", false);
  k.vgpr_spill_count = named.number(".vgpr_spill_count", false);
  k.uses_dynamic_stack = named.flag(".uses_dynamic_stack");
  k.kernarg_segment_align = named.number(".kernarg_segment_align", false);
  if (const auto* args = find_key(map, ".args"); args && args->type == msgpack::type::ARRAY)
    for (uint32_t i = 0; i < args->via.array.size; ++i) {
      const auto& a = args->via.array.ptr[i];
      if (a.type != msgpack::type::MAP) throw Error(ExitCode::InputCorrupt, fmt::format("{} ({}): .args entry is not a map", where, k.name));
      const KernelFields f(a, fmt::format("{} ({}) argument {}", where, k.name, i));
      KernelArg arg;
      arg.offset = f.number(".offset", true);
      arg.size = f.number(".size", true);
      arg.value_kind = f.string(".value_kind");
      if (find_key(a, ".address_space")) arg.address_space = f.string(".address_space");
      arg.is_const = f.flag(".is_const");
      arg.is_restrict = f.flag(".is_restrict");
      arg.is_volatile = f.flag(".is_volatile");
      arg.pointee_align = f.number(".pointee_align", false);
      k.args.push_back(arg);
    }
  if (const auto* r = find_key(map, ".reqd_workgroup_size"); r && r->type == msgpack::type::ARRAY)
    for (uint32_t i = 0; i < r->via.array.size; ++i)
      if (r->via.array.ptr[i].type == msgpack::type::POSITIVE_INTEGER)
        k.reqd_workgroup_size.push_back(static_cast<uint32_t>(r->via.array.ptr[i].via.u64));
  if (auto it = descriptors.find(k.symbol); it != descriptors.end()) k.descriptor = decode_descriptor(it->second);
  return k;
}

}  // namespace

std::string processor_of_target(const std::string& target) {
  // "<arch>-<vendor>-<os>-<environment>-<processor>[:feature...]"; the environment is empty for HSA.
  const std::string without_features = target.substr(0, target.find(':'));
  const auto dash = without_features.rfind('-');
  return dash == std::string::npos ? without_features : without_features.substr(dash + 1);
}

int gfx_major(const std::string& processor) {
  if (!processor.starts_with("gfx") || processor.size() < 6) return 0;
  // The last two characters are minor and stepping: gfx90a -> 9, gfx1030 -> 10.
  int major = 0;
  for (char c : std::string_view(processor).substr(3, processor.size() - 5)) {
    if (c < '0' || c > '9') return 0;
    major = major * 10 + (c - '0');
  }
  return major;
}

bool has_unified_vgpr_file(const std::string& processor) {
  return processor == "gfx90a" || processor.starts_with("gfx94") || processor.starts_with("gfx95");
}

RegisterAllocation allocated_registers(const std::string& processor, const KernelDescriptor& kd) {
  RegisterAllocation a;
  if (has_unified_vgpr_file(processor)) {
    // ACCUM_OFFSET = arch/4 - 1; the VGPR field counts the unified total in granules of 8.
    a.arch_vgprs = (kd.accum_offset() + 1) * 4;
    a.vgprs = (kd.granulated_vgprs() + 1) * 8;
    a.accum_vgprs = a.vgprs > a.arch_vgprs ? a.vgprs - a.arch_vgprs : 0;
  } else {
    const uint32_t granule = kd.wave32() ? 8 : 4;
    a.arch_vgprs = (kd.granulated_vgprs() + 1) * granule;
    a.vgprs = a.arch_vgprs;
    // gfx908 has a separate AccVGPR file allocated like the arch one.
    a.accum_vgprs = processor == "gfx908" ? a.arch_vgprs : 0;
  }
  // gfx9 and older allocate SGPRs in granules of 16 (field = 2 * (ceil(n/16) - 1)); gfx10+ does not.
  if (gfx_major(processor) <= 9) a.sgprs = (kd.granulated_sgprs() / 2 + 1) * 16;
  return a;
}

CodeObject read_code_object(Bytes image, const std::string& what) {
  if (!is_elf(image)) {
    throw Error(ExitCode::InputInvalid, fmt::format("{}: not an AMDGPU code object (not an ELF file)", what));
  }
  const ElfImage elf(image, what);
  if (elf.machine() != kElfMachineAmdgpu) {
    throw Error(ExitCode::InputInvalid,
                fmt::format("{}: ELF machine {} is not AMDGPU ({})", what, elf.machine(), kElfMachineAmdgpu));
  }
  if (elf.os_abi() != kElfOsAbiAmdgpuHsa) {
    throw Error(ExitCode::InputInvalid,
                fmt::format("{}: OS ABI {} is not AMDGPU HSA ({}); only HSA code objects carry kernel metadata",
                            what, elf.os_abi(), kElfOsAbiAmdgpuHsa));
  }

  std::optional<Bytes> note;
  elf.for_each_note([&](std::string_view owner, uint32_t type, Bytes desc) {
    if (!note && owner == "AMDGPU" && type == kNoteAmdgpuMetadata) note = desc;
  });
  if (!note) {
    throw Error(ExitCode::InputInvalid,
                fmt::format("{}: no NT_AMDGPU_METADATA note (owner AMDGPU, type 32); code object v2 or a "
                            "stripped image is not supported",
                            what));
  }

  msgpack::object_handle handle;
  try {
    handle = msgpack::unpack(reinterpret_cast<const char*>(note->data()), note->size(), nullptr, nullptr,
                             kMetadataLimits);
  } catch (const std::exception& e) {
    throw Error(ExitCode::InputCorrupt,
                fmt::format("{}: NT_AMDGPU_METADATA note is not valid MessagePack: {}", what, e.what()));
  }
  const msgpack::object& root = handle.get();
  if (root.type != msgpack::type::MAP) {
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: NT_AMDGPU_METADATA is not a MessagePack map", what));
  }

  CodeObject co;
  if (const auto* target = find_key(root, "amdhsa.target"); target && target->type == msgpack::type::STR) {
    co.target = std::string(as_string(*target));
    co.processor = processor_of_target(co.target);
  } else {
    co.processor = processor_of_mach(elf.flags());
  }
  // amdhsa.version [1, m] is code object v(m + 3); EI_ABIVERSION n is v(n + 2).
  co.code_object_version = elf.abi_version() + 2;
  if (const auto* v = find_key(root, "amdhsa.version");
      v && v->type == msgpack::type::ARRAY && v->via.array.size == 2 &&
      v->via.array.ptr[0].type == msgpack::type::POSITIVE_INTEGER &&
      v->via.array.ptr[1].type == msgpack::type::POSITIVE_INTEGER && v->via.array.ptr[0].via.u64 == 1) {
    co.code_object_version = static_cast<int>(v->via.array.ptr[1].via.u64) + 3;
  }

  const auto* kernels = find_key(root, "amdhsa.kernels");
  if (kernels == nullptr) return co;  // a code object with device functions only
  if (kernels->type != msgpack::type::ARRAY) {
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: metadata amdhsa.kernels is not an array", what));
  }
  co.kernels.reserve(kernels->via.array.size);
  const auto descriptors = elf.symbols_of_size(kKernelDescriptorSize);
  for (uint32_t i = 0; i < kernels->via.array.size; ++i) {
    co.kernels.push_back(read_kernel(kernels->via.array.ptr[i], fmt::format("{}: kernel #{}", what, i), descriptors));
  }
  return co;
}

}  // namespace rpl::collectors::amd
