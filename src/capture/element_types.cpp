#include "capture/element_types.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "capture/blob.hpp"

namespace rpl::capture {
namespace fs = std::filesystem;

namespace {

std::string trim(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

void erase_word(std::string& s, const std::string& w) {
  for (std::size_t p; (p = s.find(w)) != std::string::npos;) s.erase(p, w.size());
}

}  // namespace

std::optional<ElementType> pointee_element_type(const std::string& param_type) {
  std::string t = param_type;
  for (const char* w : {"__restrict__", "__restrict", "const", "volatile"}) erase_word(t, w);
  t = trim(t);
  if (t.empty() || t.back() != '*') return std::nullopt;
  t.pop_back();
  t = trim(t);
  if (t.find('*') != std::string::npos) return ElementType{"u64", 8, 0};  // pointers to pointers
  static const std::vector<std::pair<std::vector<std::string>, ElementType>> table = {
      {{"float", "float1", "float2", "float3", "float4"}, {"f32", 4, 0}},
      {{"double", "double1", "double2", "double3", "double4"}, {"f64", 8, 0}},
      {{"__half", "half", "__half2", "half2", "_Float16"}, {"f16", 2, 0}},
      {{"__nv_bfloat16", "__nv_bfloat162", "hip_bfloat16", "__hip_bfloat16", "__bf16"}, {"bf16", 2, 0}},
      {{"int", "int1", "int2", "int3", "int4"}, {"i32", 4, 0}},
      {{"unsigned int", "unsigned", "uint1", "uint2", "uint3", "uint4"}, {"u32", 4, 0}},
      {{"long long", "long", "longlong2", "long2"}, {"i64", 8, 0}},
      {{"unsigned long long", "unsigned long", "ulonglong2", "ulong2", "size_t"}, {"u64", 8, 0}},
      {{"short", "short2"}, {"i16", 2, 0}},
      {{"unsigned short", "ushort2"}, {"u16", 2, 0}},
      {{"char", "signed char", "char2", "char4", "bool"}, {"i8", 1, 0}},
      {{"unsigned char", "uchar2", "uchar4"}, {"u8", 1, 0}},
  };
  for (const auto& [names, type] : table)
    if (std::find(names.begin(), names.end(), t) != names.end()) return type;
  return std::nullopt;
}

std::vector<std::string> demangled_parameters(const std::string& demangled) {
  // the parameter list is the last top-level "(...)"
  int depth = 0;
  std::size_t close = demangled.rfind(')');
  if (close == std::string::npos) return {};
  std::size_t open = std::string::npos;
  for (std::size_t i = close + 1; i-- > 0;) {
    char c = demangled[i];
    if (c == ')') ++depth;
    if (c == '(' && --depth == 0) { open = i; break; }
  }
  if (open == std::string::npos) return {};
  std::vector<std::string> out;
  std::string cur;
  depth = 0;
  for (std::size_t i = open + 1; i < close; ++i) {
    char c = demangled[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) { out.push_back(trim(cur)); cur.clear(); continue; }
    cur += c;
  }
  if (!trim(cur).empty() && trim(cur) != "void") out.push_back(trim(cur));
  return out;
}

std::map<uint64_t, ElementType> region_element_types(const fs::path& capture_dir, const Manifest& m,
                                                     const std::vector<std::string>& source_param_types) {
  std::map<uint64_t, ElementType> out;
  std::vector<std::string> types = demangled_parameters(m.kernel.demangled_name);
  if (types.size() != m.parameters.size()) types = source_param_types;  // extern "C": no types in the name
  if (types.size() != m.parameters.size()) return out;
  std::vector<std::byte> args = capture::read_blob(capture_dir, m.arguments);
  for (std::size_t i = 0; i < types.size(); ++i) {
    auto t = pointee_element_type(types[i]);
    const auto& p = m.parameters[i];
    if (!t || p.size != 8 || p.offset + 8 > args.size()) continue;
    uint64_t address = 0;
    std::memcpy(&address, args.data() + p.offset, 8);
    for (const Region& r : m.regions) {
      if (address < r.address || address >= r.address + r.size) continue;
      t->phase = (address - r.address) % t->size;
      auto it = out.find(r.id);
      if (it == out.end()) out[r.id] = *t;
      else if (it->second.name != t->name || it->second.phase != t->phase) it->second = ElementType{};  // two views: bytes
      break;
    }
  }
  return out;
}

Element comparison_element(const ElementType& t) {
  if (t.name == "bytes" || t.phase != 0) return Element::Infer;
  if (t.name == "f32") return Element::F32;
  if (t.name == "f16") return Element::F16;
  if (t.name == "bf16") return Element::BF16;
  return Element::Bytes;
}

std::vector<Element> comparison_elements(const fs::path& capture_dir, const Manifest& m) {
  const std::map<uint64_t, ElementType> types = region_element_types(capture_dir, m);
  std::vector<Element> out;
  for (const Region& g : m.regions) out.push_back(types.count(g.id) ? comparison_element(types.at(g.id)) : Element::Infer);
  return out;
}

}  // namespace rpl::capture
