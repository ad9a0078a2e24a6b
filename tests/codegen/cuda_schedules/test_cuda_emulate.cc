// tests/codegen/cuda_schedules: te schedules -> build(..., "cuda -emulate") for every kernel of
// cases.h, each checked with NVRTC + ptxas (sm_90) and run on the CPU emulator against a naive C++
// reference.
#include <gtest/gtest.h>

#include <regex>

#include "cases.h"
#include "check.h"
#include "minitvm/codegen/build.h"
#include "minitvm/runtime/nvrtc.h"

namespace minitvm::cuda_tests {
namespace {

class CudaEmulated : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaEmulated, CompilesAndMatchesReference) {
  CudaCase c = make_case(GetParam());
  runtime::Module m = build(c.sch, c.args, "cuda -emulate", c.name);
  EXPECT_EQ(m.type_key(), "cuda-emulator");
  const std::string src = m.get_source("cuda");
  EXPECT_NE(src.find("extern \"C\" __global__ void"), std::string::npos) << src;
  EXPECT_NE(src.find(c.name + "_kernel0("), std::string::npos) << src;
  CompileCheck cc = check_compiles(m);
  run_and_compare(m, c, Device::cpu());
  if (!cc.checked) GTEST_SKIP() << cc.why << " (the emulator run passed)";
}

INSTANTIATE_TEST_SUITE_P(Kernels, CudaEmulated, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

std::string source_of(const std::string& name) {
  CudaCase c = make_case(name);
  return build(c.sch, c.args, "cuda -emulate", c.name).get_source("cuda");
}

TEST(CudaSource, TiledMatmulUsesSharedLocalAndBarriers) {
  std::string src = source_of("tiled_matmul");
  // 8 x 8 threads per block, 64 x 8 tiles of A and B in shared memory.
  EXPECT_NE(src.find("__launch_bounds__(64)"), std::string::npos) << src;
  EXPECT_TRUE(std::regex_search(src, std::regex(R"(__shared__ float A_shared\[512\];)"))) << src;
  EXPECT_TRUE(std::regex_search(src, std::regex(R"(__shared__ float B_shared\[512\];)"))) << src;
  EXPECT_NE(src.find("__syncthreads();"), std::string::npos) << src;
  // Accumulators in registers: 4 x 4 per thread and virtual thread.
  EXPECT_TRUE(std::regex_search(src, std::regex(R"(float C_local\[\d+\];)"))) << src;
  EXPECT_NE(src.find("((int)threadIdx.y)"), std::string::npos);
  EXPECT_NE(src.find("((int)blockIdx.x)"), std::string::npos);
  EXPECT_EQ(src.find("vthread"), std::string::npos) << "virtual threads must be expanded:\n" << src;
}

TEST(CudaSource, DoubleBufferedTilesHaveTwoHalvesAndOneBarrierPerStep) {
  // K = 12: three k steps. The 16 x 4 tiles of A and B take 2 x 64 floats; the fetch of step 0
  // runs before the loop, the loop (two steps) prefetches step ko + 1 into half (ko + 1) % 2 and
  // has a single barrier; the last step is a tail after one more barrier.
  std::string src = source_of("db_matmul_k12");
  EXPECT_TRUE(std::regex_search(src, std::regex(R"(__shared__ float A_shared\[128\];)"))) << src;
  EXPECT_TRUE(std::regex_search(src, std::regex(R"(__shared__ float B_shared\[128\];)"))) << src;
  EXPECT_TRUE(std::regex_search(
      src, std::regex(R"(for \(int k_outer_outer = 0; k_outer_outer < 2; \+\+k_outer_outer\))")))
      << src;
  size_t n = 0;
  for (size_t p = src.find("__syncthreads();"); p != std::string::npos;
       p = src.find("__syncthreads();", p + 1))
    ++n;
  EXPECT_EQ(n, 2u) << src;
  EXPECT_TRUE(std::regex_search(src, std::regex(R"(k_outer_outer\) \{\s*__syncthreads\(\);)")))
      << src;
  // ko = 1 (K = 4): nothing alternates, one tile each.
  std::string one = source_of("db_matmul_k4");
  EXPECT_TRUE(std::regex_search(one, std::regex(R"(__shared__ float A_shared\[64\];)"))) << one;
}

TEST(CudaSource, MaxReductionStartsFromMinusInfinity) {
  std::string src = source_of("max_reduce");
  EXPECT_NE(src.find("__int_as_float(0xff800000)"), std::string::npos) << src;
}

TEST(CudaSource, Fp16IncludesHeaderAndAccumulatesInFloat) {
  std::string ew = source_of("fp16_elementwise");
  EXPECT_NE(ew.find("#include <cuda_fp16.h>"), std::string::npos) << ew;
  EXPECT_NE(ew.find("half* __restrict__ C"), std::string::npos) << ew;
  std::string red = source_of("fp16_sum_float_acc");
  EXPECT_NE(red.find("#include <cuda_fp16.h>"), std::string::npos) << red;
  EXPECT_TRUE(std::regex_search(red, std::regex(R"(float S\w*\[1\];)"))) << red;
  EXPECT_NE(red.find("__half2float"), std::string::npos) << red;
  EXPECT_NE(red.find("__float2half_rn"), std::string::npos) << red;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(CudaSource, CrossThreadReductionsUseASharedTreeWithBarriers) {
  // 24 threads: the store, the fold of slots 16..23 (8 threads), then 16 -> 8 -> 4 -> 2 -> 1.
  std::string rs = source_of("allreduce_row_sum");
  EXPECT_NE(rs.find("__launch_bounds__(24)"), std::string::npos) << rs;
  EXPECT_NE(rs.find("__shared__ float red_buf0[24];"), std::string::npos) << rs;
  EXPECT_NE(rs.find("if (((int)threadIdx.x) < 8) {"), std::string::npos) << rs;
  EXPECT_EQ(count(rs, "__syncthreads();"), 6u) << rs;
  EXPECT_NE(rs.find("if (((int)threadIdx.x) == 0) {"), std::string::npos)
      << rs;  // the store predicate
  // Four groups (threadIdx.y) of 19 threads share one buffer of 76 slots.
  std::string mg = source_of("allreduce_max_groups");
  EXPECT_NE(mg.find("__shared__ float red_buf0[76];"), std::string::npos) << mg;
  // Two values: each step reads into registers, syncs, writes, syncs (45 threads: fold + 5 steps).
  std::string am = source_of("allreduce_argmax");
  EXPECT_NE(am.find("__shared__ int red_buf0[45];"), std::string::npos) << am;
  EXPECT_NE(am.find("__shared__ float red_buf1[45];"), std::string::npos) << am;
  EXPECT_EQ(count(am, "__syncthreads();"), 1u + 2u * 6u) << am;
  // Two reduced thread axes: one buffer over threadIdx.y * 10 + threadIdx.x.
  std::string ta = source_of("allreduce_two_axes");
  EXPECT_NE(ta.find("__shared__ float red_buf0[60];"), std::string::npos) << ta;
  EXPECT_NE(ta.find("red_buf0[(((int)threadIdx.x) + (((int)threadIdx.y) * 10))] = "),
            std::string::npos)
      << ta;
  // Inside a loop over rows: one more barrier before the buffer is rewritten.
  std::string lp = source_of("allreduce_in_loop");
  EXPECT_EQ(count(lp, "__syncthreads();"), 7u) << lp;
}

TEST(CudaSource, ImperfectSplitsAreGuarded) {
  std::string src = source_of("imperfect_2d");
  EXPECT_NE(src.find("< 37)"), std::string::npos) << src;
  EXPECT_NE(src.find("< 53)"), std::string::npos) << src;
  std::string mm = source_of("imperfect_matmul_shared");
  EXPECT_NE(mm.find("__syncthreads();"), std::string::npos) << mm;
  EXPECT_NE(mm.find("< 30)"), std::string::npos) << mm;  // the K tail of the shared loads
}

// C[i, j] = A[i, j] * 2 over 64 x 16, rows over 2 blocks x 32 threads, j a serial loop of 16.
// With pragma auto_unroll_max_step = 16 on the block axis, the j loop is unrolled: as
// `#pragma unroll` when unroll_explicit = 0, as 16 copies of the store when unroll_explicit = 1.
struct UnrollCase {
  te::Schedule s;
  std::vector<te::Tensor> args;
};
UnrollCase unroll_case(int max_step, int explicit_unroll) {
  auto A = te::placeholder({64, 16}, DataType::Float(32), "A");
  auto C = te::compute(
      {64, 16}, [&](ir::Var i, ir::Var j) { return A(i, j) * 2.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  auto [bx, tx] = s[C].split(C.op().axis()[0], 32);
  s[C].bind(bx, te::thread_axis("blockIdx.x"));
  s[C].bind(tx, te::thread_axis("threadIdx.x"));
  s[C].pragma(bx, "auto_unroll_max_step", ir::make_const(DataType::Int(32), max_step));
  s[C].pragma(bx, "unroll_explicit", ir::make_const(DataType::Int(32), explicit_unroll));
  return {s, {A, C}};
}

void run_unroll_case(UnrollCase& u, const runtime::Module& m) {
  std::vector<float> a(64 * 16);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i) * 0.5f - 3.0f;
  auto A = runtime::NDArray::from_vector(a, {64, 16});
  auto C = runtime::NDArray::empty({64, 16}, DataType::Float(32));
  m.get_function("scale")(A, C);
  auto c = C.to_vector<float>();
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(c[i], a[i] * 2.0f) << i;
}

std::string unrolled_store_pattern(int j) {
  return "C[((((((int)blockIdx.x) * 512) + (((int)threadIdx.x) * 16)) + " + std::to_string(j) +
         "))]";
}

TEST(CudaUnroll, PragmaUnrollWhenNotExplicit) {
  auto u = unroll_case(16, 0);
  auto m = build(u.s, u.args, "cuda -emulate", "scale");
  std::string src = m.get_source("cuda");
  EXPECT_NE(src.find("#pragma unroll\n"), std::string::npos) << src;
  EXPECT_TRUE(std::regex_search(src, std::regex(R"(for \(int \w+ = 0; \w+ < 16; \+\+\w+\))")))
      << src;
  check_compiles(m);
  run_unroll_case(u, m);
}

TEST(CudaUnroll, ExplicitCopiesWhenExplicit) {
  auto u = unroll_case(16, 1);
  auto m = build(u.s, u.args, "cuda -emulate", "scale");
  std::string src = m.get_source("cuda");
  EXPECT_EQ(src.find("#pragma unroll"), std::string::npos) << src;
  EXPECT_EQ(src.find("for ("), std::string::npos) << src;
  // 16 stores, one per j (j = 0 folds into the base index).
  size_t stores = 0;
  for (size_t p = src.find("C["); p != std::string::npos; p = src.find("C[", p + 1)) ++stores;
  EXPECT_EQ(stores, 16u) << src;
  check_compiles(m);
  run_unroll_case(u, m);
}

TEST(CudaUnroll, NoUnrollBelowTheStepLimit) {
  auto u = unroll_case(8, 1);  // 16 steps > 8: the loop stays
  auto m = build(u.s, u.args, "cuda -emulate", "scale");
  std::string src = m.get_source("cuda");
  EXPECT_EQ(src.find("#pragma unroll"), std::string::npos) << src;
  EXPECT_TRUE(std::regex_search(src, std::regex(R"(for \(int \w+ = 0; \w+ < 16; \+\+\w+\))")))
      << src;
  run_unroll_case(u, m);
}

TEST(CudaModule, SavedEmulatorSourceMatchesPtxModule) {
  // "cuda" builds compile with NVRTC at build time (no GPU needed until a call).
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC not found";
  CudaCase c = make_case("vector_add");
  auto gpu = build(c.sch, c.args, "cuda", c.name);
  EXPECT_EQ(gpu.type_key(), "cuda");
  EXPECT_NE(gpu.get_source("ptx").find(".entry vector_add_kernel0"), std::string::npos);
  CudaCase c2 = make_case("vector_add");
  auto emu = build(c2.sch, c2.args, "cuda -emulate", c2.name);
  EXPECT_EQ(gpu.get_source("cuda"), emu.get_source("cuda"));
}

}  // namespace
}  // namespace minitvm::cuda_tests
