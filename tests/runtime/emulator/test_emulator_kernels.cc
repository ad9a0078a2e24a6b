// Hand-written CUDA C kernels in the printer's style, run on the emulator against naive loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "minitvm/runtime/cuda_emulator.h"
#include "runtime/emulator/kernels.h"

using namespace minitvm::runtime::emulator;
using namespace minitvm_test;

namespace {

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

// Reference binary16 conversions, written independently of the emulator's: decode by formula,
// encode by searching the sorted table of all finite halves for the nearest (ties to even).
double half_bits_to_double(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}
uint16_t double_to_half_bits(double x) {
  static std::vector<std::pair<double, uint16_t>> table = [] {
    std::vector<std::pair<double, uint16_t>> t;
    for (uint32_t h = 0; h < 0x7c00; ++h) {
      t.push_back({half_bits_to_double(static_cast<uint16_t>(h)), static_cast<uint16_t>(h)});
      if (h)
        t.push_back(
            {-half_bits_to_double(static_cast<uint16_t>(h)), static_cast<uint16_t>(h | 0x8000)});
    }
    std::sort(t.begin(), t.end());
    return t;
  }();
  auto it = std::lower_bound(table.begin(), table.end(), std::make_pair(x, uint16_t(0)));
  if (it == table.end()) return table.back().second;
  if (it == table.begin()) return it->second;
  auto lo = it - 1;
  const double dl = x - lo->first, dh = it->first - x;
  if (dl < dh) return lo->second;
  if (dh < dl) return it->second;
  return (lo->second & 1) ? it->second : lo->second;
}

// Reference bfloat16, independent of the emulator's bit tricks: decode by shifting into a float,
// encode by searching the sorted finite values for the nearest (long double: int64 inputs are
// exact), ties to the even pattern, inf from half an ulp beyond the largest finite value, zero
// keeps the sign, NaN -> CUDA's canonical 0x7FFF.
float bf_to_float(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t bf_nearest(long double x) {
  static const std::vector<std::pair<long double, uint16_t>> table = [] {
    std::vector<std::pair<long double, uint16_t>> t;
    for (uint32_t b = 0; b <= 0x7F7F; ++b) {
      t.push_back({bf_to_float(static_cast<uint16_t>(b)), static_cast<uint16_t>(b)});
      if (b)
        t.push_back({-static_cast<long double>(bf_to_float(static_cast<uint16_t>(b))),
                     static_cast<uint16_t>(b | 0x8000)});
    }
    std::sort(t.begin(), t.end());
    return t;
  }();
  if (std::isnan(x)) return 0x7FFF;
  const long double overflow =
      static_cast<long double>(bf_to_float(0x7F7F)) + std::ldexp(1.0L, 119);
  if (std::fabs(x) >= overflow) return x < 0 ? 0xFF80 : 0x7F80;
  auto it = std::lower_bound(table.begin(), table.end(), std::make_pair(x, uint16_t(0)));
  uint16_t r;
  if (it == table.end()) {  // between the largest finite value and the overflow bound
    r = table.back().second;
  } else if (it == table.begin()) {
    r = it->second;
  } else {
    auto lo = it - 1;
    const long double dl = x - lo->first, dh = it->first - x;
    r = dl < dh ? lo->second : dh < dl ? it->second : ((lo->second & 1) ? it->second : lo->second);
  }
  if ((r & 0x7FFF) == 0) r = std::signbit(x) ? 0x8000 : 0x0000;
  return r;
}
bool bf_isnan(uint16_t b) {
  return (b & 0x7FFF) > 0x7F80;
}
// PTX max.bf16 / min.bf16: a NaN operand is ignored (canonical NaN if both are), +0 > -0.
uint16_t bf_max_ref(uint16_t a, uint16_t b, bool is_max) {
  if (bf_isnan(a) && bf_isnan(b)) return 0x7FFF;
  if (bf_isnan(a)) return b;
  if (bf_isnan(b)) return a;
  const float x = bf_to_float(a), y = bf_to_float(b);
  if (x == y) return ((a & 0x8000) != 0) == is_max ? b : a;
  return (x > y) == is_max ? a : b;
}

}  // namespace

TEST(EmulatorKernels, VectorAddWithGuard) {
  auto ck = compile(kVectorAdd);
  const int n = 1000;
  auto a = random_floats(n, 1), b = random_floats(n, 2);
  std::vector<float> c(n, 0.0f);
  launch(*ck, "vadd_kernel0", {16, 1, 1}, {64, 1, 1},
         {EmuArg::buffer(c), EmuArg::buffer(a), EmuArg::buffer(b), EmuArg::scalar_int(n)});
  for (int i = 0; i < n; ++i) ASSERT_FLOAT_EQ(c[i], a[i] + b[i]) << i;
}

TEST(EmulatorKernels, SharedMemoryReductionWithBarriers) {
  auto ck = compile(kRowSum);
  const int rows = 5;
  auto x = random_floats(rows * 1000, 3);
  std::vector<float> y(rows, -1.0f);
  launch(*ck, "rowsum_kernel0", {rows, 1, 1}, {128, 1, 1}, {EmuArg::buffer(x), EmuArg::buffer(y)});
  for (int r = 0; r < rows; ++r) {
    double ref = 0;
    for (int k = 0; k < 1000; ++k) ref += x[r * 1000 + k];
    EXPECT_NEAR(y[r], ref, 1e-3) << r;
  }
}

TEST(EmulatorKernels, BarrierInABlockOfOneThread) {
  // A schedule whose thread splits are all 1 (TopHub's dense 128x2048 large-batch record) still has
  // barriers around its shared tiles: with one thread there is nothing to wait for.
  const char* src =
      R"(extern "C" __global__ void one_kernel0( float* __restrict__ out,  float* __restrict__ in) {
  __shared__ float tile[2];
  tile[0] = in[(((int)blockIdx.x) * 2)];
  tile[1] = in[((((int)blockIdx.x) * 2) + 1)];
  __syncthreads();
  out[((int)blockIdx.x)] = (tile[0] + tile[1]);
}
)";
  std::vector<float> in{1, 2, 3, 4, 5, 6}, out(3, 0.0f);
  launch(*compile(src), "one_kernel0", {3, 1, 1}, {1, 1, 1},
         {EmuArg::buffer(out), EmuArg::buffer(in)});
  EXPECT_EQ(out, (std::vector<float>{3, 7, 11}));
}

TEST(EmulatorKernels, TiledMatmulWithCooperativeLoads) {
  const int M = 64, N = 64, K = 64;
  auto ck = compile(matmul_source(M, N, K));
  auto a = random_floats(M * K, 4), b = random_floats(K * N, 5);
  std::vector<float> c(M * N, 0.0f);
  launch(*ck, "matmul_kernel0", {N / 16, M / 16, 1}, {8, 8, 1},
         {EmuArg::buffer(a), EmuArg::buffer(b), EmuArg::buffer(c)});
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += double(a[i * K + k]) * b[k * N + j];
      ASSERT_NEAR(c[i * N + j], ref, 1e-4) << i << "," << j;
    }
}

TEST(EmulatorKernels, Float4VectorizedCopyThroughSharedMemory) {
  auto ck = compile(kVectorCopy);
  const int blocks = 3;
  auto a = random_floats(blocks * 256, 6);
  std::vector<float> b(blocks * 256, 0.0f), c(blocks * 64, 0.0f);
  launch(*ck, "vcopy_kernel0", {blocks, 1, 1}, {64, 1, 1},
         {EmuArg::buffer(b), EmuArg::buffer(a), EmuArg::buffer(c)});
  for (int blk = 0; blk < blocks; ++blk)
    for (int t = 0; t < 64; ++t) {
      for (int l = 0; l < 4; ++l)
        ASSERT_EQ(b[blk * 256 + t * 4 + l], a[blk * 256 + (63 - t) * 4 + l])
            << blk << "," << t << "," << l;
      ASSERT_FLOAT_EQ(c[blk * 64 + t], a[blk * 256] + a[blk * 256 + t * 4 + 1]);
    }
}

TEST(EmulatorKernels, HalfElementwiseAddRelu) {
  auto ck = compile(std::string(kHalfHeader) + kHalfAddRelu);
  const int n = 256;
  auto af = random_floats(n, 7), bf = random_floats(n, 8);
  std::vector<uint16_t> a(n), b(n), c(n, 0xffff);
  for (int i = 0; i < n; ++i) {
    a[i] = double_to_half_bits(af[i] * 100.0);
    b[i] = double_to_half_bits(bf[i] * 100.0);
  }
  launch(*ck, "hadd_relu_kernel0", {2, 1, 1}, {128, 1, 1},
         {EmuArg::buffer(c), EmuArg::buffer(a), EmuArg::buffer(b)});
  for (int i = 0; i < n; ++i) {
    const double sum = half_bits_to_double(a[i]) + half_bits_to_double(b[i]);
    ASSERT_EQ(c[i], sum > 0 ? double_to_half_bits(sum) : double_to_half_bits(0.0))
        << i << ": " << sum;
  }
}

TEST(EmulatorKernels, HalfMeanWithFloatAccumulation) {
  auto ck = compile(std::string(kHalfHeader) + kHalfMean);
  const int rows = 64;
  auto f = random_floats(rows * 64, 9);
  std::vector<uint16_t> in(rows * 64), out(rows, 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = double_to_half_bits(f[i]);
  launch(*ck, "hmean_kernel0", {rows / 32, 1, 1}, {32, 1, 1},
         {EmuArg::buffer(out), EmuArg::buffer(in)});
  for (int r = 0; r < rows; ++r) {
    float acc = 0.0f;  // float accumulation in the kernel's order
    for (int k = 0; k < 64; ++k) acc += static_cast<float>(half_bits_to_double(in[r * 64 + k]));
    ASSERT_EQ(out[r], double_to_half_bits(acc * 0.015625f)) << r;
  }
}

TEST(EmulatorKernels, Bfloat16MulAddRelu) {
  auto ck = compile(std::string(kBf16Header) + kBf16MulAddRelu);
  const int n = 256;
  auto af = random_floats(n, 17), bf = random_floats(n, 18);
  std::vector<uint16_t> a(n), b(n), c(n, 0xffff);
  for (int i = 0; i < n; ++i) {
    a[i] = bf_nearest(af[i] * 100.0);
    b[i] = bf_nearest(bf[i] * 3.0);
  }
  a[3] = 0x7FC0;  // NaN: __hmax ignores it and returns the 0
  launch(*ck, "bf16_madd_relu_kernel0", {2, 1, 1}, {128, 1, 1},
         {EmuArg::buffer(c), EmuArg::buffer(a), EmuArg::buffer(b)});
  for (int i = 0; i < n; ++i) {
    const long double x = bf_to_float(a[i]), y = bf_to_float(b[i]);
    const uint16_t t = bf_nearest(static_cast<long double>(bf_to_float(bf_nearest(x * y))) + x);
    ASSERT_EQ(c[i], bf_max_ref(t, 0, true)) << i;
  }
  EXPECT_EQ(c[3], 0u);
}

// Conversions into bfloat16 round once (sticky bit kept for float64 and int64 sources), NaN is the
// canonical 0x7FFF; __hmax/__hmin/__hmax_nan follow PTX max.bf16 / max.NaN.bf16.
TEST(EmulatorKernels, Bfloat16ConversionsAndMinMax) {
  auto ck = compile(std::string(kBf16Header) + kBf16Convert);
  const int n = 256;
  std::mt19937_64 rng(19);
  std::vector<float> f(n);
  std::vector<double> d(n);
  std::vector<long long> ll(n);
  std::vector<uint16_t> a(n), b(n), out(8 * n, 0);
  for (int i = 0; i < n; ++i) {
    const uint32_t fb = static_cast<uint32_t>(rng());  // any bit pattern: NaN, inf, denormals too
    std::memcpy(&f[i], &fb, 4);
    d[i] = std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 280) - 190) *
           ((rng() & 1) ? -1 : 1);
    ll[i] = static_cast<long long>(rng() >> (1 + rng() % 63)) * ((rng() & 1) ? -1 : 1);
    a[i] = static_cast<uint16_t>(rng());
    b[i] = (rng() & 3) == 0 ? a[i] : static_cast<uint16_t>(rng());
  }
  const uint32_t fspecial[] = {0x3F808000u, 0x3F818000u, 0x7F7FFFFFu, 0x7F7F7FFFu, 0x7F7F8000u,
                               0x00000001u, 0x00008000u, 0x00018000u, 0x80000000u, 0xFFC00001u};
  for (int k = 0; k < 10; ++k) std::memcpy(&f[k], &fspecial[k], 4);
  const double dspecial[] = {
      1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40),
      1.0 + std::ldexp(1.0, -8),
      std::nan(""),
      INFINITY,
      -INFINITY,
      1e-300,
      -1e-300,
      1e39,
      static_cast<double>(bf_to_float(0x7F7F)) + std::ldexp(1.0, 119),
      static_cast<double>(bf_to_float(0x7F7F)) + std::ldexp(1.0, 119) - std::ldexp(1.0, 80)};
  for (int k = 0; k < 10; ++k) d[k] = dspecial[k];
  const long long lspecial[] = {(1LL << 60) + (1LL << 52) + 1,
                                -((1LL << 60) + (1LL << 52) + 1),
                                std::numeric_limits<long long>::min(),
                                std::numeric_limits<long long>::max(),
                                0,
                                (1 << 24) + (1 << 16) + 1,
                                -((1 << 24) + (1 << 16)),
                                1000003};
  for (int k = 0; k < 8; ++k) ll[k] = lspecial[k];
  const uint16_t pairs[][2] = {{0x7FC0, 0x3F80}, {0x3F80, 0x7FC0}, {0x7FC0, 0xFFC1},
                               {0x0000, 0x8000}, {0x8000, 0x0000}, {0x7F80, 0xFF80},
                               {0xFF80, 0x7FC0}, {0x4000, 0x4000}};
  for (int k = 0; k < 8; ++k) a[k] = pairs[k][0], b[k] = pairs[k][1];
  launch(*ck, "bf16_conv_kernel0", {n / 64, 1, 1}, {64, 1, 1},
         {EmuArg::buffer(out), EmuArg::buffer(f), EmuArg::buffer(d), EmuArg::buffer(ll),
          EmuArg::buffer(a), EmuArg::buffer(b)});
  for (int i = 0; i < n; ++i) {
    const uint16_t* o = &out[8 * i];
    ASSERT_EQ(o[0], bf_nearest(f[i])) << i << ": float " << f[i];
    ASSERT_EQ(o[1], bf_nearest(d[i])) << i << ": double " << d[i];
    ASSERT_EQ(o[2], bf_nearest(static_cast<int32_t>(ll[i])))
        << i << ": int " << static_cast<int32_t>(ll[i]);
    ASSERT_EQ(o[3], bf_nearest(static_cast<long double>(ll[i]))) << i << ": long long " << ll[i];
    ASSERT_EQ(o[4], bf_max_ref(a[i], b[i], true)) << i;
    ASSERT_EQ(o[5], bf_max_ref(a[i], b[i], false)) << i;
    ASSERT_EQ(o[6], bf_isnan(a[i]) || bf_isnan(b[i]) ? 0x7FFF : bf_max_ref(a[i], b[i], true)) << i;
    const long double x = bf_to_float(a[i]), y = bf_to_float(b[i]);
    ASSERT_EQ(o[7], bf_nearest(static_cast<long double>(bf_to_float(bf_nearest(x + y))) * x)) << i;
  }
  // the cases that rounding twice (through float) would get wrong
  EXPECT_EQ(out[8 * 0 + 1], 0x3F81);
  EXPECT_EQ(out[8 * 0 + 3], 0x5D81);
  EXPECT_EQ(out[8 * 5 + 2], 0x4B81);
  EXPECT_EQ(out[8 * 5 + 3], 0x4B81);
}

// Nearest binary16 of an exact value (long double holds every double and int64 exactly), with
// overflow to inf from half an ulp beyond 65504 and NaN -> 0x7FFF (what the emulator produces).
uint16_t half_nearest(long double x) {
  if (std::isnan(x)) return 0x7FFF;
  if (std::fabs(x) >= 65520.0L) return x < 0 ? 0xFC00 : 0x7C00;
  uint16_t r = double_to_half_bits(static_cast<double>(x));
  // double_to_half_bits compares in double: exact for doubles; for int64 beyond 2^53 the value is
  // already past the overflow bound above.
  if ((r & 0x7FFF) == 0) r = std::signbit(x) ? 0x8000 : 0x0000;
  return r;
}

TEST(EmulatorKernels, HalfConversionsRoundOnce) {
  auto ck = compile(std::string(kHalfHeader) + kHalfConvert);
  const int n = 256;
  std::mt19937_64 rng(23);
  std::vector<double> d(n);
  std::vector<long long> ll(n);
  std::vector<uint16_t> out(4 * n, 0);
  for (int i = 0; i < n; ++i) {
    d[i] = std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 60) - 80) *
           ((rng() & 1) ? -1 : 1);
    ll[i] = static_cast<long long>(rng() >> (1 + rng() % 63)) * ((rng() & 1) ? -1 : 1);
  }
  // ties at half precision that float would break (1 + 2^-11 + 2^-40 must round up; through float
  // it becomes the tie 1 + 2^-11 and rounds to even, 1.0), overflow bounds, subnormals, NaN/inf
  const double dspecial[] = {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40),
                             1.0 + std::ldexp(1.0, -11),
                             65519.99,
                             65520.0,
                             -65520.0,
                             std::ldexp(1.0, -25) + std::ldexp(1.0, -60),
                             std::ldexp(1.0, -25),
                             std::nan(""),
                             INFINITY,
                             -1e300};
  for (int k = 0; k < 10; ++k) d[k] = dspecial[k];
  const long long lspecial[] = {2049 + 0,
                                2051,
                                4097,
                                (1LL << 24) + 1,
                                -((1LL << 40) + 3),
                                65519,
                                65520,
                                (1LL << 53) + 1,
                                std::numeric_limits<long long>::min(),
                                0x100000801LL};
  for (int k = 0; k < 10; ++k) ll[k] = lspecial[k];
  launch(*ck, "half_conv_kernel0", {n / 64, 1, 1}, {64, 1, 1},
         {EmuArg::buffer(out), EmuArg::buffer(d), EmuArg::buffer(ll)});
  for (int i = 0; i < n; ++i) {
    const uint16_t* o = &out[4 * i];
    ASSERT_EQ(o[0], half_nearest(d[i])) << i << ": double " << d[i];
    ASSERT_EQ(o[1], half_nearest(static_cast<int32_t>(ll[i])))
        << i << ": int " << static_cast<int32_t>(ll[i]);
    ASSERT_EQ(o[2], half_nearest(static_cast<long double>(ll[i]))) << i << ": long long " << ll[i];
    ASSERT_EQ(o[3], half_nearest(static_cast<uint32_t>(ll[i])))
        << i << ": unsigned " << static_cast<uint32_t>(ll[i]);
  }
  EXPECT_EQ(out[0], 0x3C01);  // the double that float rounding would turn into 1.0 (0x3C00)
  EXPECT_EQ(out[4 * 2 + 0], 0x7BFF);
  EXPECT_EQ(out[4 * 3 + 0], 0x7C00);
  EXPECT_EQ(out[4 * 5 + 0], 0x0001);  // just above half the smallest subnormal
  EXPECT_EQ(out[4 * 6 + 0], 0x0000);  // exactly half: ties to even (zero)
}

TEST(EmulatorKernels, TwoDimensionalGridInt64IndicesScalarsAndMath) {
  auto ck = compile(kActivation);
  const int64_t n = 8000;
  auto x = random_floats(8192, 10);
  for (auto& v : x) v *= 4.0f;
  std::vector<float> y(8192, -7.0f);
  const float alpha = 0.75f;
  launch(
      *ck, "act_kernel0", {8, 2, 1}, {32, 8, 1},
      {EmuArg::buffer(y), EmuArg::buffer(x), EmuArg::scalar_float(alpha), EmuArg::scalar_int(n)});
  for (int64_t i = 0; i < 8192; ++i) {
    if (i >= n) {
      ASSERT_EQ(y[i], -7.0f) << i;
      continue;
    }
    const double xv = x[i];
    const double ref =
        std::max(xv * alpha, std::min(std::sqrt(std::fabs(xv)), 0.5)) + std::exp(xv) * 0.125;
    ASSERT_NEAR(y[i], ref, 1e-5 * std::max(1.0, std::fabs(ref))) << i;
  }
}

TEST(EmulatorKernels, CompiledSourcesAreCachedInProcess) {
  auto a = compile(kVectorAdd);
  auto b = compile(kVectorAdd);
  EXPECT_EQ(a.get(), b.get());
  ASSERT_EQ(kernels(*a).size(), 1u);
  EXPECT_EQ(kernels(*a)[0].name, "vadd_kernel0");
  EXPECT_EQ(kernels(*a)[0].launch_bounds, 64);
}

// About 1e7 multiply-adds with 2 checked shared reads each and ~3.4e5 fiber switches.
TEST(EmulatorKernels, LargerMatmulRunsInAFewSeconds) {
  const int M = 256, N = 256, K = 160;
  auto ck = compile(matmul_source(M, N, K));
  auto a = random_floats(M * K, 11), b = random_floats(K * N, 12);
  std::vector<float> c(M * N, 0.0f);
  const auto t0 = std::chrono::steady_clock::now();
  launch(*ck, "matmul_kernel0", {N / 16, M / 16, 1}, {8, 8, 1},
         {EmuArg::buffer(a), EmuArg::buffer(b), EmuArg::buffer(c)});
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("256x256x160 matmul on the emulator: %.3f s\n", secs);
  EXPECT_LT(secs, 10.0);
  for (int i = 0; i < M; i += 37)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += double(a[i * K + k]) * b[k * N + j];
      ASSERT_NEAR(c[i * N + j], ref, 1e-4) << i << "," << j;
    }
}

// Casts the printer emits on local and shared arrays: float4 over a local array, a volatile shared
// pointer (allreduce style), and an extern __shared__ array sized at launch.
TEST(EmulatorKernels, LocalVectorCastVolatileSharedAndDynamicShared) {
  const char* src =
      R"(extern "C" __global__ void casts_kernel0( float* __restrict__ out,  float* __restrict__ in) {
   float v_local[8];
  extern __shared__ float dyn[];
  ((float4*)(v_local + 4))[0] = ((float4*)(in + (((int)threadIdx.x) * 4)))[0];
  ((volatile __shared__ float*)dyn)[((int)threadIdx.x)] = (v_local[4] + v_local[7]);
  __syncthreads();
  out[((int)threadIdx.x)] = (dyn[((int)threadIdx.x)] + dyn[(((int)threadIdx.x) ^ 1)]);
}
)";
  auto ck = compile(src);
  std::vector<float> in(64), out(16, 0.0f);
  for (int i = 0; i < 64; ++i) in[i] = static_cast<float>(i * i);
  LaunchOptions opt;
  opt.dynamic_shared_bytes = 16 * sizeof(float);
  launch(*ck, "casts_kernel0", {1, 1, 1}, {16, 1, 1}, {EmuArg::buffer(out), EmuArg::buffer(in)},
         opt);
  auto s = [&](int t) { return in[t * 4] + in[t * 4 + 3]; };
  for (int t = 0; t < 16; ++t) EXPECT_EQ(out[t], s(t) + s(t ^ 1)) << t;
}
