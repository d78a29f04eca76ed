#include "collectors/nvidia/pc_sampling_files.hpp"

#include <fmt/core.h>

#include <charconv>
#include <regex>

#include "support/csv.hpp"
#include "support/errors.hpp"

namespace rpl::collectors {
namespace {

uint64_t parse_u64(const std::string& s, int base, const std::string& what, const std::string& source, std::size_t row) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    throw Error(ExitCode::InputInvalid, fmt::format("{}: row {}: {} '{}' is not a number", source, row, what, s));
  return v;
}

}  // namespace

std::vector<PcSampleRecord> parse_pc_samples_csv(std::string_view text, const std::string& source) {
  auto rows = split_csv(text);
  std::vector<PcSampleRecord> out;
  if (rows.empty()) return out;
  static const char* const kColumns[] = {"function", "cubin_crc", "pc_offset", "stall_reason", "samples", "file", "line"};
  if (rows[0].size() < std::size(kColumns))
    throw Error(ExitCode::InputInvalid, fmt::format("{}: the header has {} columns, not {}", source, rows[0].size(),
                                                    std::size(kColumns)));
  for (std::size_t c = 0; c < std::size(kColumns); ++c)
    if (rows[0][c] != kColumns[c])
      throw Error(ExitCode::InputInvalid,
                  fmt::format("{}: column {} is '{}', expected '{}'", source, c + 1, rows[0][c], kColumns[c]));
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& f = rows[r];
    if (f.size() < std::size(kColumns))
      throw Error(ExitCode::InputInvalid, fmt::format("{}: row {} has {} fields, not {}", source, r + 1, f.size(),
                                                      std::size(kColumns)));
    PcSampleRecord rec;
    rec.kernel = f[0];
    rec.module = parse_u64(f[1], 10, "cubin_crc", source, r + 1);
    rec.pc_offset = parse_u64(f[2], 10, "pc_offset", source, r + 1);
    rec.stall_reason = f[3];
    rec.samples = parse_u64(f[4], 10, "samples", source, r + 1);
    rec.file = f[5];
    rec.line = static_cast<uint32_t>(parse_u64(f[6], 10, "line", source, r + 1));
    out.push_back(std::move(rec));
  }
  return out;
}

SassListing parse_nvdisasm_listing(std::string_view text) {
  static const std::regex kFunction(R"(^\s*\.text\.([^\s:]+):\s*$)");
  static const std::regex kInstruction(R"(^\s*/\*([0-9a-fA-F]+)\*/\s*(.*?)\s*$)");
  static const std::regex kTrailingComment(R"(\s*/\*.*\*/\s*$)");
  SassListing out;
  std::map<uint64_t, std::string>* current = nullptr;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string line(text.substr(pos, nl - pos));
    pos = nl + 1;
    std::smatch m;
    if (std::regex_match(line, m, kFunction)) {
      current = &out[m[1].str()];
    } else if (current && std::regex_match(line, m, kInstruction)) {
      std::string instruction = std::regex_replace(m[2].str(), kTrailingComment, "");
      while (!instruction.empty() && (instruction.back() == ';' || instruction.back() == ' '))
        instruction.pop_back();
      if (!instruction.empty()) (*current)[std::stoull(m[1].str(), nullptr, 16)] = instruction;
    }
  }
  return out;
}

void attach_sass(std::vector<PcSampleRecord>& records, uint64_t crc, const SassListing& listing) {
  for (PcSampleRecord& r : records) {
    if (r.module != crc) continue;
    auto f = listing.find(r.kernel);
    if (f == listing.end()) continue;
    auto i = f->second.find(r.pc_offset);
    if (i != f->second.end()) r.instruction = i->second;
  }
}

}  // namespace rpl::collectors
