// Host-level global temporaries across CUDA kernels: split_host_device turns a global Allocate
// outside the kernels into a temporary of the host function, the emulator module allocates it per
// call, the cuda module saves/loads it. Schedules with root stages bound to threads, built for
// "cuda -emulate" and checked against naive loops; the emitted kernels go through NVRTC + ptxas.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "minitvm/codegen/build.h"
#include "minitvm/codegen/codegen_cuda.h"
#include "minitvm/codegen/func_info.h"
#include "minitvm/ir/functor.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/runtime/ptxas.h"
#include "minitvm/te/schedule.h"
#include "minitvm/transform/lower.h"
#include "minitvm/transform/split_host_device.h"

namespace minitvm {
namespace {

using runtime::NDArray;
const DataType f32 = DataType::Float(32);

std::vector<float> rnd(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

void bind_1d(te::Schedule& s, const te::Tensor& t, int64_t threads) {
  auto [bx, tx] = s[t].split(t.op().axis()[0], threads);
  s[t].bind(bx, te::thread_axis("blockIdx.x"));
  s[t].bind(tx, te::thread_axis("threadIdx.x"));
}

/** Element count of the Allocate of buffer `name` in `f` (-1 if none or not constant). */
int64_t alloc_elements(const ir::PrimFunc& f, const std::string& name) {
  int64_t n = -1;
  ir::post_order_visit(f->body, [&](const ir::Ref<ir::Object>& o) {
    if (auto* a = o.as<ir::AllocateNode>(); a && a->buffer_var.name() == name)
      n = a->constant_size();
  });
  return n;
}

/** NVRTC (sm_90) + ptxas on the module's CUDA source; returns why it was skipped, or "". */
std::string check_nvrtc_ptxas(const runtime::Module& m, size_t expected_kernels) {
  if (!runtime::nvrtc_available()) return "NVRTC not found";
  runtime::NvrtcOptions o;
  o.arch = "sm_90";
  runtime::NvrtcResult r;
  try {
    r = runtime::nvrtc_compile(m.get_source("cuda"), o);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "NVRTC rejected the kernels:\n" << e.what();
    return "";
  }
  if (runtime::find_ptxas().empty()) return "ptxas not found (NVRTC passed)";
  try {
    runtime::PtxasReport rep = runtime::ptxas_check(r.ptx, "sm_90");
    EXPECT_EQ(rep.kernels.size(), expected_kernels) << rep.output;
    for (const auto& k : rep.kernels) {
      EXPECT_GT(k.registers, 0) << k.name;
      EXPECT_LE(k.registers, 255) << k.name;
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "ptxas rejected the PTX:\n" << e.what();
  }
  return "";
}

// B = A * 2 and C = B + 1, both root stages bound to blockIdx/threadIdx; B is not an argument.
struct TwoStages {
  static constexpr int n = 1000;  // not a multiple of the block sizes: guarded tails
  te::Tensor A, B, C;
  te::Schedule s;
  TwoStages() {
    A = te::placeholder({n}, f32, "A");
    B = te::compute(
        {n}, [&](ir::Var i) { return A(i) * 2.0f; }, "B");
    C = te::compute(
        {n}, [&](ir::Var i) { return B(i) + 1.0f; }, "C");
    s = te::create_schedule({C.op()});
    bind_1d(s, B, 64);
    bind_1d(s, C, 128);
  }
};

TEST(CudaTemps, SplitMakesTemporaryOfHostLevelGlobal) {
  TwoStages t;
  ir::PrimFunc f = lower(t.s, {t.A, t.C}, "two");
  transform::HostDeviceSplit split = transform::split_host_device(f);
  ASSERT_EQ(split.kernels.size(), 2u);
  const auto info = codegen::cuda_function_info(f, split);
  ASSERT_EQ(info.signature.args.size(), 2u);
  ASSERT_EQ(info.temporaries.size(), 1u);
  EXPECT_EQ(info.temporaries[0].name, "B");
  EXPECT_EQ(info.temporaries[0].dtype, f32);
  // B holds its 1000 elements (TVM bounds it by its shape); the loops' tails (16 blocks x 64
  // threads, 8 x 128) are guarded.
  EXPECT_EQ(alloc_elements(f, "B"), 1000);
  EXPECT_EQ(info.temporaries[0].elements, 1000);
  // kernel0 stores B (temporary 0 = index 2) from A (0); kernel1 stores C (1) from B (2).
  ASSERT_EQ(info.launches.size(), 2u);
  EXPECT_EQ(info.launches[0].args, (std::vector<int>{2, 0}));
  EXPECT_EQ(info.launches[1].args, (std::vector<int>{1, 2}));
  EXPECT_EQ(info.launches[0].grid[0], 16);  // ceil(1000 / 64)
  EXPECT_EQ(info.launches[0].block[0], 64);
  EXPECT_EQ(info.launches[1].grid[0], 8);  // ceil(1000 / 128)
  EXPECT_EQ(info.launches[1].block[0], 128);
  // The kernels take B as a float buffer; the host keeps the allocation around both launches.
  ASSERT_EQ(split.kernels[0]->params.size(), 2u);
  EXPECT_EQ(split.kernels[0]->params[0].name(), "B");
  EXPECT_EQ(split.kernels[1]->params[1].name(), "B");
  std::ostringstream host;
  host << split.host->body;
  const std::string h = host.str();
  size_t alloc = h.find("allocate B[float32 * 1000]"), k0 = h.find("two_kernel0"),
         k1 = h.find("two_kernel1");
  ASSERT_NE(alloc, std::string::npos) << h;
  EXPECT_LT(alloc, k0) << h;
  EXPECT_LT(k0, k1) << h;
  std::string src = codegen::build_cuda(f).cuda_source;
  EXPECT_NE(src.find("two_kernel0( float* __restrict__ B,  float* __restrict__ A)"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("two_kernel1( float* __restrict__ C,  float* __restrict__ B)"),
            std::string::npos)
      << src;
}

TEST(CudaTemps, TwoStagesEmulatedMatchReference) {
  TwoStages t;
  runtime::Module m = build(t.s, {t.A, t.C}, "cuda -emulate", "two");
  ASSERT_EQ(m.type_key(), "cuda-emulator");
  auto a = rnd(TwoStages::n, 1);
  auto A = NDArray::from_vector(a, {TwoStages::n});
  auto C = NDArray::empty({TwoStages::n}, f32);
  auto fn = m.get_function("two");
  EXPECT_EQ(fn.signature().args.size(), 2u) << "the temporary is not an argument";
  for (int call = 0; call < 2; ++call) {  // temporaries are per call: a second call works the same
    fn(A, C);
    auto c = C.to_vector<float>();
    for (int i = 0; i < TwoStages::n; ++i) ASSERT_EQ(c[i], a[i] * 2.0f + 1.0f) << "i = " << i;
  }
  std::string why = check_nvrtc_ptxas(m, 2);
  if (!why.empty()) GTEST_SKIP() << why << " (the emulator run passed)";
}

// Three kernels, two temporaries of different types; the last kernel reads both temporaries at
// indices written by other blocks (so the kernel boundary is what makes it correct), and B is
// used by two kernels.
TEST(CudaTemps, ThreeKernelsTwoTemporariesEmulated) {
  const int n = 777;
  auto A = te::placeholder({n}, f32, "A");
  auto B = te::compute(
      {n}, [&](ir::Var i) { return A(i) * 3.0f - 1.0f; }, "B");
  auto I = te::compute(
      {n}, [&](ir::Var i) { return ir::cast(DataType::Int(32), B(n - 1 - i) * 10.0f); }, "I");
  auto D = te::compute(
      {n}, [&](ir::Var i) { return B((i * 7) % n) + ir::cast(f32, I(n - 1 - i)); }, "D");
  auto s = te::create_schedule({D.op()});
  bind_1d(s, B, 32);
  bind_1d(s, I, 64);
  bind_1d(s, D, 256);
  ir::PrimFunc f = lower(s, {A, D}, "three");
  auto split = transform::split_host_device(f);
  ASSERT_EQ(split.temporaries.size(), 2u);
  EXPECT_EQ(split.temporaries[0].name, "B");
  EXPECT_EQ(split.temporaries[1].name, "I");
  EXPECT_EQ(split.temporaries[1].dtype, DataType::Int(32));
  EXPECT_EQ(split.temporaries[0].elements, alloc_elements(f, "B"));
  EXPECT_EQ(split.temporaries[1].elements, alloc_elements(f, "I"));
  EXPECT_GE(split.temporaries[1].elements, n);
  ASSERT_EQ(split.launches.size(), 3u);
  EXPECT_EQ(split.launches[1].args, (std::vector<int>{3, 2}));     // I, B
  EXPECT_EQ(split.launches[2].args, (std::vector<int>{1, 2, 3}));  // D, B, I

  runtime::Module m = build(std::vector<ir::PrimFunc>{f}, "cuda -emulate");
  auto a = rnd(n, 7);
  std::vector<float> b(n), want(n);
  std::vector<int32_t> iv(n);
  for (int i = 0; i < n; ++i) b[i] = a[i] * 3.0f - 1.0f;
  for (int i = 0; i < n; ++i) iv[i] = static_cast<int32_t>(b[n - 1 - i] * 10.0f);
  for (int i = 0; i < n; ++i) want[i] = b[(i * 7) % n] + static_cast<float>(iv[n - 1 - i]);
  auto Aa = NDArray::from_vector(a, {n});
  auto Dd = NDArray::empty({n}, f32);
  m.get_function("three")(Aa, Dd);
  auto got = Dd.to_vector<float>();
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << "i = " << i;
  std::string why = check_nvrtc_ptxas(m, 3);
  if (!why.empty()) GTEST_SKIP() << why << " (the emulator run passed)";
}

/** f(O, n): `allocate T[float32 * extent]` (scope) around a kernel O[tx] = T[tx] (32 threads). */
ir::PrimFunc read_temp_func(const char* name, ir::Expr extent, ir::StorageScope scope,
                            std::vector<ir::Var> extra_params = {}) {
  using namespace ir;
  Buffer O = Buffer::make("O", f32, {make_const(DataType::Int(32), 32)});
  Var t = Var::buffer("T", f32);
  IterVar tx(Range(0, 32), Var("threadIdx.x"), IterVarType::ThreadIndex, "threadIdx.x");
  Expr x = tx;
  Stmt k = AttrStmtNode::make(tx, AttrKind::ThreadExtent, make_const(DataType::Int(32), 32),
                              StoreNode::make(O->data, LoadNode::make(f32, t, x), x));
  Stmt body = AllocateNode::make(t, f32, {extent}, scope, Expr(), k);
  std::vector<Var> params{O->data};
  params.insert(params.end(), extra_params.begin(), extra_params.end());
  return PrimFunc::make(name, params, {{O->data.get(), O}}, body);
}

// A kernel that reads a temporary no kernel wrote sees the emulator's poison (NaN), not zeros
// or a previous call's values.
TEST(CudaTemps, UnwrittenTemporaryReadsAsNaN) {
  runtime::Module m =
      build(std::vector<ir::PrimFunc>{read_temp_func("unwritten", 32, ir::StorageScope::Global)},
            "cuda -emulate");
  auto out = NDArray::from_vector(std::vector<float>(32, 5.0f), {32});
  m.get_function("unwritten")(out);
  for (float v : out.to_vector<float>()) EXPECT_TRUE(std::isnan(v)) << v;
}

TEST(CudaTemps, NonConstantTemporarySizeIsCompileError) {
  ir::Var n("n");
  ir::PrimFunc f = read_temp_func("dyn", n, ir::StorageScope::Global, {n});
  try {
    transform::split_host_device(f);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("global buffer 'T'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("non-constant size n"), std::string::npos) << msg;
  }
}

TEST(CudaTemps, SharedAllocationOutsideKernelsIsCompileError) {
  ir::PrimFunc f = read_temp_func("sh", 32, ir::StorageScope::Shared);
  try {
    transform::split_host_device(f);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("allocated in shared memory outside any kernel"),
              std::string::npos)
        << e.what();
  }
}

// The cuda module's JSON sidecar keeps the temporaries (new optional field) and files without
// the field still load. No GPU is needed until a function is called.
TEST(CudaTemps, CudaModuleSaveLoadKeepsTemporaries) {
  TwoStages t;
  ir::PrimFunc f = lower(t.s, {t.A, t.C}, "two");
  codegen::CudaModuleBuild b = codegen::build_cuda(std::vector<ir::PrimFunc>{f});
  auto dir =
      std::filesystem::temp_directory_path() / ("minitvm_cuda_temps_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "two.ptx").string();
  runtime::make_cuda_module("// fake ptx\n", b.functions, b.cuda_source, "sm_90").save(path);
  nlohmann::json meta;
  {
    std::ifstream in(path + ".json");
    in >> meta;
  }
  const auto& fj = meta.at("functions").at(0);
  ASSERT_TRUE(fj.contains("temporaries")) << meta.dump(2);
  EXPECT_EQ(fj["temporaries"],
            nlohmann::json::parse(R"([{"name": "B", "dtype": "float32", "elements": 1000}])"));
  EXPECT_EQ(fj["launches"][0]["args"], nlohmann::json::parse("[2, 0]"));
  // Loading validates launch argument indices against arguments + temporaries.
  runtime::Module loaded = runtime::load_cuda_module(path);
  EXPECT_EQ(loaded.function_names(), std::vector<std::string>{"two"});
  // Without the field, index 2 points past the arguments: rejected with a clear message.
  nlohmann::json old = meta;
  old["functions"][0].erase("temporaries");
  {
    std::ofstream out(path + ".json");
    out << old.dump();
  }
  try {
    runtime::load_cuda_module(path);
    ADD_FAILURE() << "expected a RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("argument index 2"), std::string::npos) << e.what();
  }
  // An old-style file whose launches only use arguments loads as before.
  old["functions"][0]["launches"] = nlohmann::json::parse(
      R"([{"kernel": "two_kernel1", "args": [1, 0], "grid": [8, 1, 1], "block": [128, 1, 1]}])");
  {
    std::ofstream out(path + ".json");
    out << old.dump();
  }
  EXPECT_NO_THROW(runtime::load_cuda_module(path));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace minitvm
