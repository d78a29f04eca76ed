#pragma once
// Where a kernel's code comes from, read from its name: the user's own source, a vendor library (cuBLAS, cuDNN,
// CUTLASS, CUB, rocBLAS/hipBLASLt's Tensile, Composable Kernel, MIOpen, rocPRIM, FlashAttention), a framework
// (PyTorch's ATen), a compiler (Triton kernels that torch.compile / Inductor generates), a collective-communication
// library (NCCL, RCCL) or the GPU runtime. Remedies depend on it: a library's kernel is changed through the call
// (shapes, types, layouts, algorithm choice), not by editing its code. Names alone decide, so a user kernel named
// like a library's is classified as the library's; `pattern` says which rule matched.
#include <string>
#include <string_view>

namespace rpl {

enum class KernelOriginKind { User, VendorLibrary, Framework, Compiler, Communication, Runtime };

struct KernelOrigin {
  KernelOriginKind kind = KernelOriginKind::User;
  std::string library;  // "cuBLAS", "PyTorch ATen", "Triton (Inductor)", ...; empty for the user's own kernels
  std::string pattern;  // the name pattern that matched; empty for the user's own kernels
  bool user_code() const { return kind == KernelOriginKind::User; }
};

KernelOrigin kernel_origin(std::string_view display_name);
std::string_view to_string(KernelOriginKind kind);  // "user", "vendor_library", "framework", ...

}  // namespace rpl
