#include "collectors/nvidia/library_api_logs.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>

#include "support/atomic_file.hpp"
#include "support/errors.hpp"
#include "support/input_file.hpp"

namespace rpl::collectors {
namespace fs = std::filesystem;
namespace {

std::string_view trim_log(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

template <typename Int>
std::optional<Int> log_integer(std::string_view s) {
  s = trim_log(s);
  Int v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Days since 1970-01-01 of a proleptic Gregorian date (the civil-from-days inverse, H. Hinnant's formula).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// "2026-11-29T10:00:00[.123456]" or "2026-11-29 10:00:00[.123456]" (the first token of `s`): nanoseconds of that
// wall-clock reading as if it were UTC, and the resolution its digits give.
std::optional<std::pair<TimeNs, TimeNs>> civil_time(std::string_view s) {
  s = trim_log(s);
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':')
    return std::nullopt;
  const auto y = log_integer<int64_t>(s.substr(0, 4));
  const auto mo = log_integer<unsigned>(s.substr(5, 2)), d = log_integer<unsigned>(s.substr(8, 2));
  const auto h = log_integer<int64_t>(s.substr(11, 2)), mi = log_integer<int64_t>(s.substr(14, 2));
  const auto sec = log_integer<int64_t>(s.substr(17, 2));
  if (!y || !mo || !d || !h || !mi || !sec || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59 || *sec > 60)
    return std::nullopt;
  TimeNs ns = ((days_from_civil(*y, *mo, *d) * 24 + *h) * 60 + *mi) * 60 + *sec;
  ns *= 1'000'000'000;
  TimeNs resolution = 1'000'000'000;
  if (s.size() > 19 && s[19] == '.') {
    std::size_t digits = 0;
    TimeNs fraction = 0;
    while (20 + digits < s.size() && s[20 + digits] >= '0' && s[20 + digits] <= '9' && digits < 9)
      fraction = fraction * 10 + (s[20 + digits++] - '0');
    if (digits == 0) return std::nullopt;
    for (std::size_t i = digits; i < 9; ++i) fraction *= 10;
    ns += fraction;
    resolution = 1;
    for (std::size_t i = digits; i < 9; ++i) resolution *= 10;
  }
  return std::pair{ns, resolution};
}

// Set-up calls (handles, descriptors, attributes, queries) launch no GPU work: they are listed but never linked to
// kernels. Read from the function's CamelCase words after the library's prefix.
bool may_launch_work(std::string_view function) {
  static constexpr std::array<std::string_view, 12> kSetUpWords = {
      "Create", "Destroy", "Set", "Get", "Finalize", "Init", "Version", "Property", "Heuristic", "Config", "Query",
      "Logger"};
  // words: an upper-case letter and the lower-case letters after it ("cublasCreate_v2" -> "Create")
  for (std::size_t i = 0; i < function.size(); ++i) {
    if (!(function[i] >= 'A' && function[i] <= 'Z')) continue;
    std::size_t end = i + 1;
    while (end < function.size() && function[end] >= 'a' && function[end] <= 'z') ++end;
    if (std::find(kSetUpWords.begin(), kSetUpWords.end(), function.substr(i, end - i)) != kSetUpWords.end()) return false;
  }
  return true;
}

// "CUBLAS_OP_T(1)" -> "CUBLAS_OP_T", "CUDNN_DATA_FLOAT (0);" -> "CUDNN_DATA_FLOAT": the enumerator's name without its
// number; other values as written.
std::string_view clean_value(std::string_view v) {
  v = trim_log(v);
  while (!v.empty() && v.back() == ';') v = trim_log(v.substr(0, v.size() - 1));
  if (v.size() > 2 && v.back() == ')') {
    const std::size_t open = v.rfind('(');
    if (open != std::string_view::npos && open > 0 && log_integer<int64_t>(v.substr(open + 1, v.size() - open - 2)))
      return trim_log(v.substr(0, open));
  }
  return v;
}

struct LogText {
  std::string_view rest;
  std::size_t line_no = 0;
  bool next(std::string_view& line) {
    if (rest.empty()) return false;
    const std::size_t nl = rest.find('\n');
    line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    ++line_no;
    return true;
  }
};

Error corrupt_log_line(const std::string& path, std::size_t line_no, std::string_view what, std::string_view format) {
  return Error(ExitCode::InputCorrupt, fmt::format("{}:{}: {} (not a {} API log line)", path, line_no, what, format));
}

// cuBLAS's and cuDNN's shared layout: "I! <banner> function <...> NAME(<...>) called:" opens a call, "i! " lines
// carry its arguments, time, process and thread. Only the arguments named in `keys` are kept. A record that never
// gets its Time line (the file ends inside it, or threads' records interleave) is dropped: without a time it
// cannot be placed. An "I!" line of another shape is not a call and is skipped.
std::vector<LoggedLibraryCall> parse_info_log(std::string_view text, const std::string& path, const char* library,
                                              std::string_view banner, const char* format,
                                              std::initializer_list<std::string_view> keys) {
  std::vector<LoggedLibraryCall> out;
  std::vector<bool> returns;  // per record: cuDNN 9's return record ("status: type=cudnnStatus_t"), not a call
  LogText log{text};
  std::string_view line;
  bool in_call = false;  // inside an "I!" record (other severities' records, "W!" / "E!", are skipped)
  bool timed = false;
  auto close = [&] {
    if (in_call && !timed) out.pop_back(), returns.pop_back();
    in_call = false;
  };
  while (log.next(line)) {
    std::string_view l = trim_log(line);
    if (l.size() >= 2 && (l[0] == 'I' || l[0] == 'W' || l[0] == 'E') && l[1] == '!') {
      close();
      const std::size_t f = l.find(" function ");
      if (l[0] != 'I' || l.find(banner) == std::string_view::npos || f == std::string_view::npos ||
          !(l.ends_with(" called:") || l.ends_with(" called")))
        continue;
      const std::size_t paren = l.find('(', f);
      std::string_view name = trim_log(l.substr(f + 10, paren == std::string_view::npos ? 0 : paren - f - 10));
      name = name.substr(name.rfind(' ') == std::string_view::npos ? 0 : name.rfind(' ') + 1);
      if (name.empty()) throw corrupt_log_line(path, log.line_no, "a call header without a function name", format);
      LoggedLibraryCall c;
      c.library = library;
      c.function = std::string(name);
      c.may_launch_work = may_launch_work(name);
      c.log_file = path;
      out.push_back(std::move(c));
      returns.push_back(false);
      in_call = true;
      timed = false;
      continue;
    }
    if (!in_call || l.size() < 2 || l[0] != 'i' || l[1] != '!') continue;
    l = trim_log(l.substr(2));
    LoggedLibraryCall& c = out.back();
    if (l.starts_with("Time:")) {
      const auto t = civil_time(l.substr(5));
      if (!t) throw corrupt_log_line(path, log.line_no, fmt::format("unreadable time '{}'", trim_log(l.substr(5))), format);
      c.time = t->first;
      c.resolution = t->second;
      timed = true;
    } else if (l.starts_with("Process=")) {
      for (std::size_t at = 0; at < l.size();) {
        std::size_t semi = l.find(';', at);
        if (semi == std::string_view::npos) semi = l.size();
        const std::string_view field = trim_log(l.substr(at, semi - at));
        at = semi + 1;
        const std::size_t eq = field.find('=');
        if (eq == std::string_view::npos) continue;
        const std::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
        if (key == "Process") {
          const auto pid = log_integer<int64_t>(value);
          if (!pid) throw corrupt_log_line(path, log.line_no, fmt::format("process '{}' is not a number", value), format);
          c.pid = *pid;
        } else if (key == "Thread") {
          const auto tid = log_integer<uint64_t>(value);
          if (!tid) throw corrupt_log_line(path, log.line_no, fmt::format("thread '{}' is not a number", value), format);
          c.thread = *tid;
        }
      }
    } else if (const std::size_t colon = l.find(": type="); colon != std::string_view::npos) {
      const std::string_view key = l.substr(0, colon);
      if (key == "status" && l.find("type=cudnnStatus_t", colon) != std::string_view::npos) returns.back() = true;
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) continue;
      const std::size_t val = l.find("val=", colon);
      if (val == std::string_view::npos) continue;
      std::string_view value = clean_value(l.substr(val + 4));
      c.arguments += fmt::format("{}{}={}", c.arguments.empty() ? "" : " ", key, value);
    }
  }
  close();
  // A return record ends the latest open call of its function on its process and thread (calls it made inside
  // and that logged no return stay open); it is no call of its own.
  std::vector<LoggedLibraryCall> calls;
  std::map<std::pair<int64_t, uint64_t>, std::vector<std::size_t>> open;  // (pid, thread) -> calls, outermost first
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::vector<std::size_t>& stack = open[{out[i].pid, out[i].thread}];
    if (!returns[i]) {
      stack.push_back(calls.size());
      calls.push_back(std::move(out[i]));
      continue;
    }
    for (std::size_t k = stack.size(); k-- > 0;) {
      if (calls[stack[k]].function != out[i].function) continue;
      calls[stack[k]].end = std::max(out[i].time, calls[stack[k]].time);
      stack.resize(k);
      break;
    }
  }
  return calls;
}

// cuBLASLt's "key=value key=[k=v ...] ..." fields: the top-level ones, a bracketed value without its brackets.
std::map<std::string, std::string, std::less<>> lt_fields(std::string_view s) {
  std::map<std::string, std::string, std::less<>> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const std::size_t eq = s.find('=', i);
    if (eq == std::string_view::npos) break;
    const std::string_view key = s.substr(i, eq - i);
    std::size_t end = eq + 1;
    if (end < s.size() && s[end] == '[') {
      int depth = 0;
      for (; end < s.size(); ++end) {
        if (s[end] == '[') ++depth;
        if (s[end] == ']' && --depth == 0) break;
      }
      out[std::string(key)] = std::string(s.substr(eq + 2, std::min(end, s.size()) - eq - 2));
      i = end + 1;
    } else {
      while (end < s.size() && s[end] != ' ') ++end;
      out[std::string(key)] = std::string(s.substr(eq + 1, end - eq - 1));
      i = end;
    }
  }
  return out;
}

std::string field_or(const std::map<std::string, std::string, std::less<>>& f, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (auto it = f.find(k); it != f.end()) return it->second;
  return "";
}

// The key arguments of a cuBLASLt matmul line: m, n (D's rows and columns), k (A's inner dimension under its
// transpose), the transposes, A's and D's types and the compute type. Other calls: their fields as written.
std::string lt_arguments(std::string_view function, std::string_view rest) {
  // cublasLtMatmul, and the typed matmuls cuBLAS's own GEMMs log at the Trace level (cublasLtSSSMatmul, ...TSTMatmul)
  if (!function.ends_with("Matmul")) return std::string(rest.substr(0, 200));
  const auto top = lt_fields(rest);
  const auto a = lt_fields(field_or(top, {"Adesc"})), d = lt_fields(field_or(top, {"Ddesc", "Cdesc"}));
  const auto compute = lt_fields(field_or(top, {"computeDesc"}));
  const std::string transa = field_or(compute, {"transa", "transA"}), transb = field_or(compute, {"transb", "transB"});
  const bool a_transposed = !transa.empty() && transa != "OP_N";
  std::string out;
  auto add = [&](const char* key, const std::string& value) {
    if (!value.empty()) out += fmt::format("{}{}={}", out.empty() ? "" : " ", key, value);
  };
  add("m", field_or(d, {"rows"}));
  add("n", field_or(d, {"cols"}));
  add("k", field_or(a, {a_transposed ? "rows" : "cols"}));
  add("transa", transa.empty() ? std::string("OP_N") : transa);
  add("transb", transb.empty() ? std::string("OP_N") : transb);
  add("Atype", field_or(a, {"type"}));
  add("Dtype", field_or(d, {"type"}));
  add("computeType", field_or(compute, {"computeType"}));
  return out;
}

}  // namespace

LibraryLogEnvironment library_log_environment(const std::string& dir) {
  struct Library {
    const char* name;
    std::initializer_list<const char*> users;  // any of these set: the user's logging stays
    std::vector<std::pair<std::string, std::string>> ours;
  };
  const fs::path d(dir);
  const Library libraries[] = {
      {"cuBLAS", {"CUBLAS_LOGINFO_DBG", "CUBLAS_LOGDEST_DBG"},
       {{"CUBLAS_LOGINFO_DBG", "1"}, {"CUBLAS_LOGDEST_DBG", (d / "cublas.log").string()}}},
      {"cuBLASLt", {"CUBLASLT_LOG_LEVEL", "CUBLASLT_LOG_MASK", "CUBLASLT_LOG_FILE"},
       {{"CUBLASLT_LOG_LEVEL", "5"}, {"CUBLASLT_LOG_FILE", (d / "cublaslt_%i.log").string()}}},
      {"cuDNN", {"CUDNN_LOGLEVEL_DBG", "CUDNN_LOGDEST_DBG", "CUDNN_LOGINFO_DBG"},
       {{"CUDNN_LOGLEVEL_DBG", "3"}, {"CUDNN_LOGDEST_DBG", (d / "cudnn.log").string()}}}};
  LibraryLogEnvironment out;
  for (const Library& lib : libraries) {
    const char* set = nullptr;
    for (const char* v : lib.users)
      if (const char* value = std::getenv(v); value && *value) set = v;
    if (set) out.kept.push_back(fmt::format("{} ({} is set)", lib.name, set));
    else out.env.insert(out.env.end(), lib.ours.begin(), lib.ours.end());
  }
  return out;
}

LibraryLogClock current_library_log_clock() {
  timespec boot{}, real{};
  clock_gettime(CLOCK_BOOTTIME, &boot);
  clock_gettime(CLOCK_REALTIME, &real);
  LibraryLogClock c;
  c.trace_clock_ns = static_cast<int64_t>(boot.tv_sec) * 1'000'000'000 + boot.tv_nsec;
  c.realtime_ns = static_cast<int64_t>(real.tv_sec) * 1'000'000'000 + real.tv_nsec;
  std::tm local{};
  const std::time_t now = real.tv_sec;
  localtime_r(&now, &local);
  c.utc_offset_s = local.tm_gmtoff;
  return c;
}

void write_library_log_clock(const std::string& dir, const LibraryLogClock& c) {
  const std::string text =
      fmt::format("realtime_ns={}\ntrace_clock_ns={}\nutc_offset_s={}\n", c.realtime_ns, c.trace_clock_ns, c.utc_offset_s);
  write_file_atomically((fs::path(dir) / "clock.txt").string(),
                        [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
}

std::vector<LoggedLibraryCall> parse_cublas_log(std::string_view text, const std::string& path) {
  return parse_info_log(text, path, "cuBLAS", "cuBLAS (", "cuBLAS (CUBLAS_LOGINFO_DBG)",
                        {"transa", "transb", "m", "n", "k", "Atype", "Btype", "Ctype", "computeType", "batchCount"});
}

std::vector<LoggedLibraryCall> parse_cudnn_log(std::string_view text, const std::string& path) {
  return parse_info_log(text, path, "cuDNN", "CuDNN (", "cuDNN (CUDNN_LOGLEVEL_DBG)",
                        {"dataType", "mathType", "mode", "dimA", "filterDimA", "padA", "strideA", "dilationA", "algo",
                         "computeType"});
}

std::vector<LoggedLibraryCall> parse_cublaslt_log(std::string_view text, const std::string& path) {
  static constexpr const char* kFormat = "cuBLASLt (CUBLASLT_LOG_LEVEL)";
  std::vector<LoggedLibraryCall> out;
  std::map<int64_t, std::pair<std::size_t, bool>> last_api;  // per pid: its last Api call, and whether a Trace line joined it
  LogText log{text};
  std::string_view line;
  while (log.next(line)) {
    std::string_view l = trim_log(line);
    // [time][library][pid][category][function] rest; older cuBLASLt writes no time: [library][pid][category][function]
    if (l.size() < 6 || l[0] != '[') continue;
    const bool dated = log_integer<int>(l.substr(1, 4)) && l[5] == '-';
    if (!dated && !(l.starts_with("[cublasLt][") || l.starts_with("[CUBLASLT]["))) continue;  // another kind of line
    std::array<std::string_view, 5> f;
    std::size_t at = 0;
    for (std::size_t i = dated ? 0 : 1; i < f.size(); ++i) {
      if (at >= l.size() || l[at] != '[')
        throw corrupt_log_line(path, log.line_no, dated ? "fewer than five [fields]" : "fewer than four [fields]", kFormat);
      const std::size_t close = l.find(']', at);
      if (close == std::string_view::npos) throw corrupt_log_line(path, log.line_no, "an unclosed [field]", kFormat);
      f[i] = l.substr(at + 1, close - at - 1);
      at = close + 1;
    }
    const std::string_view category = f[3], function = f[4], rest = trim_log(l.substr(at));
    if (category != "Api" && category != "Trace") continue;  // Info, Hints, Error: about a call already listed
    const auto t = dated ? civil_time(f[0]) : std::optional<std::pair<TimeNs, TimeNs>>(std::pair<TimeNs, TimeNs>{0, 0});
    if (!t) throw corrupt_log_line(path, log.line_no, fmt::format("unreadable time '{}'", f[0]), kFormat);
    const auto pid = log_integer<int64_t>(f[2]);
    if (!pid) throw corrupt_log_line(path, log.line_no, fmt::format("process '{}' is not a number", f[2]), kFormat);
    if (function.empty()) throw corrupt_log_line(path, log.line_no, "an empty function name", kFormat);
    // A Trace line (level 2: a call that launches kernels) repeats the Api line of the same call: it adds the
    // arguments the Api line lacks rather than a second call.
    if (category == "Trace") {
      auto it = last_api.find(*pid);
      if (it != last_api.end() && !it->second.second && out[it->second.first].function == function) {
        it->second.second = true;
        // the Api line names the descriptors by pointer; the Trace line writes them out
        if (std::string args = lt_arguments(function, rest); !args.empty()) out[it->second.first].arguments = std::move(args);
        continue;
      }
    }
    LoggedLibraryCall c;
    c.library = "cuBLASLt";
    c.function = std::string(function);
    c.arguments = lt_arguments(function, rest);
    c.pid = *pid;
    c.time = t->first;
    c.resolution = t->second;
    c.may_launch_work = may_launch_work(function);
    c.log_file = path;
    out.push_back(std::move(c));
    last_api[*pid] = {out.size() - 1, category == "Trace"};
  }
  return out;
}

void to_trace_clock(std::vector<LoggedLibraryCall>& calls, const LibraryLogClock& clock) {
  for (LoggedLibraryCall& c : calls)
    if (c.resolution > 0) {
      if (c.end != 0) c.end = c.end - clock.utc_offset_s * 1'000'000'000 - clock.realtime_ns + clock.trace_clock_ns;
      c.time = c.time - clock.utc_offset_s * 1'000'000'000 - clock.realtime_ns + clock.trace_clock_ns;
    }
}

std::vector<LoggedLibraryCall> read_library_api_logs(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return {};
  std::vector<std::string> cublas, cublaslt, cudnn;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == "cublas.log") cublas.push_back(entry.path().string());
    else if (name == "cudnn.log") cudnn.push_back(entry.path().string());
    else if (name.starts_with("cublaslt_") && name.ends_with(".log")) cublaslt.push_back(entry.path().string());
  }
  std::sort(cublaslt.begin(), cublaslt.end());
  std::vector<LoggedLibraryCall> out;
  auto read = [&](const std::vector<std::string>& files, auto parse, const char* what) {
    for (const std::string& path : files) {
      auto calls = parse(read_input_file(path, what), path);
      out.insert(out.end(), std::make_move_iterator(calls.begin()), std::make_move_iterator(calls.end()));
    }
  };
  read(cublas, parse_cublas_log, "cuBLAS API log");
  read(cublaslt, parse_cublaslt_log, "cuBLASLt API log");
  read(cudnn, parse_cudnn_log, "cuDNN API log");
  if (out.empty()) return out;
  // clock.txt: written by the collector before the application started
  const std::string clock_path = (fs::path(dir) / "clock.txt").string();
  const std::string text = read_input_file(clock_path, "library log clock file");
  LibraryLogClock clock;
  int found = 0;
  LogText lines{text};
  std::string_view line;
  while (lines.next(line)) {
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const auto v = log_integer<int64_t>(line.substr(eq + 1));
    const std::string_view key = line.substr(0, eq);
    if (!v) throw Error(ExitCode::InputCorrupt, fmt::format("{}:{}: '{}' is not a number", clock_path, lines.line_no, line));
    if (key == "realtime_ns") clock.realtime_ns = *v, found |= 1;
    else if (key == "trace_clock_ns") clock.trace_clock_ns = *v, found |= 2;
    else if (key == "utc_offset_s") clock.utc_offset_s = *v, found |= 4;
  }
  if (found != 7)
    throw Error(ExitCode::InputCorrupt,
                fmt::format("{}: needs realtime_ns, trace_clock_ns and utc_offset_s (written by rocm-perf profile)", clock_path));
  to_trace_clock(out, clock);
  return out;
}

}  // namespace rpl::collectors
