// Kernel churn: thousands of distinct small kernels built, run, checked and freed in one process;
// the resident set may grow during a warm-up (JIT arenas, allocator pools, caches), but not with
// the number of kernels after it. RSS is read from /proc/self/statm and printed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <minitvm/minitvm.h>

using namespace minitvm;

namespace {

double rss_mib() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
         (1024.0 * 1024.0);
}

/** Kernel i: C[j] = A[j] * (i + 1) + i % 7 over n = 8 + i % 57 elements (distinct constants and
 * extents, so no two kernels share code), run and compared with the naive value. */
void churn_one(int i, const std::string& target, int threads) {
  const int n = 8 + i % 57;
  const float scale = static_cast<float>(i + 1), shift = static_cast<float>(i % 7);
  te::Tensor A = te::placeholder({n}, DataType::Float(32), "A");
  te::Tensor C = te::compute(
      {n}, [&](Var j) { return A(j) * scale + shift; }, "C");
  te::Schedule s = te::create_schedule({C.op()});
  if (threads > 0) {
    auto [bx, tx] = s[C].split(C.op().axis()[0], threads);
    s[C].bind(bx, te::thread_axis("blockIdx.x"));
    s[C].bind(tx, te::thread_axis("threadIdx.x"));
  } else if (i % 3 == 0) {
    auto [o, in] = s[C].split(C.op().axis()[0], 4);
    s[C].vectorize(in);
  }
  runtime::Module mod = build(s, {A, C}, target, "churn" + std::to_string(i));
  std::vector<float> a(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j) a[j] = static_cast<float>(j % 5) - 2.0f;
  auto out = runtime::NDArray::empty({n}, DataType::Float(32));
  mod.get_function("churn" + std::to_string(i))(runtime::NDArray::from_vector(a, {n}), out);
  std::vector<float> c = out.to_vector<float>();
  for (int j = 0; j < n; ++j)
    ASSERT_EQ(c[j], a[j] * scale + shift) << "kernel " << i << ", element " << j;
}

/** Builds `count` kernels; returns the RSS growth (MiB) from the end of the warm-up to the end. */
double churn(const char* what, int count, int warmup, const std::string& target, int threads) {
  double start = rss_mib(), after_warmup = start;
  for (int i = 0; i < count; ++i) {
    churn_one(i, target, threads);
    if (::testing::Test::HasFatalFailure()) return 0;
    if (i + 1 == warmup) after_warmup = rss_mib();
    if ((i + 1) % (count / 10) == 0) {
      std::printf("%s: %d kernels, RSS %.1f MiB\n", what, i + 1, rss_mib());
      std::fflush(stdout);
    }
  }
  const double end = rss_mib();
  std::printf(
      "%s: RSS %.1f MiB at start, %.1f MiB after %d warm-up kernels, %.1f MiB after %d kernels: "
      "%.1f MiB growth after the warm-up (%.1f KiB per kernel)\n",
      what, start, after_warmup, warmup, end, count, end - after_warmup,
      (end - after_warmup) * 1024.0 / (count - warmup));
  std::fflush(stdout);
  return end - after_warmup;
}

}  // namespace

// 2,000 llvm kernels: after 200, at most 32 MiB more (measured: under 1 MiB; a leak of 18 KiB or
// more per kernel — a JIT'd module, its symbols or its LLVM context — fails).
TEST(Stress, LlvmKernelChurn) {
  const double growth = churn("llvm", 2000, 200, "llvm", 0);
  EXPECT_LT(growth, 32.0);
}

// 300 emulated CUDA kernels (each compiled by the host compiler and loaded with dlopen): after
// 50, at most 3 MiB more. Before the emulator bounds its cache of compiled objects this grows by
// ~23 KiB per kernel (5.6 MiB here: every object stays loaded), so its ctest entry
// stress_emulated_kernels is disabled until that fix is merged (tests/stress/tests.cmake).
TEST(Stress, EmulatedKernelChurn) {
  const double growth = churn("cuda -emulate", 300, 50, "cuda -emulate", 32);
  EXPECT_LT(growth, 3.0);
}
