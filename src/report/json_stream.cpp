#include "report/json_stream.hpp"

#include <cmath>

#include <cerrno>
#include <cstring>
#include <fmt/core.h>

#include "support/errors.hpp"

namespace rpl::report {

void JsonStream::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (first_in_container_.empty()) return;
  if (first_in_container_.back())
    first_in_container_.back() = false;
  else
    buf_.push_back(',');
}

void JsonStream::begin_object() {
  separate();
  buf_.push_back('{');
  first_in_container_.push_back(true);
}

void JsonStream::end_object() {
  buf_.push_back('}');
  first_in_container_.pop_back();
  maybe_flush();
}

void JsonStream::begin_array() {
  separate();
  buf_.push_back('[');
  first_in_container_.push_back(true);
}

void JsonStream::end_array() {
  buf_.push_back(']');
  first_in_container_.pop_back();
  maybe_flush();
}

void JsonStream::key(std::string_view k) {
  separate();
  append_string(k);
  buf_.push_back(':');
  after_key_ = true;
}

void JsonStream::value(const nlohmann::json& v) {
  separate();
  // error_handler_t::replace: never throw on a kernel name with invalid UTF-8; write U+FFFD instead.
  append_raw(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  maybe_flush();
}

void JsonStream::value(std::string_view s) {
  separate();
  append_string(s);
  maybe_flush();
}

void JsonStream::value(int64_t v) {
  separate();
  fmt::format_to(std::back_inserter(buf_), "{}", v);
}

void JsonStream::value(uint64_t v) {
  separate();
  fmt::format_to(std::back_inserter(buf_), "{}", v);
}

void JsonStream::value(double v) {
  separate();
  if (std::isfinite(v))
    fmt::format_to(std::back_inserter(buf_), "{}", v);
  else
    append_raw("null");
}

void JsonStream::value(bool v) {
  separate();
  append_raw(v ? "true" : "false");
}

void JsonStream::null() {
  separate();
  append_raw("null");
}

void JsonStream::raw(std::string_view json_text) {
  separate();
  append_raw(json_text);
  maybe_flush();
}

void JsonStream::append_string(std::string_view s) {
  // Reuse nlohmann's escaping (and its UTF-8 handling) rather than writing our own.
  append_raw(nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void JsonStream::flush() {
  if (buf_.size() == 0) return;
  if (std::fwrite(buf_.data(), 1, buf_.size(), out_) != buf_.size())
    throw Error(ExitCode::OutputFailed, fmt::format("could not write JSON output: {}",
                                                    errno ? std::strerror(errno) : "write error"));
  buf_.clear();
}

}  // namespace rpl::report
