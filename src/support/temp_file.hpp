#pragma once
// Temporary files for outputs that are renamed into place when complete.
//
// The name is "<dir>/.<name>.partial-<pid>-XXXXXX", made unique by mkstemp (O_CREAT|O_EXCL, mode 0600):
// a file or symlink planted under a predictable name is never followed, truncated or reused. commit() gives
// the file the mode open(2) would have (0666 & ~umask) before renaming it into place. A temporary
// file is removed when its owner is destroyed without commit(), and by a handler on SIGINT, SIGTERM, SIGHUP
// and SIGPIPE (which then re-raises the signal). After SIGKILL or a power cut one can remain: the next
// TempFile for the same target removes those whose <pid> is no longer a running process.
#include <filesystem>
#include <string>

namespace rpl {

class TempFile {
 public:
  // Creates the temporary file beside `target`; throws Error(OutputFailed) naming the folder on failure.
  explicit TempFile(const std::string& target);
  ~TempFile();  // removes the file unless committed
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }
  const std::string& target() const { return target_; }
  // The open descriptor (O_RDWR); the caller may take it over with release_fd().
  int fd() const { return fd_; }
  int release_fd();
  // Renames the file onto the target (closing the descriptor first if still held); throws OutputFailed.
  void commit();

 private:
  std::string target_, path_;
  int fd_ = -1;
  int slot_ = -1;  // index in the signal-cleanup table
  bool committed_ = false;
};

// The folder for temporary files and folders: $TMPDIR when it is set, /tmp otherwise (as
// std::filesystem::temp_directory_path). Throws Error(OutputFailed) naming TMPDIR when that is not a folder, so a
// wrong TMPDIR is reported, never silently replaced by /tmp.
std::filesystem::path temporary_directory();

// The stale-file pattern, for documentation and tests: true when `file_name` is a temporary of `target_name`.
bool is_temp_name_for(const std::string& file_name, const std::string& target_name);

}  // namespace rpl
