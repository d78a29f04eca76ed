#pragma once
// For the device-library stand-ins (fake_nvml.cpp, fake_rocm_smi.cpp): wall time since the library was first
// asked, so that their energy counters advance at a fixed power.
#include <time.h>

namespace rpl::test {

inline double seconds_since_load() {
  static timespec start = [] {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t;
  }();
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return double(now.tv_sec - start.tv_sec) + double(now.tv_nsec - start.tv_nsec) * 1e-9;
}

}  // namespace rpl::test
