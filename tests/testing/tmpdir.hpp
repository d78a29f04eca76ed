#pragma once
// A temporary directory that removes itself.
#include <filesystem>
#include <string>

namespace rpl::test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace rpl::test
