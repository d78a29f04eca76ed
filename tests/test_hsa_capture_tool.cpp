// librpl_hsa_capture.so without an AMD GPU: it exports exactly the HSA tools entry points, and OnLoad patches
// the right entries of API tables laid out as ROCm 5.x (major version 1) and ROCm 6+/7 (major version 2)
// runtimes pass them, forwarding to the runtime's originals; it declines tables it does not know and
// configurations it cannot use without touching anything. Tables here are raw slot arrays (tests/ sees no
// HSA header); slot numbers follow ROCR's hsa_api_trace.h, independently of the tool's own constants.
// Each OnLoad runs in a forked child: the tool is a process-wide singleton, as in a real application.
#include <gtest/gtest.h>

#ifdef RPL_HSA_CAPTURE_LIB
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <sstream>

#include "testing/binary_files.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

struct Version {
  uint32_t major, minor, step, reserved;
};
template <std::size_t N>
struct Table {
  Version version;
  std::array<void*, N> slot;
};
struct Root {  // HsaApiTable: the version, then core_ and amd_ext_ (later members are not read)
  Version version;
  void* core;
  void* amd_ext;
  void* finalizer;
  void* image;
};

int generic_entry() { return 0x1000; }  // HSA_STATUS_ERROR: never expected to be called
int allocations = 0, maps = 0;
int fake_pool_allocate(uint64_t, size_t, uint32_t, void** ptr) {
  ++allocations;
  *ptr = reinterpret_cast<void*>(0x5d00'0000'0000);
  return 0;
}
int fake_pool_free(void*) { return 0; }
int fake_iterate_agents(int (*)(uint64_t, void*), void*) { return 0; }
int fake_vmem_map(void*, size_t, size_t, uint64_t, uint64_t) {
  ++maps;
  return 0;
}

// Slots (after the 16-byte version) in ROCR's AmdExtTable.
constexpr unsigned kPoolAllocate = 13, kPoolFree = 14;
constexpr unsigned kV1InterceptCreate = 35, kV2InterceptCreate = 37;
constexpr unsigned kV2VmemReserve = 55, kV2VmemMap = 59, kV2VmemUnmap = 60;
constexpr unsigned kCoreIterateAgents = 5, kCoreQueueCreate = 7;

struct Tables {
  Root root{};
  Table<200> core{};
  Table<80> amd{};
  Table<80> original{};  // the amd table before OnLoad

  Tables(uint32_t amd_major, unsigned amd_slots) {
    root.version = {1, sizeof(Root), 0, 0};
    core.version = {amd_major == 1 ? 1u : 2u, static_cast<uint32_t>(16 + 8 * core.slot.size()), 0, 0};
    core.slot.fill(reinterpret_cast<void*>(&generic_entry));
    core.slot[kCoreIterateAgents] = reinterpret_cast<void*>(&fake_iterate_agents);
    amd.version = {amd_major, static_cast<uint32_t>(16 + 8 * amd_slots), 0, 0};
    amd.slot.fill(reinterpret_cast<void*>(&generic_entry));
    amd.slot[kPoolAllocate] = reinterpret_cast<void*>(&fake_pool_allocate);
    amd.slot[kPoolFree] = reinterpret_cast<void*>(&fake_pool_free);
    amd.slot[kV2VmemMap] = reinterpret_cast<void*>(&fake_vmem_map);
    original = amd;
    root.core = &core;
    root.amd_ext = &amd;
  }
  bool patched(unsigned slot) const { return amd.slot[slot] != original.slot[slot]; }
};

using OnLoadFn = bool (*)(void*, uint64_t, uint64_t, const char* const*);

// Runs `body` in a child with `env` set; the child's exit status is the first failed check's number.
int in_child(const std::vector<std::pair<std::string, std::string>>& env, const std::function<int(OnLoadFn)>& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    for (const char* k : {"RPL_CAPTURE_DIR", "RPL_CAPTURE_KERNEL", "RPL_CAPTURE_DISPATCH", "RPL_CAPTURE_EXIT"}) unsetenv(k);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    void* lib = dlopen(RPL_HSA_CAPTURE_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib) _exit(100);
    auto on_load = reinterpret_cast<OnLoadFn>(dlsym(lib, "OnLoad"));
    if (!on_load) _exit(101);
    std::exit(body(on_load));  // exit, not _exit: the tool's at-exit report runs
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(HsaCaptureTool, ExportsOnlyTheToolsEntryPoints) {
  int status = 0;
  const std::string out = test::run_shell(std::string("nm -D --defined-only ") + RPL_HSA_CAPTURE_LIB, &status);
  ASSERT_EQ(status, 0) << out;
  std::vector<std::string> names;
  std::istringstream in(out);
  std::string address, type, name;
  while (in >> address >> type >> name) names.push_back(type + " " + name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"T OnLoad", "T OnUnload"})) << out;
}

TEST(HsaCaptureTool, PatchesRocm6TablesBySlotAndForwardsToTheRuntime) {
  test::TempDir tmp;
  const int failed = in_child({{"RPL_CAPTURE_DIR", tmp.path().string()}, {"RPL_CAPTURE_KERNEL", "never_launched"}},
                              [](OnLoadFn on_load) {
                                Tables t(2, 80);
                                if (!on_load(&t.root, 0, 0, nullptr)) return 1;
                                if (!t.patched(kPoolAllocate) || !t.patched(kPoolFree)) return 2;
                                if (!t.patched(kV2InterceptCreate) || t.patched(kV1InterceptCreate)) return 3;
                                if (!t.patched(kV2VmemReserve) || !t.patched(kV2VmemMap) || !t.patched(kV2VmemUnmap)) return 4;
                                if (t.core.slot[kCoreQueueCreate] == reinterpret_cast<void*>(&generic_entry)) return 5;
                                void* p = nullptr;
                                auto alloc = reinterpret_cast<decltype(&fake_pool_allocate)>(t.amd.slot[kPoolAllocate]);
                                if (alloc(7, 4096, 0, &p) != 0 || allocations != 1 || p != reinterpret_cast<void*>(0x5d00'0000'0000))
                                  return 6;
                                auto map = reinterpret_cast<decltype(&fake_vmem_map)>(t.amd.slot[kV2VmemMap]);
                                if (map(p, 4096, 0, 1, 0) != 0 || maps != 1) return 7;
                                return 0;
                              });
  EXPECT_EQ(failed, 0) << "check " << failed << " failed";
  // At exit the tool said why nothing was captured, where `rocm-perf capture` looks.
  EXPECT_EQ(test::read_file(tmp.file("capture_status.txt")),
            "not captured: no launched kernel matched /never_launched/ (0 kernels known)\n");
}

TEST(HsaCaptureTool, PatchesRocm5TablesAtTheirOwnSlotsWithoutVirtualMemory) {
  test::TempDir tmp;
  const int failed = in_child({{"RPL_CAPTURE_DIR", tmp.path().string()}}, [](OnLoadFn on_load) {
    Tables t(1, 48);  // ROCm 5.2's table: 48 entries
    if (!on_load(&t.root, 0, 0, nullptr)) return 1;
    if (!t.patched(kV1InterceptCreate) || t.patched(kV2InterceptCreate)) return 2;
    if (t.patched(kV2VmemReserve) || t.patched(kV2VmemMap)) return 3;
    return t.patched(kPoolAllocate) ? 0 : 4;
  });
  EXPECT_EQ(failed, 0) << "check " << failed << " failed";
}

TEST(HsaCaptureTool, ARuntimeTableTooShortForVirtualMemoryLeavesThoseEntriesAlone) {
  test::TempDir tmp;
  const int failed = in_child({{"RPL_CAPTURE_DIR", tmp.path().string()}}, [](OnLoadFn on_load) {
    Tables t(2, 50);  // a major-2 table that ends before the vmem entries
    if (!on_load(&t.root, 0, 0, nullptr)) return 1;
    if (t.patched(kV2VmemReserve) || t.patched(kV2VmemMap)) return 2;
    return t.patched(kV2InterceptCreate) ? 0 : 3;
  });
  EXPECT_EQ(failed, 0) << "check " << failed << " failed";
}

TEST(HsaCaptureTool, DeclinesUnknownTablesAndUnusableConfigurationsTouchingNothing) {
  test::TempDir tmp;
  const auto untouched = [](uint32_t major) {
    return [major](OnLoadFn on_load) {
      Tables t(major, 80);
      if (on_load(&t.root, 0, 0, nullptr)) return 1;
      for (unsigned i = 0; i < 80; ++i)
        if (t.patched(i)) return 2;
      return t.core.slot[kCoreQueueCreate] == reinterpret_cast<void*>(&generic_entry) ? 0 : 3;
    };
  };
  EXPECT_EQ(in_child({{"RPL_CAPTURE_DIR", tmp.path().string()}}, untouched(3)), 0) << "an unknown major version";
  EXPECT_EQ(in_child({}, untouched(2)), 0) << "RPL_CAPTURE_DIR unset";
  EXPECT_EQ(in_child({{"RPL_CAPTURE_DIR", tmp.path().string()}, {"RPL_CAPTURE_KERNEL", "bad("}}, untouched(2)), 0)
      << "an invalid regex";
  EXPECT_EQ(in_child({{"RPL_CAPTURE_DIR", tmp.path().string()}, {"RPL_CAPTURE_DISPATCH", "0"}}, untouched(2)), 0)
      << "K = 0";
}

}  // namespace
}  // namespace rpl
#else
TEST(HsaCaptureTool, NotBuilt) { GTEST_SKIP() << "librpl_hsa_capture.so is not built here (no HSA headers: libhsa-runtime-dev)"; }
#endif
