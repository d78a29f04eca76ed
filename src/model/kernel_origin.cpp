#include "model/kernel_origin.hpp"

#include "model/trace.hpp"

namespace rpl {
namespace {

enum class Match { Prefix, Contains };

struct OriginRule {
  Match match;
  std::string_view pattern;
  KernelOriginKind kind;
  std::string_view library;
};

// First match wins: communication and the more specific libraries before the general ones (cuDNN's xmma
// convolutions before cuBLAS's xmma GEMMs; CUB inside PyTorch's at_cuda_detail namespace before ATen).
// Names as the profilers print them (demangled; "void " and a leading anonymous namespace removed).
constexpr OriginRule kRules[] = {
    {Match::Prefix, "ncclDevKernel", KernelOriginKind::Communication, "NCCL"},
    {Match::Prefix, "ncclKernel", KernelOriginKind::Communication, "NCCL/RCCL"},
    {Match::Prefix, "rccl", KernelOriginKind::Communication, "RCCL"},
    {Match::Contains, "cudnn", KernelOriginKind::VendorLibrary, "cuDNN"},
    {Match::Contains, "xmma_fprop", KernelOriginKind::VendorLibrary, "cuDNN"},
    {Match::Contains, "xmma_dgrad", KernelOriginKind::VendorLibrary, "cuDNN"},
    {Match::Contains, "xmma_wgrad", KernelOriginKind::VendorLibrary, "cuDNN"},
    {Match::Prefix, "implicit_convolve_sgemm", KernelOriginKind::VendorLibrary, "cuDNN"},
    {Match::Prefix, "nchwToNhwcKernel", KernelOriginKind::VendorLibrary, "cuDNN"},
    {Match::Prefix, "nhwcToNchwKernel", KernelOriginKind::VendorLibrary, "cuDNN"},
    {Match::Prefix, "nvjet_", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Contains, "xmma_gemm", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "sm90_xmma", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "sm80_xmma", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "sm86_xmma", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "sm89_xmma", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "sm75_xmma", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "ampere_", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "volta_", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "turing_", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "maxwell_", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "gemv2T_kernel", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "gemv2N_kernel", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "gemvNSP_kernel", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "gemmk1_kernel", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "gemmSN_", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Prefix, "splitKreduce_kernel", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Contains, "cublas", KernelOriginKind::VendorLibrary, "cuBLAS"},
    {Match::Contains, "cutlass", KernelOriginKind::VendorLibrary, "CUTLASS"},
    {Match::Prefix, "flash_fwd", KernelOriginKind::VendorLibrary, "FlashAttention"},
    {Match::Prefix, "flash_bwd", KernelOriginKind::VendorLibrary, "FlashAttention"},
    {Match::Contains, "pytorch_flash::", KernelOriginKind::VendorLibrary, "FlashAttention"},
    {Match::Prefix, "fmha_", KernelOriginKind::VendorLibrary, "FlashAttention"},
    {Match::Prefix, "Cijk_", KernelOriginKind::VendorLibrary, "Tensile (rocBLAS / hipBLASLt)"},
    {Match::Contains, "hipblaslt", KernelOriginKind::VendorLibrary, "hipBLASLt"},
    {Match::Prefix, "ck::", KernelOriginKind::VendorLibrary, "Composable Kernel"},
    {Match::Prefix, "ck_tile::", KernelOriginKind::VendorLibrary, "Composable Kernel"},
    {Match::Contains, "miopen", KernelOriginKind::VendorLibrary, "MIOpen"},
    {Match::Contains, "MIOpen", KernelOriginKind::VendorLibrary, "MIOpen"},
    {Match::Prefix, "naive_conv_", KernelOriginKind::VendorLibrary, "MIOpen"},
    {Match::Prefix, "igemm_", KernelOriginKind::VendorLibrary, "MIOpen"},
    {Match::Contains, "rocprim::", KernelOriginKind::VendorLibrary, "rocPRIM"},
    {Match::Contains, "hipcub::", KernelOriginKind::VendorLibrary, "hipCUB"},
    {Match::Contains, "cub::", KernelOriginKind::VendorLibrary, "CUB"},
    {Match::Contains, "at::native::", KernelOriginKind::Framework, "PyTorch ATen"},
    {Match::Contains, "at::cuda::", KernelOriginKind::Framework, "PyTorch ATen"},
    {Match::Contains, "c10::", KernelOriginKind::Framework, "PyTorch ATen"},
    {Match::Prefix, "softmax_warp_forward", KernelOriginKind::Framework, "PyTorch ATen"},
    {Match::Prefix, "softmax_warp_backward", KernelOriginKind::Framework, "PyTorch ATen"},
    {Match::Prefix, "multi_tensor_apply_kernel", KernelOriginKind::Framework, "PyTorch ATen"},
    // Inductor's kernel kinds: pointwise, reduction, persistent reduction, template, foreach
    {Match::Prefix, "triton_poi_", KernelOriginKind::Compiler, "Triton (Inductor)"},
    {Match::Prefix, "triton_red_", KernelOriginKind::Compiler, "Triton (Inductor)"},
    {Match::Prefix, "triton_per_", KernelOriginKind::Compiler, "Triton (Inductor)"},
    {Match::Prefix, "triton_tem_", KernelOriginKind::Compiler, "Triton (Inductor)"},
    {Match::Prefix, "triton_for_", KernelOriginKind::Compiler, "Triton (Inductor)"},
};

std::string_view without_prefix(std::string_view name, std::string_view prefix) {
  return name.substr(0, prefix.size()) == prefix ? name.substr(prefix.size()) : name;
}

}  // namespace

KernelOrigin kernel_origin(std::string_view display_name) {
  if (is_runtime_kernel(display_name)) return {KernelOriginKind::Runtime, "GPU runtime", "runtime helper"};
  std::string_view name = without_prefix(without_prefix(display_name, "void "), "(anonymous namespace)::");
  for (const auto& rule : kRules) {
    bool hit = rule.match == Match::Prefix ? name.substr(0, rule.pattern.size()) == rule.pattern
                                           : name.find(rule.pattern) != std::string_view::npos;
    if (hit) return {rule.kind, std::string(rule.library), std::string(rule.pattern)};
  }
  return {};
}

std::string_view to_string(KernelOriginKind kind) {
  switch (kind) {
    case KernelOriginKind::User: return "user";
    case KernelOriginKind::VendorLibrary: return "vendor_library";
    case KernelOriginKind::Framework: return "framework";
    case KernelOriginKind::Compiler: return "compiler";
    case KernelOriginKind::Communication: return "communication";
    case KernelOriginKind::Runtime: return "runtime";
  }
  return "user";
}

}  // namespace rpl
