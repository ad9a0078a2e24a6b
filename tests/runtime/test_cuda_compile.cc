// CUDA tooling that works without a GPU: NVRTC, ptxas, module files, the no-driver errors.
// Tests needing NVRTC or ptxas skip with a reason when the toolkit is not installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/runtime/ptxas.h"

using namespace minitvm;
using runtime::ArgSpec;
using runtime::NDArray;
namespace fs = std::filesystem;

namespace {

const char* kVaddSource = R"(extern "C" __global__ void vadd(const float* __restrict__ A,
                                const float* __restrict__ B, float* __restrict__ C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) C[i] = A[i] + B[i];
}
)";

const char* kSharedSource =
    R"(extern "C" __global__ void __launch_bounds__(256) reverse256(float* X) {
  __shared__ float buf[256];
  buf[threadIdx.x] = X[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  X[blockIdx.x * 256 + threadIdx.x] = buf[255 - threadIdx.x];
}
)";

const char* kHalfSource = R"(#include <cuda_fp16.h>
extern "C" __global__ void hmax(const half* A, const half* B, half* C) {
  int i = threadIdx.x;
  C[i] = __hgt(A[i], B[i]) ? A[i] : B[i];
}
)";

#define REQUIRE_NVRTC() \
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC (libnvrtc) is not installed"
#define REQUIRE_PTXAS() \
  if (runtime::find_ptxas().empty()) GTEST_SKIP() << "ptxas is not installed"

runtime::CudaFunctionInfo vadd_info(int64_t n) {
  DataType f32 = DataType::Float(32);
  runtime::CudaFunctionInfo info;
  info.signature = {"vadd",
                    {{"A", ArgSpec::Kind::Buffer, f32, {n}},
                     {"B", ArgSpec::Kind::Buffer, f32, {n}},
                     {"C", ArgSpec::Kind::Buffer, f32, {n}},
                     {"n", ArgSpec::Kind::Scalar, DataType::Int(32), {}}}};
  runtime::KernelLaunch l;
  l.kernel = "vadd";
  l.args = {0, 1, 2, 3};
  l.grid = {(n + 127) / 128, 1, 1};
  l.block = {128, 1, 1};
  info.launches.push_back(l);
  return info;
}

fs::path fresh_dir(const std::string& name) {
  fs::path d =
      fs::temp_directory_path() / ("minitvm-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(Nvrtc, LineNumbers) {
  EXPECT_EQ(runtime::with_line_numbers("a\nbb\n"), "   1 | a\n   2 | bb\n");
  EXPECT_EQ(runtime::with_line_numbers("x"), "   1 | x\n");
}

TEST(Nvrtc, CompilesKernelToPtxAndCaches) {
  REQUIRE_NVRTC();
  runtime::nvrtc_clear_memory_cache();
  runtime::NvrtcOptions opts;
  opts.arch = "sm_90";
  auto r = runtime::nvrtc_compile(kVaddSource, opts);
  EXPECT_FALSE(r.from_cache);
  EXPECT_EQ(r.arch, "sm_90");
  EXPECT_NE(r.ptx.find(".entry vadd("), std::string::npos) << r.ptx;
  EXPECT_NE(r.ptx.find(".target sm_90"), std::string::npos);
  EXPECT_EQ(r.options.at(0), "--gpu-architecture=compute_90");
  auto again = runtime::nvrtc_compile(kVaddSource, opts);
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.ptx, r.ptx);
  // A different architecture is a different cache entry.
  opts.arch = "sm_80";
  auto r80 = runtime::nvrtc_compile(kVaddSource, opts);
  EXPECT_FALSE(r80.from_cache);
  EXPECT_NE(r80.ptx.find(".target sm_80"), std::string::npos);
}

TEST(Nvrtc, DiskCacheSurvivesMemoryCache) {
  REQUIRE_NVRTC();
  fs::path dir = fresh_dir("nvrtc-cache");
  runtime::NvrtcOptions opts;
  opts.arch = "sm_90";
  opts.cache_dir = (dir / "sub").string();
  opts.extra_options = {"-DUNIQUE_FOR_DISK_TEST=1"};
  runtime::nvrtc_clear_memory_cache();
  auto first = runtime::nvrtc_compile(kVaddSource, opts);
  EXPECT_FALSE(first.from_cache);
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir / "sub")) files += e.path().extension() == ".ptx";
  EXPECT_EQ(files, 1);
  runtime::nvrtc_clear_memory_cache();
  auto second = runtime::nvrtc_compile(kVaddSource, opts);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.ptx, first.ptx);
  fs::remove_all(dir);
}

TEST(Nvrtc, HalfHeaderIsFound) {
  REQUIRE_NVRTC();
  EXPECT_FALSE(runtime::find_cuda_include_dir().empty());
  runtime::NvrtcOptions opts;
  opts.arch = "sm_90";
  auto r = runtime::nvrtc_compile(kHalfSource, opts);
  EXPECT_NE(r.ptx.find(".entry hmax("), std::string::npos);
}

TEST(Nvrtc, SyntaxErrorCarriesLogOptionsAndNumberedSource) {
  REQUIRE_NVRTC();
  const std::string bad =
      "extern \"C\" __global__ void broken(float* x) {\n"
      "  x[threadIdx.x] = 1.0f\n"  // missing semicolon
      "}\n";
  runtime::NvrtcOptions opts;
  opts.arch = "sm_90";
  try {
    runtime::nvrtc_compile(bad, opts);
    FAIL() << "no throw";
  } catch (const runtime::NvrtcError& e) {
    EXPECT_EQ(e.status(), "NVRTC_ERROR_COMPILATION");
    EXPECT_NE(e.log().find("error"), std::string::npos) << e.log();
    EXPECT_NE(e.log().find("minitvm_kernels.cu(3)"), std::string::npos) << e.log();
    const std::string m = e.what();
    EXPECT_NE(m.find("NVRTC compilation failed: NVRTC_ERROR_COMPILATION"), std::string::npos);
    EXPECT_NE(m.find("--gpu-architecture=compute_90"), std::string::npos);
    EXPECT_NE(m.find("   2 |   x[threadIdx.x] = 1.0f"), std::string::npos) << m;
    EXPECT_NE(m.find(e.log()), std::string::npos);
  }
  // NvrtcError is a CompileError.
  EXPECT_THROW(runtime::nvrtc_compile(bad, opts), CompileError);
}

TEST(Ptxas, AcceptsNvrtcOutputAndReportsResources) {
  REQUIRE_NVRTC();
  REQUIRE_PTXAS();
  runtime::NvrtcOptions opts;
  opts.arch = "sm_90";
  auto rep = runtime::ptxas_check(runtime::nvrtc_compile(kVaddSource, opts).ptx, "sm_90");
  ASSERT_EQ(rep.kernels.size(), 1u) << rep.output;
  const auto& k = rep.kernel("vadd");
  EXPECT_GT(k.registers, 0);
  EXPECT_LE(k.registers, 255);
  EXPECT_EQ(k.shared_bytes, 0);
  EXPECT_EQ(k.spill_stores, 0);
  EXPECT_FALSE(rep.has_spills());
  auto shared = runtime::ptxas_check(runtime::nvrtc_compile(kSharedSource, opts).ptx, "sm_90");
  EXPECT_EQ(shared.kernel("reverse256").shared_bytes, 256 * 4) << shared.output;
  EXPECT_THROW(shared.kernel("vadd"), CompileError);
}

TEST(Ptxas, RejectsInvalidPtx) {
  REQUIRE_PTXAS();
  const std::string ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry k() {\n  bogus.instruction %r1;\n  ret;\n}\n";
  try {
    runtime::ptxas_check(ptx, "sm_90");
    FAIL() << "no throw";
  } catch (const CompileError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("ptxas -arch=sm_90 rejected the PTX"), std::string::npos) << m;
    EXPECT_NE(m.find("   5 |   bogus.instruction %r1;"), std::string::npos) << m;
  }
}

TEST(CudaModule, SaveLoadRoundTripWithoutGpu) {
  const std::string ptx = runtime::nvrtc_available()
                              ? runtime::nvrtc_compile(kVaddSource, {"sm_90", {}, "", true}).ptx
                              : std::string("// placeholder PTX\n");
  auto info = vadd_info(1000);
  info.launches[0].dynamic_shared_bytes = 16;
  runtime::Module m = runtime::make_cuda_module(ptx, {info}, kVaddSource);
  EXPECT_EQ(m.type_key(), "cuda");
  EXPECT_EQ(m.get_source("cuda"), kVaddSource);
  EXPECT_EQ(m.get_source(), kVaddSource);
  EXPECT_EQ(m.get_source("ptx"), ptx);
  EXPECT_THROW(m.get_source("ll"), RuntimeError);

  fs::path dir = fresh_dir("cuda-module");
  const std::string path = (dir / "vadd.ptx").string();
  m.save(path);
  ASSERT_TRUE(fs::exists(path + ".json"));
  runtime::Module back = runtime::load_cuda_module(path);
  EXPECT_EQ(back.get_source("ptx"), ptx);
  EXPECT_EQ(back.get_source("cuda"), kVaddSource);
  EXPECT_EQ(back.function_names(), std::vector<std::string>{"vadd"});
  runtime::PackedFunc fn = back.get_function("vadd");
  const auto& sig = fn.signature();
  ASSERT_EQ(sig.args.size(), 4u);
  EXPECT_EQ(sig.args[2].name, "C");
  EXPECT_EQ(sig.args[2].shape, std::vector<int64_t>{1000});
  EXPECT_EQ(sig.args[3].kind, ArgSpec::Kind::Scalar);
  EXPECT_EQ(sig.args[3].dtype, DataType::Int(32));
  // The sidecar is plain JSON with the launch dimensions.
  std::ifstream js(path + ".json");
  std::string text((std::istreambuf_iterator<char>(js)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"format\": \"minitvm-cuda-module\""), std::string::npos);
  EXPECT_NE(text.find("\"grid\": [\n"), std::string::npos);
  EXPECT_NE(text.find("\"dynamic_shared_bytes\": 16"), std::string::npos);
  // Saving the loaded module gives the same files.
  back.save((dir / "again.ptx").string());
  std::ifstream js2(dir / "again.ptx.json");
  std::string text2((std::istreambuf_iterator<char>(js2)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, text2);
  fs::remove_all(dir);
}

TEST(CudaModule, BadFilesAndMetadataAreRuntimeErrors) {
  fs::path dir = fresh_dir("cuda-bad");
  const std::string path = (dir / "m.ptx").string();
  EXPECT_THROW(runtime::load_cuda_module(path), RuntimeError);  // missing
  std::ofstream(path) << "// ptx";
  std::ofstream(path + ".json") << "{not json";
  EXPECT_THROW(runtime::load_cuda_module(path), RuntimeError);
  std::ofstream(path + ".json") << R"({"format": "minitvm-cuda-module", "version": 1, "functions": [
    {"name": "f", "args": [], "launches": [{"kernel": "k", "args": [3], "grid": [1,1,1], "block": [1,1,1]}]}]})";
  try {
    runtime::load_cuda_module(path);
    FAIL() << "no throw";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "kernel k uses argument index 3 but the function has 0 arguments"),
              std::string::npos)
        << e.what();
  }
  fs::remove_all(dir);
  auto info = vadd_info(8);
  info.launches[0].block = {2048, 1, 1};
  EXPECT_THROW(runtime::make_cuda_module("", {info}, ""), RuntimeError);
}

TEST(CudaModule, CallingWithoutDriverOrWithHostArraysIsAClearError) {
  runtime::Module m = runtime::make_cuda_module("// ptx", {vadd_info(8)}, kVaddSource);
  NDArray a = NDArray::empty({8}, DataType::Float(32));
  try {
    m.get_function("vadd")(a, a, a, 8);
    FAIL() << "no throw";
  } catch (const RuntimeError& e) {
    EXPECT_STREQ(e.what(),
                 "vadd: argument 0 'A' expects float32[8] on cuda(0), got float32[8] on cpu(0)");
  }
  if (!runtime::cuda_available()) {
    EXPECT_EQ(runtime::cuda_device_count(), 0);
    EXPECT_FALSE(runtime::cuda_unavailable_reason().empty());
    EXPECT_THROW(runtime::cuda_compute_capability(0), RuntimeError);
    try {
      runtime::cuda_synchronize(Device::cuda(0));
      FAIL() << "no throw";
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find("no CUDA driver found"), std::string::npos) << e.what();
    }
  }
}

TEST(CudaModule, PreloadingChecksModuleAndDevice) {
  runtime::Module m = runtime::make_cuda_module("// ptx", {vadd_info(8)}, kVaddSource);
  EXPECT_THROW(runtime::cuda_module_load(runtime::Module(), Device::cuda(0)), CompileError);
  EXPECT_THROW(runtime::cuda_module_load(m, Device::cpu()), CompileError);
  if (!runtime::cuda_available()) {
    try {
      runtime::cuda_module_load(m, Device::cuda(0));
      FAIL() << "no throw";
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find("no CUDA driver found"), std::string::npos) << e.what();
    }
  }
}
