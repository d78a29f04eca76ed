// Test double for `rocm-perf autotune`, clearly a stand-in: looks a configuration up in a table of measured
// (or synthetic) objectives and prints "time_ms: X", as a self-timing program would; a configuration the
// table marks invalid fails like a kernel that does not launch. Lets the tuner and its benchmark run the
// real per-configuration process path without a GPU.
// Usage: autotune_standin TABLE.csv NAME=VALUE...   (TABLE: header "P1,P2,...,time_ms", then one row per
// configuration; time_ms is a number or "invalid: reason")
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream s(line);
  std::string cell;
  while (std::getline(s, cell, ',')) out.push_back(cell);
  return out;
}

bool same_number(const std::string& a, const std::string& b) {
  char* ea = nullptr;
  char* eb = nullptr;
  const double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
  return *ea == '\0' && *eb == '\0' && x == y;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: autotune_standin TABLE.csv NAME=VALUE...\n");
    return 2;
  }
  std::map<std::string, std::string> want;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const auto eq = a.find('=');
    if (eq == std::string::npos) {
      std::fprintf(stderr, "autotune_standin: argument \"%s\" is not NAME=VALUE\n", argv[i]);
      return 2;
    }
    want[a.substr(0, eq)] = a.substr(eq + 1);
  }
  std::ifstream in(argv[1]);
  std::string line;
  if (!in || !std::getline(in, line)) {
    std::fprintf(stderr, "autotune_standin: cannot read %s\n", argv[1]);
    return 2;
  }
  const std::vector<std::string> header = split(line);
  std::vector<int> column;  // header column of each wanted parameter
  for (std::size_t c = 0; c + 1 < header.size(); ++c)
    if (!want.count(header[c])) {
      std::fprintf(stderr, "autotune_standin: parameter %s not given\n", header[c].c_str());
      return 2;
    }
  while (std::getline(in, line)) {
    const std::vector<std::string> row = split(line);
    if (row.size() != header.size()) continue;
    bool match = true;
    for (std::size_t c = 0; c + 1 < header.size() && match; ++c) match = same_number(row[c], want[header[c]]);
    if (!match) continue;
    const std::string& t = row.back();
    if (t.rfind("invalid", 0) == 0) {
      std::fprintf(stderr, "%s\n", t.c_str());
      return 1;
    }
    std::printf("kernel ran\ntime_ms: %s\n", t.c_str());
    return 0;
  }
  std::fprintf(stderr, "autotune_standin: configuration not in the table\n");
  return 3;
}
