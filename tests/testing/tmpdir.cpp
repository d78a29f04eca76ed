#include "testing/tmpdir.hpp"

#include <cstdlib>
#include <stdexcept>

namespace rpl::test {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "rpl-test-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace rpl::test
