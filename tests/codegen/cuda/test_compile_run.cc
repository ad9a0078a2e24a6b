// Every test kernel: NVRTC compiles it, ptxas -arch=sm_90 accepts it (resources in limits), and the
// CPU emulator runs the emitted CUDA C with results equal to a C++ reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "common/ir_kernels.h"
#include "minitvm/codegen/codegen_cuda.h"
#include "minitvm/runtime/cuda_emulator.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/runtime/ptxas.h"
#include "minitvm/transform/split_host_device.h"

namespace minitvm {
namespace {

using namespace testing;
using runtime::NDArray;

std::vector<float> random_floats(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// Reference float16 arithmetic: GCC's _Float16 (each operation rounded to nearest even).
uint16_t h_bits(_Float16 h) {
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
_Float16 h_from_bits(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return h;
}

// Reference bfloat16, written independently of the code generator's and the emulator's bit
// tricks: decode by shifting into a float; encode a double by searching the sorted finite
// bfloat16 values for the nearest one (ties to the even bit pattern, beyond the largest finite
// value by half an ulp or more: inf, zero keeps the sign, NaN -> CUDA's canonical 0x7FFF).
float bf_to_float(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t bf_nearest(double x) {
  static const std::vector<std::pair<double, uint16_t>> table = [] {
    std::vector<std::pair<double, uint16_t>> t;
    for (uint32_t b = 0; b <= 0x7F7F; ++b) {
      t.push_back({bf_to_float(static_cast<uint16_t>(b)), static_cast<uint16_t>(b)});
      if (b)
        t.push_back({-static_cast<double>(bf_to_float(static_cast<uint16_t>(b))),
                     static_cast<uint16_t>(b | 0x8000)});
    }
    std::sort(t.begin(), t.end());
    return t;
  }();
  if (std::isnan(x)) return 0x7FFF;
  const double overflow = static_cast<double>(bf_to_float(0x7F7F)) + std::ldexp(1.0, 119);
  if (std::fabs(x) >= overflow) return x < 0 ? 0xFF80 : 0x7F80;
  auto it = std::lower_bound(table.begin(), table.end(), std::make_pair(x, uint16_t(0)));
  uint16_t r;
  if (it == table.end()) {  // between the largest finite value and the overflow bound
    r = table.back().second;
  } else if (it == table.begin()) {
    r = it->second;
  } else {
    auto lo = it - 1;
    const double dl = x - lo->first, dh = it->first - x;
    r = dl < dh ? lo->second : dh < dl ? it->second : ((lo->second & 1) ? it->second : lo->second);
  }
  if ((r & 0x7FFF) == 0) r = std::signbit(x) ? 0x8000 : 0x0000;
  return r;
}

TEST(CudaCompile, EveryKernelPassesNvrtcAndPtxas) {
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC (libnvrtc) not found on this machine";
  bool have_ptxas = !runtime::find_ptxas().empty();
  for (const auto& f : all_test_functions()) {
    SCOPED_TRACE(f.name());
    auto r = codegen::build_cuda(f);
    runtime::NvrtcOptions o;
    o.arch = "sm_90";
    runtime::NvrtcResult ptx;
    ASSERT_NO_THROW(ptx = runtime::nvrtc_compile(r.cuda_source, o)) << r.cuda_source;
    for (const auto& l : r.info.launches)
      EXPECT_NE(ptx.ptx.find(".entry " + l.kernel), std::string::npos);
    if (!have_ptxas) continue;
    runtime::PtxasReport rep = runtime::ptxas_check(ptx.ptx, "sm_90");
    for (const auto& l : r.info.launches) {
      const auto& k = rep.kernel(l.kernel);
      EXPECT_GT(k.registers, 0);
      EXPECT_LE(k.registers, 255);
      EXPECT_LE(k.shared_bytes, 227 * 1024);
      EXPECT_EQ(k.spill_stores, 0) << l.kernel;
      if (f.name() == "matmul") EXPECT_EQ(k.shared_bytes, 2 * kTile * kTile * 4);
    }
  }
  if (!have_ptxas) GTEST_SKIP() << "ptxas not found: only the NVRTC step was checked";
}

TEST(CudaCompile, BrokenKernelReportsNvrtcLog) {
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC not found";
  auto r = codegen::build_cuda(vector_add());
  std::string bad =
      r.cuda_source + "\nextern \"C\" __global__ void broken() { undefined_name = 1; }\n";
  try {
    runtime::nvrtc_compile(bad);
    FAIL() << "expected NvrtcError";
  } catch (const runtime::NvrtcError& e) {
    EXPECT_NE(std::string(e.what()).find("undefined_name"), std::string::npos);
  }
}

runtime::Module emulated(const ir::PrimFunc& f) {
  codegen::CudaBuildOptions o;
  o.emulate = true;
  return codegen::build_cuda_module({f}, o);
}

TEST(CudaEmulate, VectorAdd) {
  auto a = random_floats(kAddN, 1), b = random_floats(kAddN, 2);
  NDArray A = NDArray::from_vector(a, {kAddN}), B = NDArray::from_vector(b, {kAddN});
  NDArray C = NDArray::from_vector(std::vector<float>(kAddN, -7.0f), {kAddN});
  emulated(vector_add()).get_function("add")(A, B, C);
  auto c = C.to_vector<float>();
  for (int64_t i = 0; i < kAddN; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

TEST(CudaEmulate, TiledMatmulWithBarriers) {
  const int64_t n = kMM;
  auto a = random_floats(n * n, 3), b = random_floats(n * n, 4);
  NDArray A = NDArray::from_vector(a, {n, n}), B = NDArray::from_vector(b, {n, n});
  NDArray C = NDArray::empty({n, n}, DataType::Float(32));
  // The emulator reports a shared-memory race if a barrier is missing.
  emulated(tiled_matmul()).get_function("matmul")(A, B, C);
  auto c = C.to_vector<float>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < n; ++k) acc = acc + a[i * n + k] * b[k * n + j];
      ASSERT_NEAR(c[i * n + j], acc, 1e-5f * (1.0f + std::fabs(acc))) << i << "," << j;
    }
}

TEST(CudaEmulate, MatmulWithoutBarriersIsCaughtAsRace) {
  // Print the kernels without running thread_sync: the emulator must flag the race, which shows
  // that the passing test above depends on the inserted barriers.
  auto split = transform::split_host_device(tiled_matmul());
  std::string src = codegen::codegen_cuda(split.kernels);
  ASSERT_EQ(src.find("__syncthreads"), std::string::npos);
  auto compiled = runtime::emulator::compile(src);
  auto a = random_floats(kMM * kMM, 3), b = random_floats(kMM * kMM, 4);
  std::vector<float> c(kMM * kMM);
  const auto& l = split.launches[0];
  using runtime::emulator::EmuArg;
  try {
    runtime::emulator::launch(*compiled, l.kernel, l.grid, l.block,
                              {EmuArg::buffer(a), EmuArg::buffer(b), EmuArg::buffer(c)});
    FAIL() << "expected a shared-memory race report";
  } catch (const runtime::emulator::EmulatorError& e) {
    EXPECT_NE(std::string(e.what()).find("race"), std::string::npos) << e.what();
  }
}

TEST(CudaEmulate, GuardedMatmulImperfectTiles) {
  const int64_t n = kGM;
  auto a = random_floats(n * n, 11), b = random_floats(n * n, 12);
  NDArray A = NDArray::from_vector(a, {n, n}), B = NDArray::from_vector(b, {n, n});
  NDArray C = NDArray::empty({n, n}, DataType::Float(32));
  // Out-of-bounds reads/writes of the imperfect tiles would be reported by the emulator.
  emulated(guarded_matmul()).get_function("gmatmul")(A, B, C);
  auto c = C.to_vector<float>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < n; ++k) acc = acc + a[i * n + k] * b[k * n + j];
      ASSERT_NEAR(c[i * n + j], acc, 1e-5f * (1.0f + std::fabs(acc))) << i << "," << j;
    }
}

TEST(CudaEmulate, Half2Square) {
  auto af = random_floats(kHalf2N, 13, -8.0f, 8.0f);
  std::vector<uint16_t> a(kHalf2N);
  for (int64_t i = 0; i < kHalf2N; ++i) a[i] = h_bits(static_cast<_Float16>(af[i]));
  DataType h = DataType::Float(16);
  NDArray A = NDArray::from_vector(a, {kHalf2N}, h), B = NDArray::empty({kHalf2N}, h),
          C = NDArray::empty({kHalf2N}, h);
  emulated(half2_square()).get_function("half2")(A, B, C);
  auto b = B.to_vector<uint16_t>(), c = C.to_vector<uint16_t>();
  for (int64_t i = 0; i < kHalf2N; ++i) {
    _Float16 x = h_from_bits(a[i]);
    ASSERT_EQ(b[i], h_bits(static_cast<_Float16>(x * x))) << i;
    ASSERT_EQ(c[i], a[i]) << i;
  }
}

TEST(CudaEmulate, SharedFloat4ThenReverse) {
  auto a = random_floats(256, 14);
  NDArray A = NDArray::from_vector(a, {256}), B = NDArray::empty({256}, DataType::Float(32));
  emulated(shared_float4_reverse()).get_function("rev4")(A, B);
  auto b = B.to_vector<float>();
  for (int i = 0; i < 256; ++i) ASSERT_EQ(b[i], a[255 - i]) << i;
}

TEST(CudaEmulate, Float4Scale) {
  auto a = random_floats(kCopyN, 5);
  NDArray A = NDArray::from_vector(a, {kCopyN}), B = NDArray::empty({kCopyN}, DataType::Float(32));
  emulated(float4_scale()).get_function("scale4")(A, B);
  auto b = B.to_vector<float>();
  for (int64_t i = 0; i < kCopyN; ++i) ASSERT_EQ(b[i], a[i] * 2.0f) << i;
}

TEST(CudaEmulate, HalfElementwise) {
  auto af = random_floats(kHalfN, 6, -4.0f, 4.0f), bf = random_floats(kHalfN, 7, -4.0f, 4.0f);
  std::vector<uint16_t> a(kHalfN), b(kHalfN);
  for (int64_t i = 0; i < kHalfN; ++i) {
    a[i] = h_bits(static_cast<_Float16>(af[i]));
    b[i] = h_bits(static_cast<_Float16>(bf[i]));
  }
  a[5] = 0x7E00;  // NaN: max(NaN * b + 1, 0) must stay NaN (NaN-propagating max)
  DataType h = DataType::Float(16);
  NDArray A = NDArray::from_vector(a, {kHalfN}, h), B = NDArray::from_vector(b, {kHalfN}, h);
  NDArray C = NDArray::empty({kHalfN}, h), D = NDArray::empty({kHalfN}, DataType::Float(32));
  emulated(half_elementwise()).get_function("half_ew")(A, B, C, D);
  auto c = C.to_vector<uint16_t>();
  auto d = D.to_vector<float>();
  for (int64_t i = 0; i < kHalfN; ++i) {
    _Float16 x = h_from_bits(a[i]), y = h_from_bits(b[i]);
    _Float16 t = static_cast<_Float16>(x * y);
    t = static_cast<_Float16>(t + static_cast<_Float16>(1.0f));
    if (i == 5) {
      EXPECT_TRUE(std::isnan(static_cast<float>(h_from_bits(c[i]))))
          << "NaN must propagate through max";
      EXPECT_TRUE(std::isnan(d[i]));
      continue;
    }
    _Float16 ref = t > static_cast<_Float16>(0.0f) ? t : static_cast<_Float16>(0.0f);
    ASSERT_EQ(c[i], h_bits(ref)) << i;
    ASSERT_EQ(d[i], 2.0f * static_cast<float>(x)) << i;
  }
}

// bfloat16 arithmetic rounds after every operation; int32/float64 sources are rounded once (the
// chosen values would round twice to a different result through float); literals, -inf/+inf,
// isnan and the NaN-propagating max all reach the kernel.
TEST(CudaEmulate, Bfloat16Elementwise) {
  const int64_t n = kBf16N;
  auto af = random_floats(n, 21, -4.0f, 4.0f), bf = random_floats(n, 22, -4.0f, 4.0f);
  std::vector<uint16_t> a(n), b(n);
  std::vector<int32_t> iv(n);
  std::vector<double> fv(n);
  std::mt19937 rng(23);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = bf_nearest(af[i]);
    b[i] = bf_nearest(bf[i]);
    iv[i] = static_cast<int32_t>(rng() >> 4) - (1 << 27);
    fv[i] = std::ldexp(static_cast<double>(rng()), -20) - 2048.0;
  }
  a[5] = 0x7FC0;                      // NaN
  a[6] = 0x7F80;                      // +inf
  a[7] = 0xFF80;                      // -inf
  a[8] = 0x8000;                      // -0
  a[9] = 0x3F80, b[9] = 0x4000;       // a < b: E takes I
  iv[9] = (1 << 24) + (1 << 16) + 1;  // just above a bfloat16 midpoint (via float: 2^24)
  a[10] = 0x4000, b[10] = 0x3F80;     // a > b: E takes F
  fv[10] = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);  // same for float64 (via float: 1.0)
  a[11] = 0x4000, b[11] = 0x3F80;
  fv[11] = 1e39;  // overflows bfloat16 (and float)
  DataType h = DataType::BFloat(16);
  NDArray A = NDArray::from_vector(a, {n}, h), B = NDArray::from_vector(b, {n}, h);
  NDArray I = NDArray::from_vector(iv, {n}), F = NDArray::from_vector(fv, {n});
  NDArray C = NDArray::empty({n}, h), D = NDArray::empty({n}, DataType::Float(32));
  NDArray E = NDArray::empty({n}, h), G = NDArray::empty({n}, h);
  emulated(bf16_elementwise()).get_function("bf16_ew")(A, B, I, F, C, D, E, G);
  auto c = C.to_vector<uint16_t>(), e = E.to_vector<uint16_t>(), g = G.to_vector<uint16_t>();
  auto d = D.to_vector<float>();
  EXPECT_EQ(e[9], 0x4B81) << "int32 -> bfloat16 must round once";
  EXPECT_EQ(e[10], 0x3F81) << "float64 -> bfloat16 must round once";
  EXPECT_EQ(e[11], 0x7F80);
  for (int64_t i = 0; i < n; ++i) {
    const double x = bf_to_float(a[i]), y = bf_to_float(b[i]);
    const double t = bf_to_float(bf_nearest(bf_to_float(bf_nearest(x * y)) + 1.0));
    if (std::isnan(t)) {
      EXPECT_TRUE(std::isnan(bf_to_float(c[i]))) << i << ": NaN must propagate through max";
    } else {
      ASSERT_EQ(c[i], bf_nearest(t > 0 ? t : 0.0)) << i;
    }
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(d[i])) << i;
    } else {
      ASSERT_EQ(d[i], static_cast<float>(2.0 * x)) << i;
    }
    ASSERT_EQ(e[i], x < y ? bf_nearest(iv[i]) : bf_nearest(fv[i])) << i;
    ASSERT_EQ(g[i], std::isnan(x) ? bf_nearest(3.0) : a[i]) << i;
  }
}

TEST(CudaEmulate, Bfloat162Square) {
  auto af = random_floats(kBf162N, 24, -8.0f, 8.0f);
  std::vector<uint16_t> a(kBf162N);
  for (int64_t i = 0; i < kBf162N; ++i) a[i] = bf_nearest(af[i]);
  DataType h = DataType::BFloat(16);
  NDArray A = NDArray::from_vector(a, {kBf162N}, h), B = NDArray::empty({kBf162N}, h),
          C = NDArray::empty({kBf162N}, h);
  emulated(bf162_square()).get_function("bf162")(A, B, C);
  auto b = B.to_vector<uint16_t>(), c = C.to_vector<uint16_t>();
  for (int64_t i = 0; i < kBf162N; ++i) {
    const double x = bf_to_float(a[i]);
    ASSERT_EQ(b[i], bf_nearest(x * x)) << i;
    ASSERT_EQ(c[i], a[i]) << i;
  }
}

TEST(CudaEmulate, NanPropagatingMax) {
  auto a = random_floats(2 * kPoolN, 8);
  a[10] = std::numeric_limits<float>::quiet_NaN();  // first operand
  a[21] = std::numeric_limits<float>::quiet_NaN();  // second operand
  NDArray A = NDArray::from_vector(a, {2 * kPoolN}),
          B = NDArray::empty({kPoolN}, DataType::Float(32));
  emulated(max_pairs()).get_function("pool")(A, B);
  auto b = B.to_vector<float>();
  for (int64_t i = 0; i < kPoolN; ++i) {
    float x = a[2 * i], y = a[2 * i + 1];
    if (std::isnan(x) || std::isnan(y)) {
      EXPECT_TRUE(std::isnan(b[i])) << i;
    } else {
      ASSERT_EQ(b[i], std::max(x, y)) << i;
    }
  }
}

TEST(CudaEmulate, TwoKernelsRunInOrder) {
  const int64_t n = 256;
  auto a = random_floats(n, 9);
  NDArray A = NDArray::from_vector(a, {n}), T = NDArray::empty({n}, DataType::Float(32));
  NDArray B = NDArray::empty({n}, DataType::Float(32));
  emulated(two_kernels()).get_function("twok")(A, T, B);
  auto b = B.to_vector<float>();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(b[i], a[i] * 3.0f + a[i]) << i;
}

}  // namespace
}  // namespace minitvm
