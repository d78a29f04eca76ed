// CUDA code images without a GPU: fat binaries (plain, zstd- and LZ4-compressed members, built here by hand and,
// where nvcc is found, by nvcc itself), architecture selection, kernel names of any linkage, and the bookkeeping
// that ties modules, libraries and kernel handles to the call that loaded them.
#include <gtest/gtest.h>

#include <cctype>
#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "collectors/nvidia/cuda_code_index.hpp"
#include "collectors/nvidia/cuda_fatbin.hpp"
#include "testing/binary_files.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl::capture {
namespace {
using namespace rpl::collectors::nvidia;  // the fat-binary readers live with the NVIDIA collectors

std::vector<std::byte> bytes_of(const std::string& s) {
  std::vector<std::byte> b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

std::vector<std::byte> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return bytes_of(s);
}

template <typename T>
void put(std::vector<std::byte>& out, std::size_t at, T v) {
  std::memcpy(out.data() + at, &v, sizeof v);
}

struct Member {
  uint16_t kind;  // 1 PTX, 2 ELF
  uint32_t arch;
  std::vector<std::byte> payload;
  std::string compression;  // "", "zstd", "lz4"
};

// A fat binary laid out as nvcc 13 writes it (cuda_fatbin.hpp).
std::vector<std::byte> make_fatbin(const std::vector<Member>& members) {
  std::vector<std::byte> body;
  for (const auto& m : members) {
    std::vector<std::byte> stored = m.payload;
    uint64_t flags = 0x11;
    if (m.compression == "zstd") {
      stored.resize(ZSTD_compressBound(m.payload.size()));
      stored.resize(ZSTD_compress(stored.data(), stored.size(), m.payload.data(), m.payload.size(), 3));
      flags |= 0x8000;
    } else if (m.compression == "lz4") {
      stored.resize(LZ4_compressBound(int(m.payload.size())));
      stored.resize(LZ4_compress_default(reinterpret_cast<const char*>(m.payload.data()), reinterpret_cast<char*>(stored.data()),
                                         int(m.payload.size()), int(stored.size())));
      flags |= 0x2000;
    }
    std::size_t padded = (stored.size() + 7) / 8 * 8;
    std::vector<std::byte> header(64);
    put<uint16_t>(header, 0, m.kind);
    put<uint16_t>(header, 2, 0x101);
    put<uint32_t>(header, 4, 64);
    put<uint64_t>(header, 8, padded);
    put<uint32_t>(header, 16, m.compression.empty() ? 0 : uint32_t(stored.size()));
    put<uint32_t>(header, 28, m.arch);
    put<uint64_t>(header, 40, flags);
    put<uint64_t>(header, 56, m.compression.empty() ? 0 : m.payload.size());
    body.insert(body.end(), header.begin(), header.end());
    body.insert(body.end(), stored.begin(), stored.end());
    body.resize(body.size() + padded - stored.size());
  }
  std::vector<std::byte> out(16);
  put<uint32_t>(out, 0, 0xBA55ED50u);
  put<uint16_t>(out, 4, 1);
  put<uint16_t>(out, 6, 16);
  put<uint64_t>(out, 8, body.size());
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

std::vector<std::byte> pseudo_elf(char fill, std::size_t n) {
  std::vector<std::byte> b(n, std::byte(fill));
  std::memcpy(b.data(), "\x7f" "ELF", 4);
  return b;
}

TEST(CudaFatbin, MembersPlainZstdAndLz4AreReadAndDecompressed) {
  auto sm80 = pseudo_elf('a', 3000), sm90 = pseudo_elf('b', 5001);
  auto ptx = bytes_of("//\n.version 9.0\n.target sm_90\n");
  auto image = make_fatbin({{2, 80, sm80, ""}, {2, 90, sm90, "zstd"}, {1, 90, ptx, "lz4"}});
  EXPECT_EQ(classify_code_image(image), CodeImageKind::Fatbin);
  EXPECT_EQ(code_image_size(image.data(), image.size()), image.size());
  auto members = read_fatbin(image);
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[0].kind, FatbinMember::Kind::Elf);
  EXPECT_EQ(members[0].compression, "");
  EXPECT_EQ(members[1].compression, "zstd");
  EXPECT_EQ(members[2].compression, "lz4");
  EXPECT_EQ(members[2].kind, FatbinMember::Kind::Ptx);
  EXPECT_EQ(fatbin_member_bytes(members[0]), sm80);
  EXPECT_EQ(fatbin_member_bytes(members[1]), sm90);
  EXPECT_EQ(fatbin_member_bytes(members[2]), ptx);
}

TEST(CudaFatbin, ArchitectureSelection) {
  auto image = make_fatbin({{2, 80, pseudo_elf('a', 64), ""}, {2, 86, pseudo_elf('c', 64), ""},
                            {2, 90, pseudo_elf('b', 64), ""}, {1, 80, bytes_of(".version 8.0\n"), ""}});
  auto members = read_fatbin(image);
  EXPECT_EQ(select_cubin(members, 90)->arch, 90u);
  EXPECT_EQ(select_cubin(members, 89)->arch, 86u);  // the newest older minor of the same major
  EXPECT_EQ(select_cubin(members, 80)->arch, 80u);
  EXPECT_EQ(select_cubin(members, 75), nullptr);   // older major: nothing runs
  EXPECT_EQ(select_cubin(members, 100), nullptr);  // newer major: the driver would JIT the PTX
  ASSERT_NE(select_ptx(members, 100), nullptr);
  EXPECT_EQ(select_ptx(members, 100)->arch, 80u);
  EXPECT_EQ(select_ptx(members, 75), nullptr);
}

TEST(CudaFatbin, BackToBackFatbinsAndMalformedInput) {
  auto a = make_fatbin({{2, 90, pseudo_elf('a', 40), ""}});
  auto b = make_fatbin({{2, 80, pseudo_elf('b', 40), "zstd"}});
  auto both = a;
  both.insert(both.end(), b.begin(), b.end());
  EXPECT_EQ(read_fatbin(both).size(), 2u);
  auto truncated = a;
  truncated.resize(a.size() - 8);
  EXPECT_THROW(read_fatbin(truncated), FatbinFormatError);
  auto bad_magic = a;
  bad_magic[0] = std::byte{0x51};
  EXPECT_THROW(read_fatbin(bad_magic), FatbinFormatError);
  auto corrupt = make_fatbin({{2, 90, pseudo_elf('z', 4000), "zstd"}});
  corrupt[16 + 64 + 6] = std::byte{0xff};  // inside the zstd frame
  corrupt[16 + 64 + 7] = std::byte{0xff};
  auto members = read_fatbin(corrupt);
  ASSERT_EQ(members.size(), 1u);
  EXPECT_THROW(fatbin_member_bytes(members[0]), FatbinFormatError);
}

// The capture library reads images inside the application: corrupt ones give FatbinFormatError (or nothing),
// never a crash, another exception or a huge allocation.
TEST(CudaFatbin, MutatedImagesOnlyEverGiveFormatErrors) {
  auto good = make_fatbin({{2, 80, pseudo_elf('a', 300), ""}, {2, 90, pseudo_elf('b', 3000), "zstd"},
                           {1, 90, bytes_of(".version 9.0\n"), "lz4"}});
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  int errors = 0;
  for (int round = 0; round < 3000; ++round) {
    auto bytes = good;
    for (int flips = 1 + next() % 4; flips > 0; --flips) bytes[next() % bytes.size()] = std::byte(next() >> 24);
    if (next() % 5 == 0) bytes.resize(next() % bytes.size());
    EXPECT_NO_THROW((void)code_image_size(bytes.data(), bytes.size()));
    std::string note;
    EXPECT_NO_THROW((void)cubins_of_image(bytes, 90, &note));
    EXPECT_NO_THROW((void)ptx_of_image(bytes, 90, &note));
    try {
      for (const auto& m : read_fatbin(bytes)) (void)fatbin_member_bytes(m);
    } catch (const FatbinFormatError&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 100);  // the mutations did reach the checks
}

TEST(CudaFatbin, ImageKindsAndSizes) {
  std::string ptx = "//\n// Generated by NVIDIA NVVM Compiler\n.version 9.0\n";
  std::vector<std::byte> p = bytes_of(ptx + std::string(1, '\0') + "garbage after the NUL");
  EXPECT_EQ(classify_code_image(p), CodeImageKind::Ptx);
  EXPECT_EQ(code_image_size(p.data(), p.size()), ptx.size() + 1);
  std::vector<std::byte> wrapper(24);
  put<uint32_t>(wrapper, 0, 0x466243B1u);
  EXPECT_EQ(classify_code_image(wrapper), CodeImageKind::FatbinWrapper);
  EXPECT_EQ(code_image_size(wrapper.data(), wrapper.size()), std::nullopt);
  EXPECT_EQ(classify_code_image(bytes_of("\x01\x02\x03\x04junk")), CodeImageKind::Unknown);
  std::string why;
  EXPECT_TRUE(cubins_of_image(p, 90, &why).empty());
  EXPECT_NE(why.find("PTX"), std::string::npos) << why;
}

TEST(CudaFatbin, PtxForTheJit) {
  std::string text = "//\n.version 9.0\n.target sm_90\n";
  auto image = bytes_of(text + std::string(1, '\0') + "after");
  std::string note;
  EXPECT_EQ(ptx_of_image(image, 90, &note), bytes_of(text));
  auto fat = make_fatbin({{2, 90, pseudo_elf('a', 64), ""}, {1, 80, bytes_of(text), "lz4"}});
  EXPECT_EQ(ptx_of_image(fat, 100, &note), bytes_of(text));  // no sm_100 cubin: the compute_80 PTX is JIT'd
  EXPECT_TRUE(ptx_of_image(fat, 75, &note).empty());
  EXPECT_NE(note.find("no PTX for compute_75"), std::string::npos) << note;
  EXPECT_TRUE(ptx_of_image(pseudo_elf('c', 64), 90, &note).empty());
  EXPECT_NE(note.find("cubin: it holds no PTX"), std::string::npos) << note;
}

#ifdef RPL_NVCC
// nvcc's own fat binaries: every compression mode, with an anonymous-namespace and a static kernel (STB_LOCAL
// symbols, the defect of issue 12) and a non-inlined __device__ helper (local too, but not a kernel).
class NvccFatbin : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir();
    std::ofstream(dir_->file("k.cu"))
        << "namespace { template <typename T> __global__ void anon_kernel(T* x) { x[threadIdx.x] += 1; } }\n"
           "__global__ void global_kernel(float* x) { x[threadIdx.x] *= 2; }\n"
           "static __global__ void static_kernel(float* x) { x[threadIdx.x] -= 2; }\n"
           "__device__ __noinline__ float helper(float v) { return v * v + 1; }\n"
           "__global__ void calls_helper(float* x) { x[threadIdx.x] = helper(x[threadIdx.x]); }\n"
           "void launch(float* x) { anon_kernel<<<1, 1>>>(x); global_kernel<<<1, 1>>>(x); static_kernel<<<1, 1>>>(x);\n"
           "  calls_helper<<<1, 1>>>(x); }\n";
    for (std::string mode : {"none", "size", "speed"}) {
      int status = 0;
      std::string log = test::run_shell(std::string(RPL_NVCC) +
                                            " -fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]"
                                            " -compress-mode=" + mode + " -o " + dir_->file(mode + ".fatbin") + " " +
                                            dir_->file("k.cu") + " 2>&1",
                                        &status);
      ASSERT_EQ(status, 0) << log;
    }
  }
  static void TearDownTestSuite() { delete dir_; }
  static test::TempDir* dir_;
};
test::TempDir* NvccFatbin::dir_ = nullptr;

// nvcc names an anonymous namespace _GLOBAL__N__<hash>_<file>_<hash>... and a static kernel __nv_static_<hash>...,
// hashes that can differ between compiles (the three compression modes are three compiles): the rest of each such
// name is masked before the cubins are compared (the names keep their lengths).
std::vector<std::byte> without_anonymous_namespace_hash(std::vector<std::byte> b) {
  std::string_view text(reinterpret_cast<const char*>(b.data()), b.size());
  auto identifier = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (const std::string tag : {"_GLOBAL__N__", "__nv_static_"})  // static kernels get a per-compile prefix too
    for (std::size_t at = text.find(tag); at != std::string_view::npos; at = text.find(tag, at + 1))
      for (std::size_t i = at + tag.size(); i < b.size() && identifier(text[i]); ++i) b[i] = std::byte{0};
  return b;
}

TEST_F(NvccFatbin, EveryCompressionModeGivesTheSameCubin) {
  const auto plain_image = read_bytes(dir_->file("none.fatbin"));  // the members point into it: it must outlive them
  auto plain = read_fatbin(plain_image);
  auto plain_cubin = without_anonymous_namespace_hash(fatbin_member_bytes(*select_cubin(plain, 90)));
  for (std::string mode : {"size", "speed"}) {
    auto image = read_bytes(dir_->file(mode + ".fatbin"));
    EXPECT_EQ(code_image_size(image.data(), image.size()), image.size()) << mode;
    auto members = read_fatbin(image);
    ASSERT_EQ(members.size(), 3u) << mode;
    const FatbinMember* m = select_cubin(members, 90);
    ASSERT_NE(m, nullptr) << mode;
    EXPECT_EQ(without_anonymous_namespace_hash(fatbin_member_bytes(*m)), plain_cubin) << mode;

    const FatbinMember* ptx = select_ptx(members, 90);
    ASSERT_NE(ptx, nullptr);
    auto text = fatbin_member_bytes(*ptx);
    EXPECT_NE(std::string(reinterpret_cast<const char*>(text.data()), text.size()).find(".version"), std::string::npos);
  }
  // "size" compresses with zstd; "speed" leaves large cubins alone but compresses the PTX with LZ4.
  const auto size_image = read_bytes(dir_->file("size.fatbin")), speed_image = read_bytes(dir_->file("speed.fatbin"));
  auto size_members = read_fatbin(size_image);
  EXPECT_EQ(size_members[1].compression, "zstd");
  auto speed_members = read_fatbin(speed_image);
  EXPECT_EQ(speed_members[2].compression, "lz4");
  EXPECT_EQ(code_image_size(plain_cubin.data(), plain_cubin.size()), plain_cubin.size());
}

TEST_F(NvccFatbin, KernelsOfAnyLinkageAreIndexedHelpersAreNot) {
  std::string note;
  auto cubins = cubins_of_image(read_bytes(dir_->file("size.fatbin")), 90, &note);
  ASSERT_EQ(cubins.size(), 1u) << note;
  const auto& k = cubins[0].kernels;
  EXPECT_EQ(cubins[0].origin, "fatbin member sm_90 (zstd)");
  EXPECT_TRUE(k.count("_Z13global_kernelPf"));
  EXPECT_TRUE(k.count("_Z13static_kernelPf"));  // STB_LOCAL
  EXPECT_TRUE(k.count("_Z12calls_helperPf"));
  bool anon = false;
  for (const auto& name : k) anon = anon || name.find("anon_kernel") != std::string::npos;
  EXPECT_TRUE(anon);  // anonymous namespace: STB_LOCAL, like PyTorch's vectorized_layer_norm_kernel
  EXPECT_EQ(k.size(), 4u);  // helper() is a local function without the entry bit
  // sm_89 takes the sm_80 member; sm_100 has no cubin (the PTX would be JIT-compiled).
  EXPECT_EQ(cubins_of_image(read_bytes(dir_->file("none.fatbin")), 89, &note)[0].origin, "fatbin member sm_80");
  EXPECT_TRUE(cubins_of_image(read_bytes(dir_->file("none.fatbin")), 100, &note).empty());
  EXPECT_NE(note.find("no cubin for sm_100"), std::string::npos) << note;
  EXPECT_NE(note.find("compute_90"), std::string::npos) << note;
  // A cubin whose kernels the caller does not want is not copied.
  std::size_t asked = 0;
  auto refuse = [&](const std::unordered_set<std::string>& kernels) { return ++asked, kernels.count("_Z4nonev") > 0; };
  EXPECT_TRUE(cubins_of_image(read_bytes(dir_->file("size.fatbin")), 90, &note, refuse).empty());
  EXPECT_EQ(asked, 1u);
  // Without entry flags (st_other cleared), every function of a .text.<name> section counts, helper included.
  auto symbols = read_elf_symbols(cubins[0].cubin);
  for (auto& sym : symbols) sym.other = 0;
  auto names = cuda_kernel_names(symbols);
  EXPECT_EQ(names.size(), 5u);
  EXPECT_TRUE(names.count("_Z13static_kernelPf"));
  auto ptx = ptx_of_image(read_bytes(dir_->file("speed.fatbin")), 100, &note);  // LZ4-compressed PTX member
  EXPECT_NE(std::string(reinterpret_cast<const char*>(ptx.data()), ptx.size()).find(".entry _Z13static_kernelPf"),
            std::string::npos);
}
#endif

TEST(CodeLoadBook, ModulesLibrariesAndKernelHandlesLeadToTheirLoad) {
  CodeLoadBook book;
  int module_a, library, kernel, function, library_module, stray;
  CodeLoad direct;
  direct.api = "cuModuleLoadData";
  direct.image_kind = "cubin";
  direct.image_bytes = 4096;
  book.module_loaded(&module_a, direct);
  CodeLoad lib;
  lib.api = "cuLibraryLoadData (fatbin wrapper)";
  lib.image_kind = "fatbin";
  lib.image_bytes = 123456;
  book.library_loaded(&library, lib);
  EXPECT_EQ(book.loads(), 2u);
  EXPECT_EQ(book.describe_module(&module_a), "loaded by cuModuleLoadData (cubin, 4096 bytes)");
  // A kernel handle from cuLibraryGetKernel, then its function and module from cuKernelGetFunction.
  EXPECT_EQ(book.load_of_module(&library_module), nullptr);
  book.library_owns(&library, &kernel);
  book.kernel_function(&kernel, &function, &library_module);
  ASSERT_NE(book.load_of_module(&library_module), nullptr);
  EXPECT_EQ(book.describe_module(&library_module), "loaded by cuLibraryLoadData (fatbin wrapper) (fatbin, 123456 bytes)");
  // A kernel of no known library gives nothing; the description says which paths could have been missed.
  book.kernel_function(&stray, &function, &stray);
  EXPECT_EQ(book.load_of_module(&stray), nullptr);
  EXPECT_NE(book.describe_module(&stray).find("loaded by no driver call the capture library saw (2 loads seen"),
            std::string::npos);
  book.library_unloaded(&library);
  EXPECT_EQ(book.load_of_module(&library_module), nullptr);
  book.module_unloaded(&module_a);
  EXPECT_EQ(book.loads(), 0u);
}

TEST(CodeLoadBook, ImagesAreReadFromTheirCopyOrMapping) {
  CodeLoad copy;
  copy.image = bytes_of("abc");
  EXPECT_EQ(copy.bytes().size(), 3u);
  static const std::byte mapped[5] = {};
  CodeLoad in_object;
  in_object.static_image = mapped;
  in_object.image_bytes = 5;
  EXPECT_EQ(in_object.bytes().size(), 5u);
}

}  // namespace
}  // namespace rpl::capture
