#pragma once
// The process's resident memory, for --debug logs that say where a run's memory peak is (issue 32).
namespace rpl {

struct ResidentMemory {
  long now_kb = -1;   // VmRSS; -1 where /proc/self/status is not readable
  long peak_kb = -1;  // VmHWM: the peak since the start or since the last reset_peak_resident()
};
ResidentMemory resident_memory();

// Resets the peak (VmHWM, and getrusage's ru_maxrss with it) to the present resident set (Linux >= 4.0), so
// that the next step's peak is its own. Only --debug does this: `/usr/bin/time` then reports the last step's peak.
void reset_peak_resident();

// Buffers of 4 MiB and more are mapped apart for the rest of the process, so that freeing one gives its pages
// back at once. glibc raises its mapping threshold (up to 32 MiB) each time a mapped buffer is freed; buffers below
// it then come from the heap and, freed, stay resident as free heap that a later, larger buffer does not reuse
// (issue 32: at 100M dispatches about 100 MB of resident memory after the sync-edge build). Call once, first thing in main. No-op off glibc.
void map_large_allocations();

}  // namespace rpl
