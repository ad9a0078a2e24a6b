// The declaration rewrite (docs/EMULATOR.md) and the cuda-emulator runtime module.
#include <gtest/gtest.h>

#include <algorithm>

#include "minitvm/runtime/cuda_emulator.h"
#include "minitvm/runtime/ndarray.h"
#include "runtime/emulator/kernels.h"

using namespace minitvm;
using namespace minitvm::runtime::emulator;

TEST(EmulatorRewrite, RewritesOnlyDeclarationsAndKeepsLines) {
  const std::string src =
      std::string(minitvm_test::kHalfHeader) + minitvm_test::kRowSum + minitvm_test::kVectorAdd;
  RewrittenSource rw = rewrite_cuda_source(src);
  EXPECT_EQ(std::count(rw.text.begin(), rw.text.end(), '\n'),
            std::count(src.begin(), src.end(), '\n'));
  EXPECT_TRUE(rw.uses_barrier);
  ASSERT_EQ(rw.kernels.size(), 2u);
  const KernelInfo& k = rw.kernels[0];
  EXPECT_EQ(k.name, "rowsum_kernel0");
  EXPECT_EQ(k.launch_bounds, 128);
  EXPECT_EQ(k.first_line, 12);
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[0].name, "X");
  EXPECT_EQ(k.params[0].c_type, "float");
  EXPECT_TRUE(k.params[0].is_pointer);
  ASSERT_EQ(k.shared.size(), 1u);
  EXPECT_EQ(k.shared[0].name, "red_buf");
  EXPECT_EQ(k.shared[0].count, 128);
  const KernelInfo& v = rw.kernels[1];
  ASSERT_EQ(v.params.size(), 4u);
  EXPECT_EQ(v.params[3].name, "n");
  EXPECT_EQ(v.params[3].c_type, "int");
  EXPECT_FALSE(v.params[3].is_pointer);
  // Exactly the declarations changed.
  EXPECT_NE(rw.text.find("rowsum_kernel0( __emu_gptr<float > X,  __emu_gptr<float > Y) {"),
            std::string::npos)
      << rw.text;
  EXPECT_NE(rw.text.find("  __emu_local<float, 1> acc_local(\"acc_local\");\n"), std::string::npos);
  EXPECT_NE(rw.text.find(
                "  __emu_sptr<float > red_buf = __emu_shared_decl<float >(0, 128, \"red_buf\");\n"),
            std::string::npos);
  EXPECT_NE(rw.text.find("    Y[((int)blockIdx.x)] = red_buf[0];\n"), std::string::npos);
  EXPECT_NE(rw.text.find("__device__ half max(half a, half b)"), std::string::npos);
}

TEST(EmulatorRewrite, UnsupportedDeclarationsAreReported) {
  auto msg = [](const std::string& src) {
    try {
      rewrite_cuda_source(src);
    } catch (const EmulatorError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(msg("extern \"C\" __global__ void k( float* __restrict__ a) {\n  __shared__ float "
                "t[4][4];\n}\n")
                .find("multi-dimensional or initialised) (line 2"),
            std::string::npos);
  EXPECT_NE(msg("extern \"C\" __global__ void k( float** a) {\n}\n")
                .find("pointer-to-pointer kernel parameter `a`"),
            std::string::npos);
  EXPECT_NE(msg("extern \"C\" __global__ void k( float* a, int n) {\n  __shared__ float t[n];\n}\n")
                .find("must have a constant size"),
            std::string::npos);
  // A volatile cast of a shared array is an expression, not a declaration.
  EXPECT_EQ(msg("extern \"C\" __global__ void k( float* a) {\n  __shared__ float t[4];\n"
                "  ((volatile __shared__ float*)t)[0] = a[0];\n}\n"),
            "");
}

TEST(EmulatorModule, RunsLaunchesOnNDArrays) {
  runtime::CudaFunctionInfo info;
  info.signature.name = "vadd";
  info.signature.args = {{"A", runtime::ArgSpec::Kind::Buffer, DataType::Float(32), {100}},
                         {"B", runtime::ArgSpec::Kind::Buffer, DataType::Float(32), {100}},
                         {"C", runtime::ArgSpec::Kind::Buffer, DataType::Float(32), {100}},
                         {"n", runtime::ArgSpec::Kind::Scalar, DataType::Int(32), {}}};
  runtime::KernelLaunch l;
  l.kernel = "vadd_kernel0";
  l.args = {2, 0, 1, 3};
  l.grid = {2, 1, 1};
  l.block = {64, 1, 1};
  info.launches = {l};
  runtime::Module m = make_cuda_emulator_module(minitvm_test::kVectorAdd, {info});
  EXPECT_EQ(m.type_key(), "cuda-emulator");
  EXPECT_EQ(m.get_source("cuda"), minitvm_test::kVectorAdd);
  EXPECT_NE(m.get_source("emulator").find("__emu_gptr<float > C"), std::string::npos);
  std::vector<float> a(100), b(100);
  for (int i = 0; i < 100; ++i) {
    a[i] = 0.5f * i;
    b[i] = 3.0f - i;
  }
  auto A = runtime::NDArray::from_vector(a, {100});
  auto B = runtime::NDArray::from_vector(b, {100});
  auto C = runtime::NDArray::empty({100}, DataType::Float(32));
  m.get_function("vadd")(A, B, C, 100);
  auto c = C.to_vector<float>();
  for (int i = 0; i < 100; ++i) EXPECT_EQ(c[i], a[i] + b[i]) << i;
  // Argument checking comes from the signature.
  EXPECT_THROW(m.get_function("vadd")(A, B), RuntimeError);
}
