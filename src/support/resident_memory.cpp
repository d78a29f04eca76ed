#include "support/resident_memory.hpp"

#include <cstdio>  // first: it defines __GLIBC__ on glibc
#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace rpl {

ResidentMemory resident_memory() {
  ResidentMemory m;
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return m;
  char line[256];
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "VmRSS:", 6) == 0) m.now_kb = std::atol(line + 6);
    if (std::strncmp(line, "VmHWM:", 6) == 0) m.peak_kb = std::atol(line + 6);
  }
  std::fclose(f);
  return m;
}

void reset_peak_resident() {
  if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
}

void map_large_allocations() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 4 << 20);  // a fixed threshold also ends the dynamic one
#endif
}

}  // namespace rpl
