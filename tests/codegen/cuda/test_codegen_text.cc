// CUDA codegen text, thread_sync placement and split_host_device on hand-built lowered IR.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "common/ir_kernels.h"
#include "minitvm/codegen/codegen_cuda.h"
#include "minitvm/codegen/func_info.h"
#include "minitvm/ir/functor.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/transform/pipeline.h"
#include "minitvm/transform/split_host_device.h"
#include "minitvm/transform/thread_sync.h"

namespace minitvm {
namespace {

using namespace ir;
using namespace testing;

void expect_in_order(const std::string& text, const std::vector<std::string>& parts) {
  size_t pos = 0;
  for (const auto& p : parts) {
    size_t f = text.find(p, pos);
    ASSERT_NE(f, std::string::npos) << "missing `" << p << "` (in order) in:\n" << text;
    pos = f + p.size();
  }
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(CodegenCuda, VectorAddText) {
  auto r = codegen::build_cuda(vector_add());
  // TVM v0.6 spelling (leading space, double space after commas), v0.8 launch bounds.
  expect_in_order(
      r.cuda_source,
      {"extern \"C\" __global__ void __launch_bounds__(64) add_kernel0( float* __restrict__ C,  "
       "float* __restrict__ A,  float* __restrict__ B) {\n",
       "  if (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < 1000) {\n",
       "    C[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = (A[((((int)blockIdx.x) * 64) + "
       "((int)threadIdx.x))] + B[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))]);\n",
       "  }\n", "}\n"});
  EXPECT_EQ(r.cuda_source.find("#include"), std::string::npos) << "no header needed for float32";
  EXPECT_EQ(r.cuda_source.find("__syncthreads"), std::string::npos);
}

// codegen's description of a split function for the runtime (TVM's ExtractFuncInfo): the lowered
// signature, and the launches and temporaries split_host_device found (tests/transform has the
// split itself).
TEST(CodegenCuda, FuncInfoOfSplitVectorAdd) {
  PrimFunc f = vector_add();
  auto split = transform::split_host_device(f);
  const auto info = codegen::cuda_function_info(f, split);
  EXPECT_EQ(info.signature.name, "add");
  ASSERT_EQ(info.signature.args.size(), 3u);
  EXPECT_EQ(info.signature.args[2].name, "C");
  EXPECT_EQ(info.signature.args[2].shape, std::vector<int64_t>{kAddN});
  ASSERT_EQ(info.launches.size(), 1u);
  EXPECT_EQ(info.launches[0].kernel, "add_kernel0");
  EXPECT_EQ(info.launches[0].args, (std::vector<int>{2, 0, 1}));
  EXPECT_EQ(info.launches[0].grid, (std::array<int64_t, 3>{16, 1, 1}));
  EXPECT_EQ(info.launches[0].block, (std::array<int64_t, 3>{64, 1, 1}));
  EXPECT_TRUE(info.temporaries.empty());
}

// Two kernels of one function: each with its own launch bounds and first-use parameter order.
TEST(CodegenCuda, TwoKernelsText) {
  auto r = codegen::build_cuda(two_kernels());
  expect_in_order(
      r.cuda_source,
      {"__launch_bounds__(128) twok_kernel0( float* __restrict__ T,  float* __restrict__ A)",
       "__launch_bounds__(64) twok_kernel1( float* __restrict__ B,  float* __restrict__ T,"});
}

TEST(CodegenCuda, MatmulText) {
  auto r = codegen::build_cuda(tiled_matmul());
  const std::string& src = r.cuda_source;
  expect_in_order(
      src,
      {"extern \"C\" __global__ void __launch_bounds__(256) matmul_kernel0( float* __restrict__ A, "
       " "
       "float* __restrict__ B,  float* __restrict__ C) {\n",
       "  __shared__ float A_shared[256];\n", "  __shared__ float B_shared[256];\n",
       "   float C_local[1];\n", "  C_local[0] = 0.000000e+00f;\n",
       "  for (int k_outer = 0; k_outer < 4; ++k_outer) {\n", "    __syncthreads();\n",
       "    A_shared[((((int)threadIdx.y) * 16) + ((int)threadIdx.x))] = A[",
       "    B_shared[((((int)threadIdx.y) * 16) + ((int)threadIdx.x))] = B[",
       "    __syncthreads();\n", "    #pragma unroll\n",
       "    for (int k_inner = 0; k_inner < 16; ++k_inner) {\n",
       "      C_local[0] = (C_local[0] + (A_shared[((((int)threadIdx.y) * 16) + k_inner)] * "
       "B_shared[((k_inner * 16) + ((int)threadIdx.x))]));\n",
       "  C[((((((int)blockIdx.y) * 16) + ((int)threadIdx.y)) * 64) + ((((int)blockIdx.x) * 16) + "
       "((int)threadIdx.x)))] = C_local[0];\n"});
  EXPECT_EQ(count(src, "__syncthreads();"), 2);
  EXPECT_EQ(r.info.launches[0].grid, (std::array<int64_t, 3>{4, 4, 1}));
  EXPECT_EQ(r.info.launches[0].block, (std::array<int64_t, 3>{16, 16, 1}));
}

TEST(CodegenCuda, Float4Text) {
  auto r = codegen::build_cuda(float4_scale());
  expect_in_order(
      r.cuda_source,
      {"((float4*)(B + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) * 4)))[0] = make_float4(",
       "(A[(((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) * 4)] * 2.000000e+00f), ",
       "(A[((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) * 4) + 3)] * 2.000000e+00f));\n"});
  // A plain vector copy reads with one float4 load.
  auto A = make_param("A", DataType::Float(32), {64});
  auto B = make_param("B", DataType::Float(32), {64});
  IterVar tx = thread_axis("threadIdx.x", 16);
  Expr ramp = RampNode::make(Expr(tx) * 4, 1, 4);
  Stmt s = StoreNode::make(B.var(), LoadNode::make(DataType::Float(32, 4), A.var(), ramp), ramp);
  auto c = codegen::build_cuda(make_func("copy", {A, B}, bind(tx, s)));
  expect_in_order(c.cuda_source, {"((float4*)(B + (((int)threadIdx.x) * 4)))[0] = ((float4*)(A + "
                                  "(((int)threadIdx.x) * 4)))[0];"});
  // Unaligned base (4t + 1): split into scalar accesses instead of a misaligned float4.
  Expr ramp1 = RampNode::make(Expr(tx) * 4 + 1, 1, 4);
  Stmt s1 = StoreNode::make(B.var(), LoadNode::make(DataType::Float(32, 4), A.var(), ramp1), ramp1);
  auto u = codegen::build_cuda(make_func("copy1", {A, B}, bind(tx, s1)));
  EXPECT_EQ(u.cuda_source.find("float4"), std::string::npos) << u.cuda_source;
  EXPECT_EQ(count(u.cuda_source, "] = A["), 4) << u.cuda_source;
}

TEST(CodegenCuda, Fp16Text) {
  auto r = codegen::build_cuda(half_elementwise());
  const std::string& src = r.cuda_source;
  expect_in_order(
      src,
      {"#include <cuda_fp16.h>\n", "half mtvm_max(half a, half b)",
       "__launch_bounds__(128) half_ew_kernel0( half* __restrict__ C,  half* __restrict__ A,  "
       "half* __restrict__ B,  float* __restrict__ D) {\n",
       "for (int j = 0; j < 4; ++j) {",
       "mtvm_max(((A[((j * 128) + ((int)threadIdx.x))] * B[((j * 128) + ((int)threadIdx.x))]) + "
       "__float2half_rn(1.000000e+00f)), __float2half_rn(0.000000e+00f))",
       "__ushort_as_half((unsigned short)0xFC00U)", "__half2float(A["});
  EXPECT_EQ(src.find("volatile"), std::string::npos);
  EXPECT_EQ(src.find(" max("), std::string::npos) << "no ambiguous max(half, half)";
}

TEST(CodegenCuda, GuardedSharedLoadsKeepBarriersOutsideConditions) {
  auto r = codegen::build_cuda(guarded_matmul());
  const std::string& src = r.cuda_source;
  expect_in_order(
      src,
      {"  for (int k_outer = 0; k_outer < 4; ++k_outer) {\n", "    __syncthreads();\n",
       "    if ((((((int)blockIdx.y) * 16) + ((int)threadIdx.y)) < 50) && (((k_outer * 16) + "
       "((int)threadIdx.x)) < 50)) {\n",
       "      A_shared[", "    B_shared[((((int)threadIdx.y) * 16) + ((int)threadIdx.x))] = ((",
       " ? B[", " : 0.000000e+00f);\n", "    __syncthreads();\n", "    for (int k_inner = 0;",
       "      if (((k_outer * 16) + k_inner) < 50) {\n"});
  EXPECT_EQ(count(src, "__syncthreads();"), 2);
}

TEST(CodegenCuda, SharedVectorAccessIsAligned) {
  auto r = codegen::build_cuda(shared_float4_reverse());
  expect_in_order(
      r.cuda_source,
      {"  __shared__ __align__(16) float S_shared[256];\n",
       "  ((float4*)(S_shared + (((int)threadIdx.x) * 4)))[0] = ((float4*)(A + (((int)threadIdx.x) "
       "* 4)))[0];\n",
       "  __syncthreads();\n", "  for (int j = 0; j < 4; ++j) {\n",
       "B[((j * 64) + ((int)threadIdx.x))] = S_shared[(255 - ((j * 64) + ((int)threadIdx.x)))];"});
}

TEST(CodegenCuda, Bf16Text) {
  auto r = codegen::build_cuda(bf16_elementwise());
  const std::string& src = r.cuda_source;
  const std::string a = "A[((j * 128) + ((int)threadIdx.x))]",
                    b = "B[((j * 128) + ((int)threadIdx.x))]";
  expect_in_order(
      src,
      {"#include <cuda_bf16.h>\n",
       "__nv_bfloat16 mtvm_max(__nv_bfloat16 a, __nv_bfloat16 b) { return "
       "(__hgt(a, b) || __hisnan(a)) ? a : b; }",
       "__launch_bounds__(128) bf16_ew_kernel0( __nv_bfloat16* __restrict__ C,  __nv_bfloat16* "
       "__restrict__ A,  __nv_bfloat16* __restrict__ B,  float* __restrict__ D,  __nv_bfloat16* "
       "__restrict__ E,  int* __restrict__ I,  double* __restrict__ F,  __nv_bfloat16* "
       "__restrict__ G) {\n",
       "mtvm_max(((" + a + " * " + b +
           ") + __float2bfloat16_rn(1.000000e+00f)), __float2bfloat16_rn(0.000000e+00f))",
       "__bfloat162float(mtvm_max(" + a + ", __ushort_as_bfloat16((unsigned short)0xFF80U)))",
       "((" + a + " < " + b + ") ? __int2bfloat16_rn(I[", ") : __double2bfloat16(F[",
       "((__hisnan(" + a + ") != 0) ? __float2bfloat16_rn(3.000000e+00f) : mtvm_min(" + a +
           ", __ushort_as_bfloat16((unsigned short)0x7F80U)))"});
  EXPECT_EQ(src.find("cuda_fp16.h"), std::string::npos);
  EXPECT_EQ(src.find("half"), std::string::npos);
  EXPECT_EQ(src.find(" max("), std::string::npos)
      << "no ambiguous max(__nv_bfloat16, __nv_bfloat16)";
  EXPECT_EQ(src.find("__hmax"), std::string::npos) << "__hmax ignores NaN";
}

TEST(CodegenCuda, Bf162Text) {
  auto r = codegen::build_cuda(bf162_square());
  expect_in_order(r.cuda_source,
                  {"#include <cuda_bf16.h>",
                   "((__nv_bfloat162*)(B + (((int)threadIdx.x) * 2)))[0] = __halves2bfloat162("
                   "(A[(((int)threadIdx.x) * 2)] * A[(((int)threadIdx.x) * 2)]), "
                   "(A[((((int)threadIdx.x) * 2) + 1)] * "
                   "A[((((int)threadIdx.x) * 2) + 1)]));",
                   "((__nv_bfloat162*)(C + (((int)threadIdx.x) * 2)))[0] = ((__nv_bfloat162*)(A + "
                   "(((int)threadIdx.x) * 2)))[0];"});
}

// bfloat16 literals are rounded once by the printer (NaN, +-inf and overflowing values as bit
// patterns); casts between bfloat16, half and the integer types; reinterpret; bfloat16 math in
// float. The source also compiles with NVRTC (when present).
TEST(CodegenCuda, Bf16LiteralsCastsAndMath) {
  DataType bf = DataType::BFloat(16), h = DataType::Float(16);
  auto X = make_param("X", bf, {128});
  auto H = make_param("H", h, {128});
  auto L = make_param("L", DataType::Int(64), {128});
  auto U = make_param("U", DataType::UInt(32), {128});
  auto S = make_param("S", DataType::Int(16), {128});
  auto Y = make_param("Y", bf, {128});
  auto Z = make_param("Z", DataType::Int(32), {128});
  IterVar tx = thread_axis("threadIdx.x", 128);
  Expr i = tx;
  auto ld = [&](const Param& p) { return LoadNode::make(p.buf->dtype, p.var(), i); };
  auto st = [&](const Param& p, Expr v, int64_t off) {
    return StoreNode::make(p.var(), v, i * 8 + static_cast<int>(off));
  };
  auto bfc = [&](double v) { return make_const(bf, v); };
  Expr reinterp_to = CallNode::make(bf, Intrinsic::Reinterpret, {ld(S)});
  Expr reinterp_from = CallNode::make(DataType::Int(16), Intrinsic::Reinterpret, {ld(X)});
  Stmt body = BlockNode::make({
      StoreNode::make(Y.var(), ld(X) * bfc(0.1) + bfc(std::nan("")), i * 8),
      st(Y, select(ld(X) > bfc(1e39), bfc(-3.3962e38), bfc(3.38e38)), 1),
      st(Y, cast(bf, ld(H)) + cast(bf, ld(L)) + cast(bf, ld(U)), 2),
      st(Y, reinterp_to + exp(ld(X)), 3),
      st(Y, cast(bf, cast(DataType::Int(8), ld(Z))), 4),
      StoreNode::make(H.var(), cast(h, ld(X)), i),
      StoreNode::make(Z.var(),
                      cast(DataType::Int(32), ld(X)) + cast(DataType::Int(32), reinterp_from), i),
  });
  auto r = codegen::build_cuda(make_func("bf16_misc", {X, H, L, U, S, Y, Z}, bind(tx, body)));
  const std::string& src = r.cuda_source;
  expect_in_order(
      src, {"#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n",
            // 0.1 rounds to 0x3DCD = 0.10009765625, printed exactly; NaN is CUDA's canonical 0x7FFF
            "(X[((int)threadIdx.x)] * __float2bfloat16_rn(1.00097656e-01f)) + "
            "__ushort_as_bfloat16((unsigned short)0x7FFFU)",
            // 1e39 and -3.3962e38 round to +-inf (beyond the largest finite value 0x7F7F by half an
            // ulp or more); 3.38e38 to 0x7F7E
            "(X[((int)threadIdx.x)] > __ushort_as_bfloat16((unsigned short)0x7F80U)) ? "
            "__ushort_as_bfloat16((unsigned short)0xFF80U) : __float2bfloat16_rn(3.37623911e+38f)",
            "__float2bfloat16_rn(__half2float(H[((int)threadIdx.x)])) + "
            "__ll2bfloat16_rn(L[((int)threadIdx.x)])) + "
            "__uint2bfloat16_rn(U[((int)threadIdx.x)])",
            "(__ushort_as_bfloat16((unsigned short)S[((int)threadIdx.x)]) + "
            "__float2bfloat16_rn(expf(__bfloat162float(X[((int)threadIdx.x)]))))",
            "__float2bfloat16_rn(((float)((signed char)Z[((int)threadIdx.x)])))",
            "H[((int)threadIdx.x)] = __float2half_rn(__bfloat162float(X[((int)threadIdx.x)]));",
            "(((int)__bfloat162float(X[((int)threadIdx.x)])) + "
            "((int)((short)__bfloat16_as_ushort(X[((int)threadIdx.x)]))))"});
  EXPECT_EQ(codegen::bfloat16_bits(0.1), 0x3DCD);
  EXPECT_EQ(codegen::bfloat16_bits(-3.3962e38), 0xFF80);
  EXPECT_EQ(codegen::bfloat16_bits(-3.3961e38), 0xFF7F);
  EXPECT_EQ(codegen::bfloat16_bits(3.38e38), 0x7F7E);
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC not available: text only";
  runtime::NvrtcOptions o;
  o.arch = "sm_90";
  EXPECT_NO_THROW(runtime::nvrtc_compile(src, o)) << src;
}

TEST(CodegenCuda, HalfCastsRoundOnce) {
  // Conversions into float16 from double and 32/64-bit integers use their own intrinsics: through
  // float they would round twice (e.g. the double 1 + 2^-11 + 2^-40 would become 1.0).
  DataType h = DataType::Float(16);
  auto D = make_param("D", DataType::Float(64), {128});
  auto L = make_param("L", DataType::Int(64), {128});
  auto U = make_param("U", DataType::UInt(32), {128});
  auto Z = make_param("Z", DataType::Int(32), {128});
  auto Q = make_param("Q", DataType::UInt(64), {128});
  auto F = make_param("F", DataType::Float(32), {128});
  auto Y = make_param("Y", h, {128});
  IterVar tx = thread_axis("threadIdx.x", 128);
  Expr i = tx;
  auto ld = [&](const Param& p) { return LoadNode::make(p.buf->dtype, p.var(), i); };
  auto st = [&](Expr v, int64_t off) {
    return StoreNode::make(Y.var(), v, i * 8 + static_cast<int>(off));
  };
  Stmt body = BlockNode::make({st(cast(h, ld(D)), 0), st(cast(h, ld(L)), 1), st(cast(h, ld(U)), 2),
                               st(cast(h, ld(Z)), 3), st(cast(h, ld(Q)), 4), st(cast(h, ld(F)), 5),
                               st(cast(h, cast(DataType::Int(8), ld(Z))), 6)});
  auto r = codegen::build_cuda(make_func("half_casts", {D, L, U, Z, Q, F, Y}, bind(tx, body)));
  const std::string& src = r.cuda_source;
  expect_in_order(
      src, {"#include <cuda_fp16.h>", "= __double2half(D[((int)threadIdx.x)]);",
            "= __ll2half_rn(L[((int)threadIdx.x)]);", "= __uint2half_rn(U[((int)threadIdx.x)]);",
            "= __int2half_rn(Z[((int)threadIdx.x)]);", "= __ull2half_rn(Q[((int)threadIdx.x)]);",
            "= __float2half_rn(F[((int)threadIdx.x)]);",
            "= __float2half_rn(((float)((signed char)Z[((int)threadIdx.x)])));"});
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC not available: text only";
  runtime::NvrtcOptions o;
  o.arch = "sm_90";
  EXPECT_NO_THROW(runtime::nvrtc_compile(src, o)) << src;
}

TEST(CodegenCuda, Half2Text) {
  auto r = codegen::build_cuda(half2_square());
  expect_in_order(r.cuda_source, {"#include <cuda_fp16.h>",
                                  "((half2*)(B + (((int)threadIdx.x) * 2)))[0] = "
                                  "__halves2half2((A[(((int)threadIdx.x) * 2)] * "
                                  "A[(((int)threadIdx.x) * 2)]), (A[((((int)threadIdx.x) * 2) + "
                                  "1)] * A[((((int)threadIdx.x) * 2) + 1)]));",
                                  "((half2*)(C + (((int)threadIdx.x) * 2)))[0] = ((half2*)(A + "
                                  "(((int)threadIdx.x) * 2)))[0];"});
}

TEST(CodegenCuda, MiscExpressions) {
  auto A = make_param("A", DataType::Float(32), {256});
  auto I = make_param("I", DataType::Int(64), {256});
  IterVar tx = thread_axis("threadIdx.x", 256);
  Expr x = tx;
  Var l("len");
  Expr fd = floordiv(x - 7, 3), fm = floormod(x, 8), sh = floordiv(x, 16);
  Stmt body = BlockNode::make({
      StoreNode::make(A.var(),
                      exp(LoadNode::make(DataType::Float(32), A.var(), x)) +
                          cast(DataType::Float(32), fd + fm + sh),
                      x),
      StoreNode::make(
          I.var(), cast(DataType::Int(64), x) * make_const(DataType::Int(64), int64_t{1} << 40), x),
      LetStmtNode::make(l, min(x, 100),
                        StoreNode::make(A.var(), make_const(DataType::Float(32), 0.5), l)),
  });
  auto r = codegen::build_cuda(make_func("misc.fn", {A, I}, bind(tx, body)));
  const std::string& src = r.cuda_source;
  expect_in_order(src, {"mtvm_floordiv(int a, int b)",
                        "misc_fn_kernel0( float* __restrict__ A,  long long* __restrict__ I)",
                        "expf(A[((int)threadIdx.x)])", "mtvm_floordiv((((int)threadIdx.x) - 7), 3)",
                        "(((int)threadIdx.x) & 7)", "(((int)threadIdx.x) >> 4)",
                        "(((long long)((int)threadIdx.x)) * 1099511627776LL)",
                        "int len = min(((int)threadIdx.x), 100);", "A[len] = 5.000000e-01f;"});
}

TEST(CodegenCuda, NameAllocator) {
  codegen::NameAllocator names;
  EXPECT_EQ(names.fresh("pad_temp.shared"), "pad_temp_shared");
  EXPECT_EQ(names.fresh("pad_temp.shared"), "pad_temp_shared1");
  EXPECT_EQ(names.fresh("vthread.s"), "vthread_s");
  EXPECT_EQ(names.fresh("vthread.s"), "vthread_s1");
  EXPECT_EQ(names.fresh("1x"), "_1x");
  EXPECT_EQ(names.fresh("int"), "int_");
  EXPECT_EQ(names.fresh("threadIdx"), "threadIdx_");
  EXPECT_EQ(names.fresh("__x"), "_x");
}

TEST(CodegenCuda, TargetOptions) {
  auto o = codegen::CudaBuildOptions::from_target("cuda -emulate");
  EXPECT_TRUE(o.emulate);
  EXPECT_EQ(codegen::CudaBuildOptions::from_target("cuda -arch=sm_80").arch, "sm_80");
  EXPECT_THROW(codegen::CudaBuildOptions::from_target("llvm"), CompileError);
}

// The device passes run through the pass logger: the IR after each of them is printed, in the order
// of the list that runs (device_pass_names()), as lower() does for its passes.
TEST(DevicePipeline, PrintsTheIrAfterEveryDevicePass) {
  EXPECT_EQ(transform::device_pass_names(),
            (std::vector<std::string>{"thread_sync", "split_host_device"}));
  std::ostringstream os;
  codegen::CudaBuildOptions opt;
  opt.print_after_each_pass = &os;
  codegen::CudaBuildResult r = codegen::build_cuda(tiled_matmul(), opt);
  const std::string text = os.str();
  size_t at = 0;
  for (const std::string& name : transform::device_pass_names()) {
    size_t next = text.find("// ---- after " + name, at);
    ASSERT_NE(next, std::string::npos) << name << " missing from:\n" << text;
    at = next;
  }
  // After thread_sync: the barriers the kernel source will hold; after the split: the host's
  // launch and each kernel under its own heading.
  const size_t split_at = text.find("// ---- after split_host_device");
  const std::string synced = text.substr(0, split_at), split = text.substr(split_at);
  EXPECT_NE(synced.find("tvm_storage_sync(\"shared\")"), std::string::npos) << synced;
  EXPECT_NE(split.find("tvm_call_packed(\"" + r.kernels[0]->name + "\""), std::string::npos)
      << split;
  EXPECT_NE(split.find("kernel " + r.kernels[0]->name + " ----"), std::string::npos) << split;
  // Printing changes nothing: the same build without the stream gives the same source.
  EXPECT_EQ(codegen::build_cuda(tiled_matmul()).cuda_source, r.cuda_source);
}

}  // namespace
}  // namespace minitvm
