#pragma once
// Small helpers for tests that read or build binary files, and for checking rpl::Error results.
#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "support/errors.hpp"

namespace rpl::test {

std::vector<std::byte> read_binary(const std::string& path);
void write_binary(const std::string& path, const std::vector<std::byte>& bytes);
std::vector<std::byte> to_bytes(const std::string& text);
// Offset of the first occurrence of `needle` in `haystack`; fails the test (and returns npos) if absent.
std::size_t find_bytes(const std::vector<std::byte>& haystack, const std::string& needle);

// Runs `body`, expects an rpl::Error with `code` whose message contains every string in `fragments`.
void expect_error(const std::function<void()>& body, ExitCode code, std::initializer_list<std::string> fragments);

// Runs a shell command; returns its stdout, and its exit status through `status`.
std::string run_shell(const std::string& command, int* status = nullptr);

}  // namespace rpl::test
