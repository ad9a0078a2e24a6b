// One Target: target strings reach NVRTC/ptxas/the saved module and the JIT; bad targets, schedules
// the CUDA build cannot run, and kernels over CUDA's resource limits are CompileErrors that say
// why.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "minitvm/codegen/build.h"
#include "minitvm/codegen/codegen_cuda.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/support/target.h"
#include "minitvm/te/schedule.h"
#include "minitvm/te/tensor.h"

namespace minitvm {
namespace {

using ir::Var;
using runtime::NDArray;
const DataType f32 = DataType::Float(32);

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << "message: " << (msg)

/** The CompileError message of `f()`, or "" when it does not throw one. */
template <class F>
std::string compile_error(F&& f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

/** C[i] = A[i] * 2 over n, split by `threads` and bound to blockIdx.x / threadIdx.x. */
struct Scale {
  te::Tensor A, C;
  te::Schedule s;
};
Scale scale(int n, int threads) {
  Scale r;
  r.A = te::placeholder({n}, f32, "A");
  r.C = te::compute(
      {n}, [&](Var i) { return r.A(i) * 2.0f; }, "C");
  r.s = te::create_schedule({r.C.op()});
  auto [bx, tx] = r.s[r.C].split(r.C.op().axis()[0], threads);
  r.s[r.C].bind(bx, te::thread_axis("blockIdx.x"));
  r.s[r.C].bind(tx, te::thread_axis("threadIdx.x"));
  return r;
}

// ---- 1. one Target ------------------------------------------------------------------------------

TEST(Target, ParsesInterpretedOptionsOnce) {
  Target t = parse_target("cuda -arch=sm_80 -model=unknown -emulate");
  EXPECT_TRUE(t.is_cuda());
  EXPECT_EQ(t.arch, "sm_80");
  EXPECT_TRUE(t.emulate);
  EXPECT_EQ(t.model(), "unknown");
  EXPECT_EQ(t.keys, (std::vector<std::string>{"cuda", "gpu"}));
  Target l = parse_target("llvm -mcpu=skylake-avx512 -mattr=+avx2,-fma");
  EXPECT_EQ(l.mcpu, "skylake-avx512");
  EXPECT_EQ(l.mattr, (std::vector<std::string>{"+avx2", "-fma"}));
  // The codegen path and AutoTVM see the same parse.
  EXPECT_EQ(codegen::CudaBuildOptions::from_target("cuda -arch=sm_80").arch, "sm_80");
  EXPECT_TRUE(codegen::CudaBuildOptions::from_target("cuda -model=unknown -emulate").emulate);
}

TEST(Target, InvalidValuesNameTheOptionAndValue) {
  std::string m = compile_error([] { parse_target("cuda -arch=banana"); });
  EXPECT_HAS(m, "-arch=banana");
  EXPECT_HAS(m, "invalid value 'banana'");
  m = compile_error([] { parse_target("llvm -mattr=avx2"); });
  EXPECT_HAS(m, "invalid feature 'avx2'");
  auto sc = scale(256, 64);
  m = compile_error([&] { build(sc.s, {sc.A, sc.C}, "cuda -frobnicate", "f"); });
  EXPECT_HAS(m, "unknown option '-frobnicate'");
  m = compile_error([&] { build(sc.s, {sc.A, sc.C}, "cuda -checked", "f"); });
  EXPECT_HAS(m, "-checked applies to the CPU emulator only");
  m = compile_error([&] { build(sc.s, {sc.A, sc.C}, "opencl", "f"); });
  EXPECT_HAS(m, "unknown target 'opencl'");
  m = compile_error([&] { build(sc.s, {sc.A, sc.C}, "cuda -emulate -arch=banana", "f"); });
  EXPECT_HAS(m, "invalid value 'banana' for -arch");
}

TEST(Target, ArchUnknownToNvrtcIsRejected) {
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC not available";
  auto archs = runtime::nvrtc_supported_archs();
  ASSERT_FALSE(archs.empty());
  auto sc = scale(256, 64);
  for (const char* target : {"cuda -arch=sm_999", "cuda -emulate -arch=sm_999"}) {
    std::string m = compile_error([&] { build(sc.s, {sc.A, sc.C}, target, "f"); });
    EXPECT_HAS(m, "'sm_999' is not supported by NVRTC");
    EXPECT_HAS(m, archs.front());  // the supported list
  }
}

TEST(Target, ArchReachesNvrtcAndTheSavedModule) {
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC not available";
  auto sc = scale(1024, 128);
  runtime::Module m = build(sc.s, {sc.A, sc.C}, "cuda -arch=sm_80", "scale");
  const std::string ptx = m.get_source("ptx");
  EXPECT_HAS(ptx, ".target sm_80");
  EXPECT_EQ(ptx.find(".target sm_90"), std::string::npos);
  const auto dir =
      std::filesystem::temp_directory_path() / ("minitvm_target_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  m.save((dir / "scale.ptx").string());
  std::ifstream js(dir / "scale.ptx.json");
  nlohmann::json j = nlohmann::json::parse(js);
  EXPECT_EQ(j["arch"], "sm_80");
  std::ifstream saved(dir / "scale.ptx");
  std::stringstream ss;
  ss << saved.rdbuf();
  EXPECT_HAS(ss.str(), ".target sm_80");
  std::filesystem::remove_all(dir);
  // The default stays sm_90 without a GPU (or the device's arch with one).
  runtime::Module d = build(sc.s, {sc.A, sc.C}, "cuda -model=unknown", "scale");
  EXPECT_HAS(d.get_source("ptx"), ".target sm_");
}

TEST(Target, LlvmMcpuDrivesTheJit) {
  auto A = te::placeholder({64}, f32, "A");
  auto B = te::compute(
      {64}, [&](Var i) { return A(i) + 1.0f; }, "B");
  auto s = te::create_schedule({B.op()});
  std::vector<float> a(64);
  for (int i = 0; i < 64; ++i) a[i] = static_cast<float>(i) * 0.5f;
  // x86-64 (the baseline every x86-64 host has) and the TVM log spelling with -device.
  for (const char* target : {"llvm -mcpu=x86-64", "llvm -device=cpu -mcpu=x86-64 -mattr=-avx"}) {
#if !defined(__x86_64__)
    GTEST_SKIP() << "x86-64 host CPU names";
#endif
    runtime::Module m = build(s, {A, B}, target, "add1");
    EXPECT_HAS(m.get_source(""), "\"target-cpu\"=\"x86-64\"");
    NDArray Ad = NDArray::from_vector(a, {64}), Bd = NDArray::empty({64}, f32);
    m.get_function("add1")(Ad, Bd);
    auto b = Bd.to_vector<float>();
    for (int i = 0; i < 64; ++i) ASSERT_EQ(b[i], a[i] + 1.0f) << target << " " << i;
  }
  std::string m = compile_error([&] { build(s, {A, B}, "llvm -mcpu=banana", "add1"); });
  EXPECT_HAS(m, "-mcpu=banana is not a CPU LLVM knows");
  m = compile_error([&] { build(s, {A, B}, "llvm -mattr=+nosuchfeature", "add1"); });
  EXPECT_HAS(m, "-mattr feature 'nosuchfeature' is not a feature LLVM knows");
  m = compile_error([&] { build(s, {A, B}, "llvm -mtriple=aarch64-linux-gnu", "add1"); });
  EXPECT_HAS(m, "cannot cross-compile");
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx512f")) {
    m = compile_error([&] { build(s, {A, B}, "llvm -mcpu=skylake-avx512", "add1"); });
    EXPECT_HAS(m, "-mcpu=skylake-avx512 needs CPU features this host");
    EXPECT_HAS(m, "avx512f");
  }
#endif
}

// ---- 2. CUDA build checks
// -------------------------------------------------------------------------

TEST(CudaBuildChecks, OneTagWithTwoExtentsInOneKernel) {
  // C (threadIdx.x extent 64) reads A.shared, whose copy binds threadIdx.x with extent 32.
  const int n = 1024;
  auto A = te::placeholder({n}, f32, "A");
  auto C = te::compute(
      {n}, [&](Var i) { return A(i) * 2.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  auto AS = s.cache_read(A, "shared", {C.op()});
  auto [bx, tx] = s[C].split(C.op().axis()[0], 64);
  s[C].bind(bx, te::thread_axis("blockIdx.x"));
  te::IterVar thread_x = te::thread_axis("threadIdx.x");
  s[C].bind(tx, thread_x);
  s[AS].compute_at(s[C], bx);
  auto [ao, ai] = s[AS].split(AS.op().axis()[0], 32);
  s[AS].bind(ai, te::thread_axis("threadIdx.x"));
  for (const char* target : {"cuda -emulate", "cuda"}) {
    if (std::string(target) == "cuda" && !runtime::nvrtc_available()) continue;
    std::string m = compile_error([&] { build(s, {A, C}, target, "twoext"); });
    EXPECT_HAS(m, "thread tag threadIdx.x is bound with extent");
    EXPECT_HAS(m, "stage 'C'");
    EXPECT_HAS(m, "stage 'A.shared'");
    EXPECT_HAS(m, "64");
    EXPECT_HAS(m, "32");
  }
}

TEST(CudaBuildChecks, UnboundRootStageIsAnError) {
  // D = P + 1 with only D bound: P would be computed by host code that never runs.
  const int n = 256;
  auto A = te::placeholder({n}, f32, "A");
  auto P = te::compute(
      {n}, [&](Var i) { return A(i) * 3.0f; }, "P");
  auto D = te::compute(
      {n}, [&](Var i) { return P(i) + 1.0f; }, "D");
  auto s = te::create_schedule({D.op()});
  auto [bx, tx] = s[D].split(D.op().axis()[0], 64);
  s[D].bind(bx, te::thread_axis("blockIdx.x"));
  s[D].bind(tx, te::thread_axis("threadIdx.x"));
  std::string m = compile_error([&] { build(s, {A, D}, "cuda -emulate", "unbound"); });
  EXPECT_HAS(m, "stage 'P'");
  EXPECT_HAS(m, "Did you forget to bind");
}

TEST(CudaBuildChecks, HostLoopAfterCacheWriteIsAnError) {
  // cache_write makes C.local the computing stage; binding only C.local leaves C's copy loop on
  // the host.
  const int n = 256;
  auto A = te::placeholder({n}, f32, "A");
  auto C = te::compute(
      {n}, [&](Var i) { return A(i) + 2.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  auto CL = s.cache_write(C, "global");
  auto [bx, tx] = s[CL].split(CL.op().axis()[0], 64);
  s[CL].bind(bx, te::thread_axis("blockIdx.x"));
  s[CL].bind(tx, te::thread_axis("threadIdx.x"));
  std::string m = compile_error([&] { build(s, {A, C}, "cuda -emulate", "cw"); });
  EXPECT_HAS(m, "outside every kernel");
  EXPECT_HAS(m, "stage 'C'");
}

TEST(CudaBuildChecks, ThreadsPerBlockOverTheLimit) {
  auto sc = scale(4096, 2048);
  std::string m = compile_error([&] { build(sc.s, {sc.A, sc.C}, "cuda -emulate", "big"); });
  EXPECT_HAS(m, "kernel big_kernel0");
  EXPECT_HAS(m, "threadIdx.x has extent 2048");
  EXPECT_HAS(m, "limit of 1024");
  // threadIdx.z: 128 within the 1024 threads, but over the per-dimension 64.
  const int n = 128;
  auto A = te::placeholder({n}, f32, "A");
  auto C = te::compute(
      {n}, [&](Var i) { return A(i) * 2.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  s[C].bind(C.op().axis()[0], te::thread_axis("threadIdx.z"));
  m = compile_error([&] { build(s, {A, C}, "cuda -emulate", "z"); });
  EXPECT_HAS(m, "threadIdx.z has extent 128, over CUDA's limit of 64");
}

/** C = A.shared * 2, with A.shared holding `n` floats for the whole block. */
std::string shared_error(int n, const char* target) {
  auto A = te::placeholder({n}, f32, "A");
  auto C = te::compute(
      {n}, [&](Var i) { return A(i) * 2.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  auto AS = s.cache_read(A, "shared", {C.op()});
  auto [bx, rest] = s[C].split(C.op().axis()[0], n);  // one block covering all of A
  auto [o, tx] = s[C].split(rest, 64);
  s[C].bind(bx, te::thread_axis("blockIdx.x"));
  s[C].bind(tx, te::thread_axis("threadIdx.x"));
  s[AS].compute_at(s[C], bx);
  auto [ao, ai] = s[AS].split(AS.op().axis()[0], 64);
  s[AS].bind(ai, te::thread_axis("threadIdx.x"));
  return compile_error([&] { build(s, {A, C}, target, "smem"); });
}

TEST(CudaBuildChecks, StaticSharedMemoryOverTheLimit) {
  // 20480 floats = 80 KiB and 102400 floats = 400 KiB of static shared memory per block.
  for (int n : {20480, 102400}) {
    for (const char* target : {"cuda -emulate", "cuda"}) {
      if (std::string(target) == "cuda" && !runtime::nvrtc_available()) continue;
      std::string m = shared_error(n, target);
      EXPECT_HAS(m, "kernel smem_kernel0");
      EXPECT_HAS(m, std::to_string(n * 4) + " bytes of static shared memory");
      EXPECT_HAS(m, "A.shared");
      EXPECT_HAS(m, "limit of 49152 bytes");
    }
  }
}

// ---- 3. the emulator's checked mode through build()
// ------------------------------------------------

TEST(EmulatorCheckedBuild, StorePredicateLeavingHalfTheOutputIsReported) {
  const int n = 512;
  auto A = te::placeholder({n}, f32, "A");
  auto C = te::compute(
      {n}, [&](Var i) { return A(i) * 2.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  auto [bx, tx] = s[C].split(C.op().axis()[0], 64);
  te::IterVar block_x = te::thread_axis("blockIdx.x"), thread_x = te::thread_axis("threadIdx.x");
  s[C].bind(bx, block_x);
  s[C].bind(tx, thread_x);
  s[C].set_store_predicate(block_x->var * 64 + thread_x->var < 200);
  std::vector<float> a(n);
  for (int k = 0; k < n; ++k) a[k] = static_cast<float>(k);
  NDArray Ad = NDArray::from_vector(a, {n}), Cd = NDArray::empty({n}, f32);
  runtime::Module checked = build(s, {A, C}, "cuda -emulate -checked", "pred");
  std::string m;
  try {
    checked.get_function("pred")(Ad, Cd);
  } catch (const Error& e) {
    m = e.what();
  }
  EXPECT_HAS(m, "output 'C' [512]: 312 of 512 elements were never written");
  EXPECT_HAS(m, "flat index 200");
  // The same schedule without the predicate writes everything: checked mode passes, values right.
  auto s2 = te::create_schedule({C.op()});
  auto [bx2, tx2] = s2[C].split(C.op().axis()[0], 64);
  s2[C].bind(bx2, te::thread_axis("blockIdx.x"));
  s2[C].bind(tx2, te::thread_axis("threadIdx.x"));
  build(s2, {A, C}, "cuda -emulate -checked", "full").get_function("full")(Ad, Cd);
  auto c = Cd.to_vector<float>();
  for (int k = 0; k < n; ++k) ASSERT_EQ(c[k], a[k] * 2.0f) << k;
}

}  // namespace
}  // namespace minitvm
