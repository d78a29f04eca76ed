#include "testing/binary_files.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace rpl::test {

std::vector<std::byte> read_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  std::transform(chars.begin(), chars.end(), out.begin(), [](char c) { return static_cast<std::byte>(c); });
  return out;
}

void write_binary(const std::string& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::vector<std::byte> to_bytes(const std::string& text) {
  std::vector<std::byte> out(text.size());
  std::transform(text.begin(), text.end(), out.begin(), [](char c) { return static_cast<std::byte>(c); });
  return out;
}

std::size_t find_bytes(const std::vector<std::byte>& haystack, const std::string& needle) {
  const auto n = to_bytes(needle);
  auto it = std::search(haystack.begin(), haystack.end(), n.begin(), n.end());
  if (it == haystack.end()) {
    ADD_FAILURE() << "byte pattern not found: " << needle;
    return std::string::npos;
  }
  return static_cast<std::size_t>(it - haystack.begin());
}

void expect_error(const std::function<void()>& body, ExitCode code, std::initializer_list<std::string> fragments) {
  try {
    body();
    ADD_FAILURE() << "expected rpl::Error with exit code " << to_int(code) << ", nothing was thrown";
  } catch (const Error& e) {
    EXPECT_EQ(to_int(e.code()), to_int(code)) << e.what();
    for (const auto& fragment : fragments) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
          << "message \"" << e.what() << "\" lacks \"" << fragment << "\"";
    }
  }
}

std::string run_shell(const std::string& command, int* status) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed: " + command);
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  const int raw = ::pclose(pipe);
  if (status != nullptr) *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

}  // namespace rpl::test
