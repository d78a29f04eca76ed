#include "collectors/amd/rocblas_profile_log.hpp"

#include <fmt/core.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>

#include "support/errors.hpp"
#include "support/input_file.hpp"

namespace rpl::collectors {
namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<LibraryCallCount> parse_rocblas_profile_log(std::string_view text, const std::string& path) {
  static constexpr std::string_view kFunction = "rocblas_function:";
  static constexpr std::string_view kCount = "call_count:";
  std::vector<LibraryCallCount> out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    const std::size_t f = line.find(kFunction);
    if (f == std::string_view::npos) continue;
    auto bad = [&](const char* why) {
      return Error(ExitCode::InputCorrupt, fmt::format("{}:{}: {} (not a rocBLAS profile log line, ROCBLAS_LAYER=4)",
                                                       path, line_no, why));
    };
    // The body between "{ " and " }": comma-separated "key: value" fields, the function first, the count last.
    const std::size_t open = line.find('{'), close = line.rfind('}');
    if (open == std::string_view::npos || close == std::string_view::npos || close < f) throw bad("no { ... } around the fields");
    std::string_view body = line.substr(open + 1, close - open - 1);
    std::string_view name = body.substr(body.find(kFunction) + kFunction.size());
    name = trimmed(name.substr(0, name.find(',')));
    if (name.size() >= 2 && (name.front() == '"' || name.front() == '\'') && name.back() == name.front())
      name = name.substr(1, name.size() - 2);
    if (name.empty()) throw bad("an empty rocblas_function");
    const std::size_t c = body.rfind(kCount);
    if (c == std::string_view::npos) throw bad("no call_count");
    const std::string_view count = trimmed(body.substr(c + kCount.size()));
    LibraryCallCount call;
    auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), call.calls);
    if (ec != std::errc() || end != count.data() + count.size() || call.calls < 0)
      throw bad(fmt::format("call_count '{}' is not a count", count).c_str());
    call.library = "rocBLAS";
    call.function = std::string(name);
    // The arguments: what lies between the function's field and the count's, as rocBLAS wrote it.
    std::string_view args = body.substr(0, c);
    const std::size_t after_name = args.find(',', args.find(kFunction));
    args = after_name == std::string_view::npos ? std::string_view() : trimmed(args.substr(after_name + 1));
    if (!args.empty() && args.back() == ',') args.remove_suffix(1);
    call.arguments = std::string(trimmed(args));
    out.push_back(std::move(call));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> rocblas_profile_environment(const std::string& path) {
  if (const char* set = std::getenv("ROCBLAS_LAYER"); set && *set) return {};
  return {{"ROCBLAS_LAYER", "4"}, {"ROCBLAS_LOG_PROFILE_PATH", path}};
}

std::vector<LibraryCallCount> read_rocblas_profile_log(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  return parse_rocblas_profile_log(read_input_file(path, "rocBLAS profile log"), path);
}

}  // namespace rpl::collectors
