#include "collectors/amd/replay_runner/replay_kernel.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <span>
#include <thread>

#include "collectors/amd/dispatch_selector.hpp"
#include "support/errors.hpp"

namespace rpl::hsa_replay {
namespace {

namespace amd = collectors::amd;

template <typename T>
T symbol_info(const HsaRuntime& rt, hsa_executable_symbol_t symbol, hsa_executable_symbol_info_t what) {
  T value{};
  rt.symbol_get_info(symbol, what, &value);
  return value;
}

std::string symbol_name(const HsaRuntime& rt, hsa_executable_symbol_t symbol) {
  const auto length = symbol_info<uint32_t>(rt, symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH);
  std::string name(length, '\0');
  rt.symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name.data());
  return name;
}

struct SymbolList {
  const HsaRuntime* rt;
  hsa_symbol_kind_t kind;
  std::vector<std::string> names;
  std::vector<hsa_executable_symbol_t> symbols;
};

hsa_status_t list_symbol(hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t symbol, void* data) {
  auto* list = static_cast<SymbolList*>(data);
  if (symbol_info<hsa_symbol_kind_t>(*list->rt, symbol, HSA_EXECUTABLE_SYMBOL_INFO_TYPE) == list->kind) {
    list->names.push_back(symbol_name(*list->rt, symbol));
    list->symbols.push_back(symbol);
  }
  return HSA_STATUS_SUCCESS;
}

std::string first_few(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 8; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 8) out += fmt::format(", ... ({} in all)", names.size());
  return out.empty() ? "none" : out;
}

}  // namespace

ReplayKernel::~ReplayKernel() {
  if (done_.handle) rt_.signal_destroy(done_);
  if (queue_) rt_.queue_destroy(queue_);
  if (kernarg_) rt_.pool_free(kernarg_);
  if (executable_.handle) rt_.executable_destroy(executable_);
  if (reader_.handle) rt_.reader_destroy(reader_);
}

void ReplayKernel::load(const std::vector<std::byte>& image, const std::string& what,
                        const amd::AmdReplayLaunch& launch) {
  what_ = what;
  auto check = [&](hsa_status_t status, const std::string& step) {
    if (status != HSA_STATUS_SUCCESS)
      throw Error(ExitCode::InputInvalid,
                  fmt::format("{} {} failed: {} (a code object for another GPU than {}?)", step, what, rt_.describe(status),
                              device_.isa.empty() ? device_.name : device_.isa));
  };
  check(rt_.reader_from_memory(image.data(), image.size(), &reader_), "reading");
  hsa_profile_t profile = HSA_PROFILE_FULL;
  rt_.agent_get_info(device_.gpu, HSA_AGENT_INFO_PROFILE, &profile);
  check(rt_.executable_create(profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &executable_),
        "creating an executable for");
  check(rt_.load_agent_code_object(executable_, device_.gpu, reader_, nullptr, nullptr), "loading");
  check(rt_.executable_freeze(executable_, nullptr), "freezing");

  // The captured kernel by name; never "the first kernel" of the code object.
  SymbolList kernels{&rt_, HSA_SYMBOL_KIND_KERNEL};
  rt_.iterate_agent_symbols(executable_, device_.gpu, list_symbol, &kernels);
  const auto index = amd::find_kernel_symbol(launch.symbol_name, kernels.names);
  if (!index)
    throw Error(ExitCode::InputInvalid, fmt::format("{} holds no kernel named {}; its kernels: {}", what,
                                                    launch.symbol_name, first_few(kernels.names)));
  const hsa_executable_symbol_t kernel = kernels.symbols[*index];
  kernel_object_ = symbol_info<uint64_t>(rt_, kernel, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
  kernarg_size_ = symbol_info<uint32_t>(rt_, kernel, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE);
  if (kernarg_size_ != launch.kernarg_size)
    throw Error(ExitCode::InputInvalid,
                fmt::format("{} in {} takes a {}-byte kernarg segment; the captured launch passed {} bytes: another "
                            "argument layout, not another build of the same kernel",
                            launch.symbol_name, what, kernarg_size_, launch.kernarg_size));
  geometry_ = amd::geometry_for_build(
      launch, symbol_info<uint32_t>(rt_, kernel, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE),
      symbol_info<uint32_t>(rt_, kernel, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE));
}

uint64_t ReplayKernel::variable_address(const std::string& name, uint64_t size, const std::string& what) const {
  SymbolList variables{&rt_, HSA_SYMBOL_KIND_VARIABLE};
  rt_.iterate_agent_symbols(executable_, device_.gpu, list_symbol, &variables);
  auto it = std::find(variables.names.begin(), variables.names.end(), name);
  if (it == variables.names.end())
    throw Error(ExitCode::InputInvalid, fmt::format("{} has no variable {} (captured: {} bytes)", what, name, size));
  const hsa_executable_symbol_t symbol = variables.symbols[static_cast<std::size_t>(it - variables.names.begin())];
  const auto bytes = symbol_info<uint32_t>(rt_, symbol, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE);
  if (bytes != size)
    throw Error(ExitCode::InputInvalid, fmt::format("variable {} in {} has {} bytes; the capture has {}", name, what, bytes, size));
  return symbol_info<uint64_t>(rt_, symbol, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS);
}

void ReplayKernel::set_arguments(const std::vector<std::byte>& bytes) {
  if (bytes.size() > kernarg_size_)
    throw Error(ExitCode::InputInvalid, fmt::format("the captured arguments ({} bytes) exceed the kernel's {}-byte "
                                                    "kernarg segment in {}",
                                                    bytes.size(), kernarg_size_, what_));
  if (!device_.has_kernarg) throw Error(ExitCode::ProfilerFailed, "the CPU agent has no kernarg memory pool");
  // Kernarg memory is host memory the GPU reads: a CPU memcpy is the documented way to fill it.
  const std::size_t size = std::max<std::size_t>(kernarg_size_, 16);
  hsa_status_t status = rt_.pool_allocate(device_.kernarg, size, 0, &kernarg_);
  if (status == HSA_STATUS_SUCCESS) status = rt_.agents_allow_access(1, &device_.gpu, nullptr, kernarg_);
  if (status != HSA_STATUS_SUCCESS)
    throw Error(ExitCode::ProfilerFailed, fmt::format("allocating the kernarg buffer failed: {}", rt_.describe(status)));
  std::memset(kernarg_, 0, size);
  if (!bytes.empty()) std::memcpy(kernarg_, bytes.data(), bytes.size());
}

void ReplayKernel::on_queue_error(hsa_status_t status, hsa_queue_t*, void* data) {
  static_cast<ReplayKernel*>(data)->queue_error_ = status;
}

void ReplayKernel::create_queue() {
  uint32_t min_size = 64;
  rt_.agent_get_info(device_.gpu, HSA_AGENT_INFO_QUEUE_MIN_SIZE, &min_size);
  const uint32_t size = std::max<uint32_t>(min_size, 64);
  hsa_status_t status = rt_.queue_create(device_.gpu, size, HSA_QUEUE_TYPE_SINGLE, on_queue_error, this, UINT32_MAX,
                                         UINT32_MAX, &queue_);
  if (status != HSA_STATUS_SUCCESS)
    throw Error(ExitCode::ProfilerFailed, fmt::format("creating an AQL queue failed: {}", rt_.describe(status)));
  status = rt_.set_profiler_enabled(queue_, 1);
  if (status != HSA_STATUS_SUCCESS)
    throw Error(ExitCode::ProfilerFailed, fmt::format("enabling dispatch timestamps failed: {}", rt_.describe(status)));
  status = rt_.signal_create(1, 0, nullptr, &done_);
  if (status != HSA_STATUS_SUCCESS)
    throw Error(ExitCode::ProfilerFailed, fmt::format("creating a completion signal failed: {}", rt_.describe(status)));
}

double ReplayKernel::dispatch(double timeout_s) {
  if (!queue_) create_queue();
  rt_.signal_store(done_, 1);
  const uint64_t index = rt_.queue_add_write_index(queue_, 1);
  while (index - rt_.queue_load_read_index(queue_) >= queue_->size) std::this_thread::yield();
  auto* slot = static_cast<std::byte*>(queue_->base_address) + (index % queue_->size) * amd::kAqlPacketSize;
  amd::encode_dispatch_body(std::span<std::byte, amd::kAqlPacketSize>(slot, amd::kAqlPacketSize), geometry_,
                            kernel_object_, reinterpret_cast<uint64_t>(kernarg_), done_.handle);
  // Published last, atomically: system-scope acquire (restored memory is visible) and release (results are
  // visible to the copies that verify them).
  __atomic_store_n(reinterpret_cast<uint16_t*>(slot),
                   amd::dispatch_header(true, amd::kFenceScopeSystem, amd::kFenceScopeSystem), __ATOMIC_RELEASE);
  rt_.signal_store(queue_->doorbell_signal, static_cast<hsa_signal_value_t>(index));

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (rt_.signal_wait(done_, HSA_SIGNAL_CONDITION_LT, 1, 100'000'000, HSA_WAIT_STATE_BLOCKED) >= 1) {
    if (queue_error_ != HSA_STATUS_SUCCESS)
      throw Error(ExitCode::ProfilerFailed, fmt::format("the replayed kernel failed on the GPU: {}", rt_.describe(queue_error_)));
    if (std::chrono::steady_clock::now() >= deadline)
      throw Error(ExitCode::ProfilerFailed, fmt::format("the replayed kernel did not finish within {} s", timeout_s));
  }
  hsa_amd_profiling_dispatch_time_t time{};
  const hsa_status_t status = rt_.get_dispatch_time(device_.gpu, done_, &time);
  if (status != HSA_STATUS_SUCCESS)
    throw Error(ExitCode::ProfilerFailed, fmt::format("reading the dispatch timestamps failed: {}", rt_.describe(status)));
  // Timestamps tick at the system timestamp frequency, which is not assumed to be 1 GHz.
  return static_cast<double>(time.end - time.start) * 1e9 / device_.timestamp_hz;
}

}  // namespace rpl::hsa_replay
