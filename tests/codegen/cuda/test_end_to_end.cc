// End to end: te schedule -> lower() -> build_cuda -> emulator, for the CUDA patterns of the issue.
#include <gtest/gtest.h>

#include <random>

#include "minitvm/codegen/codegen_cuda.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/te/schedule.h"
#include "minitvm/te/tensor.h"
#include "minitvm/transform/lower.h"

namespace minitvm {
namespace {

using namespace ir;
using runtime::NDArray;

std::vector<float> rnd(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

runtime::Module emulate(const PrimFunc& f) {
  codegen::CudaBuildOptions o;
  o.emulate = true;
  return codegen::build_cuda_module({f}, o);
}

TEST(CudaEndToEnd, VectorAddImperfectSplit) {
  const int n = 1000;
  auto A = te::placeholder({n}, DataType::Float(32), "A");
  auto B = te::placeholder({n}, DataType::Float(32), "B");
  auto C = te::compute(
      {n}, [&](Var i) { return A(i) + B(i); }, "C");
  auto s = te::create_schedule({C.op()});
  auto [bx, tx] = s[C].split(C.op().axis()[0], 64);
  s[C].bind(bx, te::thread_axis("blockIdx.x"));
  s[C].bind(tx, te::thread_axis("threadIdx.x"));
  PrimFunc f = lower(s, {A, B, C}, "vadd");
  auto r = codegen::build_cuda(f);
  EXPECT_NE(
      r.cuda_source.find(
          "vadd_kernel0( float* __restrict__ C,  float* __restrict__ A,  float* __restrict__ B)"),
      std::string::npos)
      << r.cuda_source;
  EXPECT_NE(r.cuda_source.find("if (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < 1000) {"),
            std::string::npos)
      << r.cuda_source;
  auto a = rnd(n, 1), b = rnd(n, 2);
  NDArray Ad = NDArray::from_vector(a, {n}), Bd = NDArray::from_vector(b, {n}),
          Cd = NDArray::empty({n}, DataType::Float(32));
  emulate(f).get_function("vadd")(Ad, Bd, Cd);
  auto c = Cd.to_vector<float>();
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

// DISABLED until InferBound relaxes thread axes for shared-scope stages: today A.shared is
// inferred as 1x16 per thread (threadIdx.y bound with extent 1 next to the block's 16), which
// split_host_device rejects ("threadIdx.y is bound with extents 16 and 1"). Enable when fixed.
TEST(CudaEndToEnd, MatmulCacheReadComputeAt) {
  const int n = 64, T = 16;
  auto A = te::placeholder({n, n}, DataType::Float(32), "A");
  auto B = te::placeholder({n, n}, DataType::Float(32), "B");
  auto k = te::reduce_axis({0, n}, "k");
  auto C = te::compute(
      {n, n}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  auto s = te::create_schedule({C.op()});
  auto AA = s.cache_read(A, "shared", {C.op()});
  auto BB = s.cache_read(B, "shared", {C.op()});
  auto CL = s.cache_write(C, "local");
  auto [by, ty] = s[C].split(C.op().axis()[0], T);
  auto [bx, tx] = s[C].split(C.op().axis()[1], T);
  s[C].reorder({by, bx, ty, tx});
  s[C].bind(by, te::thread_axis("blockIdx.y"));
  s[C].bind(bx, te::thread_axis("blockIdx.x"));
  s[C].bind(ty, te::thread_axis("threadIdx.y"));
  s[C].bind(tx, te::thread_axis("threadIdx.x"));
  s[CL].compute_at(s[C], tx);
  auto [ko, ki] = s[CL].split(CL.op().reduce_axis()[0], T);
  s[AA].compute_at(s[CL], ko);
  s[BB].compute_at(s[CL], ko);
  for (auto* X : {&AA, &BB}) {
    auto ax = X->op().axis();
    s[*X].bind(ax[0], te::thread_axis("threadIdx.y"));
    s[*X].bind(ax[1], te::thread_axis("threadIdx.x"));
  }
  PrimFunc f = lower(s, {A, B, C}, "mm");
  auto r = codegen::build_cuda(f);
  EXPECT_EQ(r.info.launches.at(0).block, (std::array<int64_t, 3>{T, T, 1}));
  auto a = rnd(n * n, 3), b = rnd(n * n, 4);
  NDArray Ad = NDArray::from_vector(a, {n, n}), Bd = NDArray::from_vector(b, {n, n});
  NDArray Cd = NDArray::empty({n, n}, DataType::Float(32));
  emulate(f).get_function("mm")(Ad, Bd, Cd);
  auto c = Cd.to_vector<float>();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int kk = 0; kk < n; ++kk) acc += a[i * n + kk] * b[kk * n + j];
      ASSERT_NEAR(c[i * n + j], acc, 1e-4f) << i << "," << j;
    }
}

}  // namespace
}  // namespace minitvm
