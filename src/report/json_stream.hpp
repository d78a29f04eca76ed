#pragma once
// A small streaming JSON writer for the large arrays of our outputs (per-dispatch rows of a 10M-dispatch
// trace), which a DOM library would hold in memory several times over. Small objects are still built with
// nlohmann::json and written through value().
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <type_traits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::report {

class JsonStream {
 public:
  explicit JsonStream(std::FILE* out) : out_(out) {}
  // Never throws: on an exception the output is abandoned anyway. Callers flush() before the end, which
  // reports a write error.
  ~JsonStream() {
    try {
      flush();
    } catch (...) {
    }
  }
  JsonStream(const JsonStream&) = delete;
  JsonStream& operator=(const JsonStream&) = delete;

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(std::string_view k);  // inside an object, before its value

  void value(const nlohmann::json& v);
  void value(std::string_view s);
  void value(int64_t v);
  void value(uint64_t v);
  void value(int v) { value(static_cast<int64_t>(v)); }
  void value(unsigned v) { value(static_cast<uint64_t>(v)); }
  void value(double v);  // non-finite values are written as null
  void value(bool v);
  void null();
  // An already-encoded JSON value (an object built once in a reused buffer, a name escaped once), written
  // as the next element: for hot loops where key()/value() per field would allocate per call.
  void raw(std::string_view json_text);

  // A row of numbers as one compact array: [a,b,c].
  template <typename... Ts>
  void row(Ts... values) {
    separate();
    buf_.push_back('[');
    bool first = true;
    ((append_number(values, first)), ...);
    buf_.push_back(']');
    maybe_flush();
  }

  void flush();

 private:
  template <typename T>
  void append_number(T v, bool& first) {
    if (!first) buf_.push_back(',');
    first = false;
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isfinite(v))
        fmt::format_to(std::back_inserter(buf_), "{}", v);
      else
        append_raw("null");
    } else {
      fmt::format_to(std::back_inserter(buf_), "{}", v);
    }
  }
  void separate();  // writes a comma when this is not the first element of the current container
  void append_raw(std::string_view s) { buf_.append(s.data(), s.data() + s.size()); }
  void append_string(std::string_view s);
  void maybe_flush() {
    if (buf_.size() > (1u << 20)) flush();
  }

  std::FILE* out_;
  fmt::memory_buffer buf_;
  std::vector<bool> first_in_container_;
  bool after_key_ = false;
};

}  // namespace rpl::report
