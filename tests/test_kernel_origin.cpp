// Where a kernel's code comes from, read from its name (model/kernel_origin.hpp), on names recorded from real
// runs (PyTorch training steps on an H100/H200: cuBLAS nvjet GEMMs, cuDNN attention, ATen, CUB inside ATen;
// AMD library names as rocprofv3 prints them) and on user kernels named near them, which must stay the user's;
// and what a finding on such a kernel then says (report/kernel_origin_advice.hpp).
#include <gtest/gtest.h>

#include "model/kernel_origin.hpp"
#include "report/kernel_origin_advice.hpp"

namespace rpl {
namespace {

void expect_origin(const char* name, KernelOriginKind kind, const char* library) {
  KernelOrigin o = kernel_origin(name);
  EXPECT_EQ(to_string(o.kind), to_string(kind)) << name;
  EXPECT_EQ(o.library, library) << name;
  EXPECT_EQ(o.pattern.empty(), kind == KernelOriginKind::User) << name;
}

TEST(KernelOrigin, VendorLibrariesFrameworksCompilersAndCollectivesFromRecordedNames) {
  using K = KernelOriginKind;
  expect_origin("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", K::VendorLibrary, "cuBLAS");
  expect_origin("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
                K::VendorLibrary, "cuBLAS");
  expect_origin("ampere_sgemm_128x64_tn", K::VendorLibrary, "cuBLAS");
  expect_origin("void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false>(float)", K::VendorLibrary,
                "cuBLAS");
  expect_origin("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0",
                K::VendorLibrary, "cuDNN");
  expect_origin("void cudnn::fusion::compute_dot_do_o_specialized<true, 64>(void const*, void const*, void*)", K::VendorLibrary, "cuDNN");
  expect_origin("sm80_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x32", K::VendorLibrary, "cuDNN");
  expect_origin("void cutlass::Kernel2<cutlass_80_tensorop_s16816gemm_bf16_128x128_32x4_nn_align8>(Params)", K::VendorLibrary, "CUTLASS");
  expect_origin("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>, false>(Flash_fwd_params)",
                K::VendorLibrary, "FlashAttention");
  expect_origin("void at_cuda_detail::cub::detail::radix_sort::DeviceRadixSortOnesweepKernel<int>(int*)", K::VendorLibrary, "CUB");
  expect_origin("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_APM1", K::VendorLibrary, "Tensile (rocBLAS / hipBLASLt)");
  expect_origin("void ck::kernel_gemm_xdl_cshuffle_v1<ck::GridwiseGemm_k0mk1_k0nk1_mn_xdl_cshuffle_v1<> >(void const*)",
                K::VendorLibrary, "Composable Kernel");
  expect_origin("naive_conv_fwd_nchw_float_double_float", K::VendorLibrary, "MIOpen");
  expect_origin("void rocprim::detail::block_reduce_kernel<256u, 4u>(float*)", K::VendorLibrary, "rocPRIM");
  expect_origin("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int)",
                K::Framework, "PyTorch ATen");
  expect_origin("void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>(float*, float const*)",
                K::Framework, "PyTorch ATen");
  expect_origin("void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float> >(long)", K::Framework, "PyTorch ATen");
  expect_origin("triton_poi_fused_add_mul_0", K::Compiler, "Triton (Inductor)");
  expect_origin("triton_red_fused__softmax_1", K::Compiler, "Triton (Inductor)");
  expect_origin("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", K::Communication, "NCCL");
  expect_origin("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", K::Communication, "NCCL/RCCL");
  expect_origin("__amd_rocclr_copyBuffer", K::Runtime, "GPU runtime");
}

TEST(KernelOrigin, UserKernelsNamedNearALibraryStayTheUsers) {
  using K = KernelOriginKind;
  for (const char* name : {"saxpy", "softmax_rows", "void matmul_kernel<64>(float const*, float*)", "amplitude_kernel",
                           "check_kernel", "cube_root(float*)", "my_gemm_nvjet_like", "void stencil::apply<float>(float*)",
                           "triton_like_kernel_without_prefix", "flashlight_fwd", "ckpt_write"})
    expect_origin(name, K::User, "");
  // "triton_poi_" and its kin name only what Inductor generates; a hand-written Triton kernel keeps its own name and is the user's
  expect_origin("_attn_fwd_inner", K::User, "");
}

TEST(KernelOriginAdvice, FindingsOnLibraryKernelsSayWhatCanBeChangedUserKernelsKeepTheirs) {
  nlohmann::json findings = nlohmann::json::array();
  findings.push_back({{"id", "bottleneck"}, {"kernel", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"},
                      {"message", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT is latency-bound"},
                      {"evidence", {{"primary", "latency-bound"}}}});
  findings.push_back({{"id", "low_occupancy"}, {"kernel", "saxpy"}, {"message", "saxpy can keep only 19%"},
                      {"evidence", {{"limiter", "registers"}}}});
  findings.push_back({{"id", "bottleneck"}, {"kernel", "void at::native::reduce_kernel<512, 1>(int)"}, {"message", "x is memory_bound"},
                      {"evidence", nlohmann::json::object()}});
  findings.push_back({{"id", "shape_mix"}, {"kernel", "nvjet_sm90_tst_128x64_64x8_1x2_h_bz_NTT"}, {"message", "shapes"},
                      {"evidence", nlohmann::json::object()}});
  findings.push_back({{"id", "gpu_idle"}, {"kernel", nullptr}, {"message", "idle"}, {"evidence", nlohmann::json::object()}});
  const nlohmann::json before = findings;
  report::annotate_findings_with_origin(findings);

  EXPECT_EQ(findings[0]["evidence"]["origin"], (nlohmann::json{{"kind", "vendor_library"}, {"library", "cuBLAS"}}));
  EXPECT_EQ(findings[0]["message"], "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT is latency-bound (a cuBLAS kernel)");
  EXPECT_NE(findings[0]["remedy"].get<std::string>().find("its code is cuBLAS's: change what it is asked to do"), std::string::npos);
  EXPECT_EQ(findings[1], before[1]);  // the user's own kernel: untouched, its usual remedy comes later
  EXPECT_EQ(findings[2]["evidence"]["origin"]["library"], "PyTorch ATen");
  EXPECT_NE(findings[2]["remedy"].get<std::string>().find("torch.compile"), std::string::npos);
  EXPECT_EQ(findings[2]["message"], "x is memory_bound (a PyTorch ATen kernel)");
  // a finding whose remedy does not depend on who wrote the kernel gets the origin as evidence only
  EXPECT_EQ(findings[3]["evidence"]["origin"]["kind"], "vendor_library");
  EXPECT_EQ(findings[3]["message"], "shapes");
  EXPECT_FALSE(findings[3].contains("remedy"));
  EXPECT_EQ(findings[4], before[4]);
}

}  // namespace
}  // namespace rpl
