// rpl_spill_convert: converts spill files of the CUDA collector into rocpd databases.
//   rpl_spill_convert FILE.rplspill...   converts each file (and removes it)
//   rpl_spill_convert --dir DIR          converts every leftover spill below DIR
// Prints each database path on stdout. Exit status: 0, or the rpl::ExitCode of the first failure.
#include <cstdio>
#include <cstring>
#include <string>

#include "collectors/nvidia/spill_to_rocpd.hpp"
#include "support/errors.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    std::fprintf(stderr, "usage: %s FILE.rplspill... | --dir DIR\n", argv[0]);
    return argc < 2 ? rpl::to_int(rpl::ExitCode::Usage) : 0;
  }
  try {
    if (!std::strcmp(argv[1], "--dir")) {
      if (argc != 3) {
        std::fprintf(stderr, "--dir takes one directory\n");
        return rpl::to_int(rpl::ExitCode::Usage);
      }
      for (const auto& db : rpl::collectors::convert_leftover_spills(argv[2])) std::printf("%s\n", db.c_str());
      return 0;
    }
    for (int i = 1; i < argc; ++i) std::printf("%s\n", rpl::collectors::convert_spill(argv[i]).c_str());
  } catch (const rpl::Error& e) {
    std::fprintf(stderr, "rpl_spill_convert: %s\n", e.what());
    return rpl::to_int(e.code());
  }
  return 0;
}
