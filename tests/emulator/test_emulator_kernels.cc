// Hand-written CUDA C kernels in the printer's style, run on the emulator against naive loops.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "emulator/kernels.h"
#include "minitvm/codegen/cuda_emulator.h"

using namespace minitvm::codegen::emulator;

namespace {
std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}
}  // namespace

TEST(EmulatorKernels, VectorAddWithGuard) {
  auto ck = compile(minitvm_test::kVectorAdd);
  const int n = 1000;
  auto a = random_floats(n, 1), b = random_floats(n, 2);
  std::vector<float> c(n, 0.0f);
  launch(*ck, "vadd_kernel0", {16, 1, 1}, {64, 1, 1},
         {EmuArg::buffer(c), EmuArg::buffer(a), EmuArg::buffer(b), EmuArg::scalar_int(n)});
  for (int i = 0; i < n; ++i) ASSERT_FLOAT_EQ(c[i], a[i] + b[i]) << i;
}
