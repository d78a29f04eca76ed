// Code-object interceptors: keep a copy of every code object handed to the loader (from memory or from a
// file), and map each kernel object the loader creates to its symbol name, its sizes and the code object
// it came from. Kernels are attributed per load: the symbols that appear in an executable after loading
// one reader's code object are that code object's, so an executable holding several code objects keeps
// each kernel with its own bytes (the first implementation gave every kernel the last one).
// UNVALIDATED ON AMD HARDWARE.
#include <sys/stat.h>
#include <unistd.h>

#include <exception>

#include "collectors/amd/capture_injection/interceptors.hpp"
#include "support/demangle.hpp"

namespace rpl::hsa_capture {
namespace {

std::shared_ptr<const CodeObjectBytes> copy_bytes(const void* data, size_t size, std::string origin) {
  auto co = std::make_shared<CodeObjectBytes>();
  co->bytes.assign(static_cast<const std::byte*>(data), static_cast<const std::byte*>(data) + size);
  co->origin = std::move(origin);
  return co;
}

// The whole file behind the descriptor, read with pread (the application's file offset is left alone).
std::shared_ptr<const CodeObjectBytes> read_descriptor(hsa_file_t fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size <= 0) return nullptr;
  auto co = std::make_shared<CodeObjectBytes>();
  co->bytes.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < co->bytes.size()) {
    const ssize_t n = pread(fd, co->bytes.data() + done, co->bytes.size() - done, static_cast<off_t>(done));
    if (n <= 0) return nullptr;
    done += static_cast<size_t>(n);
  }
  co->origin = "file descriptor " + std::to_string(fd);
  return co;
}

std::string symbol_name(const CoreApiTable* core, hsa_executable_symbol_t symbol) {
  uint32_t length = 0;
  if (core->hsa_executable_symbol_get_info_fn(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &length) !=
      HSA_STATUS_SUCCESS)
    return {};
  std::string name(length, '\0');
  if (core->hsa_executable_symbol_get_info_fn(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name.data()) !=
      HSA_STATUS_SUCCESS)
    return {};
  return name;
}

template <typename T>
T symbol_info(const CoreApiTable* core, hsa_executable_symbol_t symbol, hsa_executable_symbol_info_t what) {
  T value{};
  core->hsa_executable_symbol_get_info_fn(symbol, what, &value);
  return value;
}

struct LoadContext {
  ToolState* s;
  hsa_executable_t executable;
  hsa_agent_t agent;
  std::shared_ptr<const CodeObjectBytes> code_object;
};

// Called with state().mutex held.
hsa_status_t note_symbol(hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t symbol, void* data) {
  auto* ctx = static_cast<LoadContext*>(data);
  const CoreApiTable* core = ctx->s->rt.core;
  const auto kind = symbol_info<hsa_symbol_kind_t>(core, symbol, HSA_EXECUTABLE_SYMBOL_INFO_TYPE);
  if (kind == HSA_SYMBOL_KIND_KERNEL) {
    const auto object = symbol_info<uint64_t>(core, symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
    if (object == 0 || ctx->s->kernels.count(object)) return HSA_STATUS_SUCCESS;  // known: an earlier load's
    KernelInfo k;
    k.symbol_name = symbol_name(core, symbol);
    k.mangled = collectors::amd::kernel_name_from_symbol(k.symbol_name);
    k.demangled = demangle(k.mangled);
    k.kernarg_size = symbol_info<uint32_t>(core, symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE);
    k.kernarg_alignment =
        symbol_info<uint32_t>(core, symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT);
    k.group_segment_size = symbol_info<uint32_t>(core, symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE);
    k.private_segment_size =
        symbol_info<uint32_t>(core, symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE);
    k.dynamic_callstack = symbol_info<bool>(core, symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK);
    k.code_object = ctx->code_object;
    k.executable = ctx->executable.handle;
    k.agent = ctx->agent.handle;
    ctx->s->kernels.emplace(object, std::move(k));
  } else if (kind == HSA_SYMBOL_KIND_VARIABLE) {
    if (symbol_info<hsa_variable_segment_t>(core, symbol, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT) !=
        HSA_VARIABLE_SEGMENT_GLOBAL)
      return HSA_STATUS_SUCCESS;
    GlobalVariable g;
    g.address = symbol_info<uint64_t>(core, symbol, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS);
    g.size = symbol_info<uint32_t>(core, symbol, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE);
    if (g.address == 0 || g.size == 0) return HSA_STATUS_SUCCESS;
    for (const GlobalVariable& known : ctx->s->globals)
      if (known.address == g.address) return HSA_STATUS_SUCCESS;
    g.name = symbol_name(core, symbol);
    g.executable = ctx->executable.handle;
    g.agent = ctx->agent.handle;
    g.code_object = ctx->code_object;
    ctx->s->globals.push_back(std::move(g));
  }
  return HSA_STATUS_SUCCESS;
}

template <typename F>
void guarded(const char* what, F&& f) {
  try {
    std::lock_guard lock(state().mutex);
    f(state());
  } catch (const std::exception& e) {
    report("{} failed ({}); kernels from this code object cannot be captured", what, e.what());
  }
}

}  // namespace

hsa_status_t reader_create_from_memory(const void* code_object, size_t size, hsa_code_object_reader_t* reader) {
  const hsa_status_t status = state().rt.reader_from_memory(code_object, size, reader);
  if (status == HSA_STATUS_SUCCESS && reader && code_object)
    guarded("copying a code object", [&](ToolState& s) {
      s.readers[reader->handle] = copy_bytes(code_object, size, "memory");
    });
  return status;
}

hsa_status_t reader_create_from_file(hsa_file_t file, hsa_code_object_reader_t* reader) {
  const hsa_status_t status = state().rt.reader_from_file(file, reader);
  if (status == HSA_STATUS_SUCCESS && reader)
    guarded("reading a code object file", [&](ToolState& s) {
      if (auto co = read_descriptor(file))
        s.readers[reader->handle] = std::move(co);
      else
        report("cannot read the code object behind file descriptor {}; its kernels cannot be captured", file);
    });
  return status;
}

hsa_status_t reader_destroy(hsa_code_object_reader_t reader) {
  const hsa_status_t status = state().rt.reader_destroy(reader);
  if (status == HSA_STATUS_SUCCESS) guarded("forgetting a reader", [&](ToolState& s) { s.readers.erase(reader.handle); });
  return status;
}

hsa_status_t load_agent_code_object(hsa_executable_t executable, hsa_agent_t agent, hsa_code_object_reader_t reader,
                                    const char* options, hsa_loaded_code_object_t* loaded_code_object) {
  const hsa_status_t status = state().rt.load_agent_code_object(executable, agent, reader, options, loaded_code_object);
  if (status == HSA_STATUS_SUCCESS)
    guarded("recording a code object's kernels", [&](ToolState& s) {
      LoadContext ctx{&s, executable, agent, nullptr};
      if (auto it = s.readers.find(reader.handle); it != s.readers.end()) ctx.code_object = it->second;
      s.rt.core->hsa_executable_iterate_agent_symbols_fn(executable, agent, note_symbol, &ctx);
    });
  return status;
}

hsa_status_t executable_destroy(hsa_executable_t executable) {
  const hsa_status_t status = state().rt.executable_destroy(executable);
  if (status == HSA_STATUS_SUCCESS)
    guarded("forgetting an executable", [&](ToolState& s) {
      std::erase_if(s.kernels, [&](const auto& entry) { return entry.second.executable == executable.handle; });
      std::erase_if(s.globals, [&](const GlobalVariable& g) { return g.executable == executable.handle; });
    });
  return status;
}

}  // namespace rpl::hsa_capture
