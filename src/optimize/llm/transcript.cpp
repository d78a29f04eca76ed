#include "optimize/llm/transcript.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "support/errors.hpp"

namespace rpl::optimize::llm {
namespace {

nlohmann::json initial_summary(const std::string& path) {
  return {{"schema_version", kTranscriptSchemaVersion},
          {"transcript", path.empty() ? nlohmann::json() : nlohmann::json(path)},
          {"requests", 0},
          {"usage", {{"prompt_tokens", 0}, {"completion_tokens", 0}, {"total_tokens", 0}, {"estimated", false}}},
          {"failed_responses", nlohmann::json::array()}};
}

}  // namespace

TranscriptWriter::TranscriptWriter() : summary_(initial_summary("")) {}

TranscriptWriter::TranscriptWriter(std::string path, std::string secret)
    : path_(std::move(path)), secret_(std::move(secret)), summary_(initial_summary(path_)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(ExitCode::OutputFailed, fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
}

TranscriptWriter::~TranscriptWriter() {
  if (fd_ >= 0) ::close(fd_);
}

long TranscriptWriter::append(nlohmann::json line) {
  long seq = next_seq_++;
  line["seq"] = seq;
  if (fd_ < 0) return seq;
  // Invalid UTF-8 from a model must not make the transcript unwritable: replace it.
  std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (!secret_.empty())
    for (size_t pos = text.find(secret_); pos != std::string::npos; pos = text.find(secret_, pos))
      text.replace(pos, secret_.size(), "[REDACTED]");
  text += '\n';
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(ExitCode::OutputFailed, fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
    p += n;
    left -= static_cast<size_t>(n);
  }
  return seq;
}

}  // namespace rpl::optimize::llm
