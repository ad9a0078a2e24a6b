// tests/codegen/cuda_temps, label gpu: global temporaries between kernels on a real device (target
// "cuda"): the cached device buffers, repeated calls, and a saved/loaded module. Every test skips
// with the reason when there is no CUDA driver/device.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "minitvm/codegen/build.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/te/schedule.h"

namespace minitvm {
namespace {

using runtime::NDArray;
const DataType f32 = DataType::Float(32);

TEST(CudaTempsGpu, ChainedStagesThroughTemporaries) {
  if (!runtime::cuda_available())
    GTEST_SKIP() << "no CUDA GPU: " << runtime::cuda_unavailable_reason();
  const int n = 100000;
  auto A = te::placeholder({n}, f32, "A");
  auto B = te::compute(
      {n}, [&](ir::Var i) { return A(i) * 2.0f; }, "B");
  // Reads B at another block's index: correct only if kernel1 starts after kernel0 finished.
  auto C = te::compute(
      {n}, [&](ir::Var i) { return B(n - 1 - i) + 1.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  for (const te::Tensor& t : {B, C}) {
    auto [bx, tx] = s[t].split(t.op().axis()[0], 256);
    s[t].bind(bx, te::thread_axis("blockIdx.x"));
    s[t].bind(tx, te::thread_axis("threadIdx.x"));
  }
  runtime::Module m = build(s, {A, C}, "cuda", "chain");
  std::mt19937 g(3);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> a(n);
  for (auto& x : a) x = d(g);
  Device dev = Device::cuda(0);
  auto check = [&](const runtime::Module& mod, float scale) {
    std::vector<float> as(a);
    for (auto& x : as) x *= scale;
    NDArray Ad = NDArray::from_vector(as, {n}).copy_to(dev);
    NDArray Cd = NDArray::empty({n}, f32, dev);
    mod.get_function("chain")(Ad, Cd);
    auto c = Cd.copy_to(Device::cpu()).to_vector<float>();
    for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], as[n - 1 - i] * 2.0f + 1.0f) << "i = " << i;
  };
  check(m, 1.0f);
  check(m, -3.0f);  // the cached temporary is reused with new contents
  auto dir = std::filesystem::temp_directory_path() /
             ("minitvm_cuda_temps_gpu_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  m.save((dir / "chain.ptx").string());
  check(runtime::load_cuda_module((dir / "chain.ptx").string()), 0.5f);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace minitvm
