// LLVM codegen: math intrinsics vs the C++ library, NaN rules, float16/bfloat16 storage, extern
// calls and parallel loops.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <set>
#include <thread>

#include "codegen/llvm/helpers.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/thread_pool.h"
#include "minitvm/support/target.h"

namespace {
std::mutex g_threads_mu;
std::set<std::thread::id> g_threads;
}  // namespace

// Called from JIT code through an Extern call (the test binary exports its symbols).
extern "C" int32_t minitvm_codegen_test_note_thread(int32_t task) {
  {
    std::lock_guard<std::mutex> lock(g_threads_mu);
    g_threads.insert(std::this_thread::get_id());
  }
  std::this_thread::sleep_for(std::chrono::microseconds(300));
  return task * 2;
}

namespace minitvm::codegen::test {
namespace {

using namespace ir;
using runtime::ArgValue;
using runtime::NDArray;
const DataType f32 = DataType::Float(32);
const DataType i32 = DataType::Int(32);

template <typename T>
std::vector<T> special_values() {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  return {T(-3.7), T(-2.5), T(-1),   T(-0.5),  T(-0.0), T(0),    T(0.3), T(0.5), T(1), T(1.5),
          T(2.5),  T(3.25), T(10.7), T(-88.2), T(20),   T(1e-3), inf,    -inf,   nan,  T(0.7071)};
}

struct MathCase {
  Intrinsic op;
  double (*ref)(double);
};

template <typename T>
T apply(Intrinsic op, T x, T y) {
  switch (op) {
    case Intrinsic::Exp:
      return std::exp(x);
    case Intrinsic::Log:
      return std::log(x);
    case Intrinsic::Sqrt:
      return std::sqrt(x);
    case Intrinsic::Tanh:
      return std::tanh(x);
    case Intrinsic::Fabs:
      return std::fabs(x);
    case Intrinsic::Floor:
      return std::floor(x);
    case Intrinsic::Ceil:
      return std::ceil(x);
    case Intrinsic::Round:
      return std::round(x);
    case Intrinsic::Trunc:
      return std::trunc(x);
    case Intrinsic::Pow:
      return std::pow(x, y);
    case Intrinsic::Erf:
      return std::erf(x);
    case Intrinsic::Sigmoid:
      return T(1) / (T(1) + std::exp(-x));
    case Intrinsic::Exp2:
      return std::exp2(x);
    case Intrinsic::Log2:
      return std::log2(x);
    case Intrinsic::Rsqrt:
      return T(1) / std::sqrt(x);
    default:
      return 0;
  }
}

const std::vector<Intrinsic> kMathOps{
    Intrinsic::Exp,   Intrinsic::Log,     Intrinsic::Sqrt,  Intrinsic::Tanh,  Intrinsic::Fabs,
    Intrinsic::Floor, Intrinsic::Ceil,    Intrinsic::Round, Intrinsic::Trunc, Intrinsic::Pow,
    Intrinsic::Erf,   Intrinsic::Sigmoid, Intrinsic::Exp2,  Intrinsic::Log2,  Intrinsic::Rsqrt};

template <typename T>
void check_math(DataType t) {
  auto xs = special_values<T>();
  const int64_t n = static_cast<int64_t>(xs.size());
  std::vector<T> ys(xs.size());
  for (size_t k = 0; k < ys.size(); ++k) ys[k] = T(0.5) + T(k % 4) * T(0.75);
  FuncBuilder fb;
  Var X = fb.buffer("X", t, {n}), Y = fb.buffer("Y", t, {n});
  std::vector<Var> outs;
  for (Intrinsic op : kMathOps)
    outs.push_back(fb.buffer(std::string("o_") + intrinsic_name(op), t, {n}));
  Var o_nan = fb.buffer("o_nan", DataType::Bool(), {n}),
      o_inf = fb.buffer("o_inf", DataType::Bool(), {n});
  Var i("i");
  Expr x = load(t, X, i), y = load(t, Y, i);
  std::vector<Stmt> body;
  for (size_t k = 0; k < kMathOps.size(); ++k) {
    std::vector<Expr> args{x};
    if (kMathOps[k] == Intrinsic::Pow) args.push_back(y);
    body.push_back(store(outs[k], CallNode::make(t, kMathOps[k], args), i));
  }
  body.push_back(store(o_nan, isnan(x), i));
  body.push_back(store(o_inf, isinf(x), i));
  auto fn = build_one(fb.make("math", loop(i, n, BlockNode::make(body))));

  std::vector<ArgValue> args{NDArray::from_vector(xs, {n}), NDArray::from_vector(ys, {n})};
  std::vector<NDArray> results;
  for (size_t k = 0; k < kMathOps.size(); ++k) results.push_back(NDArray::empty({n}, t));
  results.push_back(NDArray::empty({n}, DataType::Bool()));
  results.push_back(NDArray::empty({n}, DataType::Bool()));
  for (auto& r : results) args.push_back(r);
  fn.call(args);
  for (size_t k = 0; k < kMathOps.size(); ++k) {
    auto got = results[k].to_vector<T>();
    for (int64_t q = 0; q < n; ++q) {
      T want = apply<T>(kMathOps[k], xs[q], ys[q]);
      EXPECT_TRUE(same_float(got[q], want)) << t << " " << intrinsic_name(kMathOps[k]) << "("
                                            << xs[q] << ") = " << got[q] << ", want " << want;
    }
  }
  auto nans = results[kMathOps.size()].to_vector<bool>(),
       infs = results[kMathOps.size() + 1].to_vector<bool>();
  for (int64_t q = 0; q < n; ++q) {
    EXPECT_EQ(nans[q], std::isnan(xs[q])) << xs[q];
    EXPECT_EQ(infs[q], std::isinf(xs[q])) << xs[q];
  }
}

TEST(CodegenLLVMMath, IntrinsicsFloat32) {
  check_math<float>(f32);
}
TEST(CodegenLLVMMath, IntrinsicsFloat64) {
  check_math<double>(DataType::Float(64));
}

// float32 vectors compute exp (and sigmoid through it) in vector instructions, not one libm call
// per lane: within 2 ulp of exp in double precision across the whole float range, denormal
// results within one denormal step, overflow to inf, 0 far below, NaN kept.
TEST(CodegenLLVMMath, VectorExpFloat32) {
  const int lanes = 16;
  std::vector<float> xs;
  for (double v = -110.0; v <= 95.0; v += 0.0137) xs.push_back(static_cast<float>(v));
  for (float v : special_values<float>()) xs.push_back(v);
  for (float v : {88.7228f, 88.72284f, 88.7229f, -87.33f, -103.2f, -103.97f, -104.5f, 1e-30f,
                  -1e-30f, 0.3465736f, -0.3465736f, 0.34657362f})
    xs.push_back(v);
  while (xs.size() % lanes) xs.push_back(0.f);
  const int64_t n = static_cast<int64_t>(xs.size());
  const DataType v16 = f32.with_lanes(lanes);
  FuncBuilder fb;
  Var X = fb.buffer("X", f32, {n}), E = fb.buffer("E", f32, {n}), S = fb.buffer("S", f32, {n});
  Var c("c");
  Expr ramp = RampNode::make(c * lanes, 1, lanes);
  Expr x = LoadNode::make(v16, X, ramp);
  auto fn = build_one(fb.make(
      "vexp",
      loop(c, n / lanes,
           BlockNode::make({store(E, CallNode::make(v16, Intrinsic::Exp, {x}), ramp),
                            store(S, CallNode::make(v16, Intrinsic::Sigmoid, {x}), ramp)}))));
  NDArray RE = NDArray::empty({n}, f32), RS = NDArray::empty({n}, f32);
  fn(NDArray::from_vector(xs, {n}), RE, RS);
  auto e = RE.to_vector<float>(), sg = RS.to_vector<float>();
  const double ulp_at_one = std::ldexp(1.0, -23), denorm = std::ldexp(1.0, -149);
  for (int64_t k = 0; k < n; ++k) {
    const double want = std::exp(static_cast<double>(xs[k]));
    const double wsig = 1.0 / (1.0 + std::exp(-static_cast<double>(xs[k])));
    if (std::isnan(xs[k])) {
      EXPECT_TRUE(std::isnan(e[k]) && std::isnan(sg[k])) << k;
      continue;
    }
    if (want > std::numeric_limits<float>::max()) {
      EXPECT_EQ(e[k], std::numeric_limits<float>::infinity()) << "exp(" << xs[k] << ")";
    } else {
      EXPECT_LE(std::abs(e[k] - want), 2 * ulp_at_one * want + denorm)
          << "exp(" << xs[k] << ") = " << e[k] << ", want " << want;
    }
    // 1 / (1 + exp(-x)) as written: exp(-x) overflows below x = -88.7, the result is then 0
    // where it would be a denormal, as libm's expf in the same formula gives.
    EXPECT_LE(std::abs(sg[k] - wsig), 3 * ulp_at_one * wsig + std::numeric_limits<float>::min())
        << "sigmoid(" << xs[k] << ") = " << sg[k] << ", want " << wsig;
  }
}

// float32 vectors compute erf in vector instructions too (GELU's epilogue): within 2.5e-7
// relative of erf in double precision over [-6, 6] and at the branch points, +-1 at +-inf, NaN
// kept.
TEST(CodegenLLVMMath, VectorErfFloat32) {
  const int lanes = 16;
  std::vector<float> xs;
  for (double v = -6.0; v <= 6.0; v += 0.00173) xs.push_back(static_cast<float>(v));
  for (float v : special_values<float>()) xs.push_back(v);
  for (float v :
       {0.9999999f, 1.0f, 1.0000001f, -1.0f, 0.5f, 1e-30f, -1e-30f, 1e-6f, 3.9999f, 4.0f, 4.5f})
    xs.push_back(v);
  while (xs.size() % lanes) xs.push_back(0.f);
  const int64_t n = static_cast<int64_t>(xs.size());
  const DataType v16 = f32.with_lanes(lanes);
  FuncBuilder fb;
  Var X = fb.buffer("X", f32, {n}), E = fb.buffer("E", f32, {n});
  Var c("c");
  Expr ramp = RampNode::make(c * lanes, 1, lanes);
  Expr x = LoadNode::make(v16, X, ramp);
  auto fn = build_one(fb.make(
      "verf", loop(c, n / lanes, store(E, CallNode::make(v16, Intrinsic::Erf, {x}), ramp))));
  NDArray RE = NDArray::empty({n}, f32);
  fn(NDArray::from_vector(xs, {n}), RE);
  auto e = RE.to_vector<float>();
  double worst = 0;
  for (int64_t k = 0; k < n; ++k) {
    if (std::isnan(xs[k])) {
      EXPECT_TRUE(std::isnan(e[k])) << k;
      continue;
    }
    const double want = std::erf(static_cast<double>(xs[k]));
    worst = std::max(worst, std::abs(e[k] - want) / std::max(std::abs(want), 1e-38));
    EXPECT_LE(std::abs(e[k] - want), 2.5e-7 * std::abs(want) + 1e-45)
        << "erf(" << xs[k] << ") = " << e[k] << ", want " << want;
  }
  std::cout << "vector erf: worst relative error " << worst << "\n";
}

// min/max are select(a < b, a, b) / select(a > b, a, b): a NaN survives only as the second operand.
TEST(CodegenLLVMMath, MinMaxNaNRule) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a{1.f, nan, 3.f, nan, -0.f}, b{2.f, 5.f, nan, nan, 0.f};
  const int64_t n = 5;
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {n}), B = fb.buffer("B", f32, {n});
  Var Mx = fb.buffer("Mx", f32, {n}), Mn = fb.buffer("Mn", f32, {n});
  Var i("i");
  Expr x = load(f32, A, i), y = load(f32, B, i);
  auto fn = build_one(fb.make(
      "minmax", loop(i, n, BlockNode::make({store(Mx, max(x, y), i), store(Mn, min(x, y), i)}))));
  NDArray MX = NDArray::empty({n}, f32), MN = NDArray::empty({n}, f32);
  fn(NDArray::from_vector(a, {n}), NDArray::from_vector(b, {n}), MX, MN);
  auto mx = MX.to_vector<float>(), mn = MN.to_vector<float>();
  for (int64_t k = 0; k < n; ++k) {
    EXPECT_TRUE(same_float(mx[k], a[k] > b[k] ? a[k] : b[k])) << k;
    EXPECT_TRUE(same_float(mn[k], a[k] < b[k] ? a[k] : b[k])) << k;
    EXPECT_EQ(std::signbit(mx[k]), std::signbit(a[k] > b[k] ? a[k] : b[k])) << k;
  }
}

// As TVM's llvm target (AllowFPOpFusion::Fast): a * b + c may become one fused multiply-add, so on
// a host with FMA it is fma(a, b, c) (2^-24 here, where two roundings give 0), in scalar and
// vectorized loops alike. Fast-math stays off otherwise, and a build for `llvm -mattr=-fma` rounds
// the product and the sum separately.
TEST(CodegenLLVMMath, FloatContractionAsTvm) {
  const int64_t n = 64;
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {n}), B = fb.buffer("B", f32, {n}), C = fb.buffer("C", f32, {n});
  Var O = fb.buffer("O", f32, {n});
  Var i("i");
  PrimFunc f = fb.make(
      "muladd", loop(i, n, store(O, load(f32, A, i) * load(f32, B, i) + load(f32, C, i), i)));
  const float a = 1.f + std::ldexp(1.f, -12), c = -(1.f + std::ldexp(1.f, -11));
  ASSERT_NE(std::fma(a, a, c), 0.f);
  auto run = [&](runtime::Module m) {
    NDArray R = NDArray::empty({n}, f32);
    m.get_function("muladd")(NDArray::from_vector(std::vector<float>(n, a), {n}),
                             NDArray::from_vector(std::vector<float>(n, a), {n}),
                             NDArray::from_vector(std::vector<float>(n, c), {n}), R);
    return R.to_vector<float>();
  };
  volatile float prod = a * a;  // rounded product, as C without contraction
  const float separate = prod + c, fused = std::fma(a, a, c);
  ASSERT_EQ(separate, 0.f);
  const bool host_fma = __builtin_cpu_supports("fma");
  for (float r : run(build_llvm({f}))) ASSERT_EQ(r, host_fma ? fused : separate);
  for (float r : run(build_llvm({f}, parse_target("llvm -mattr=-fma")))) ASSERT_EQ(r, separate);
}

uint16_t half_bits(_Float16 h) {
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
_Float16 half_from_bits(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return h;
}
float bf16_to_float(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t float_to_bf16(float f) {  // round to nearest even, quiet NaN
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((u | 0x00400000u) >> 16);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// float16 buffers: scalar and vector loads/stores, half arithmetic, math in float rounded once.
TEST(CodegenLLVMMath, Float16Storage) {
  const int64_t n = 32;
  const DataType f16 = DataType::Float(16);
  FuncBuilder fb;
  Var H = fb.buffer("H", f16, {n});
  Var O32 = fb.buffer("O32", f32, {n}), O16 = fb.buffer("O16", f16, {n}),
      OE = fb.buffer("OE", f16, {n});
  Var OV = fb.buffer("OV", f16, {n});
  Var i("i"), c("c");
  Expr h = load(f16, H, i);
  Expr ramp = RampNode::make(c * 8, 1, 8);
  Stmt body = BlockNode::make(
      {loop(i, n,
            BlockNode::make({store(O32, cast(f32, h) * 3.f, i), store(O16, h * h + h, i),
                             store(OE, exp(h), i)})),
       loop(c, n / 8,
            store(OV,
                  cast(f16.with_lanes(8),
                       cast(f32.with_lanes(8), LoadNode::make(f16.with_lanes(8), H, ramp)) *
                           BroadcastNode::make(Expr(0.1f), 8)),
                  ramp))});
  auto fn = build_one(fb.make("half", body));
  std::vector<uint16_t> hb(n);
  for (int64_t k = 0; k < n; ++k)
    hb[k] = half_bits(static_cast<_Float16>((static_cast<float>(k) - 10.3f) * 0.37f));
  NDArray R32 = NDArray::empty({n}, f32), R16 = NDArray::empty({n}, f16),
          RE = NDArray::empty({n}, f16);
  NDArray RV = NDArray::empty({n}, f16);
  fn(NDArray::from_vector(hb, {n}, f16), R32, R16, RE, RV);
  auto r32 = R32.to_vector<float>();
  auto r16 = R16.to_vector<uint16_t>(), re = RE.to_vector<uint16_t>(),
       rv = RV.to_vector<uint16_t>();
  for (int64_t k = 0; k < n; ++k) {
    float x = static_cast<float>(half_from_bits(hb[k]));
    ASSERT_EQ(r32[k], x * 3.f) << k;
    // h * h + h: rounded to half twice, or once when contracted (an FMA in float, exact here:
    // the product of two halves fits a float).
    _Float16 sq = static_cast<_Float16>(x * x);
    uint16_t twice = half_bits(static_cast<_Float16>(static_cast<float>(sq) + x));
    uint16_t once = half_bits(static_cast<_Float16>(std::fma(x, x, x)));
    ASSERT_TRUE(r16[k] == twice || r16[k] == once) << k << ": " << r16[k];
    ASSERT_EQ(re[k], half_bits(static_cast<_Float16>(std::exp(x)))) << k;
    ASSERT_EQ(rv[k], half_bits(static_cast<_Float16>(x * 0.1f))) << k;
  }
}

// bfloat16 buffers: loaded exactly, arithmetic rounded to bfloat16 (nearest even) per operation.
TEST(CodegenLLVMMath, BFloat16Storage) {
  const int64_t n = 16;
  const DataType bf16 = DataType::BFloat(16);
  FuncBuilder fb;
  Var X = fb.buffer("X", bf16, {n}), Y = fb.buffer("Y", bf16, {n});
  Var OP = fb.buffer("OP", bf16, {n}), OF = fb.buffer("OF", f32, {n}),
      OC = fb.buffer("OC", bf16, {n});
  Var F = fb.buffer("F", f32, {n});
  Var i("i");
  Expr x = load(bf16, X, i), y = load(bf16, Y, i);
  Stmt body = BlockNode::make({store(OP, x * y + x, i), store(OF, cast(f32, x), i),
                               store(OC, cast(bf16, load(f32, F, i)), i)});
  auto fn = build_one(fb.make("bf16", loop(i, n, body)));
  std::vector<uint16_t> xb(n), yb(n);
  std::vector<float> fv(n);
  for (int64_t k = 0; k < n; ++k) {
    xb[k] =
        float_to_bf16(1.0f + 0.0117f * static_cast<float>(k * k) - 0.3f * static_cast<float>(k));
    yb[k] = float_to_bf16(3.14159f / static_cast<float>(k + 1));
    fv[k] = 1.0f + static_cast<float>(k) * (1.0f / 256.0f) + 1e-5f;  // halfway-ish cases
  }
  fv[0] = std::numeric_limits<float>::quiet_NaN();
  fv[1] = 1.0f + 1.0f / 256.0f;  // exactly halfway between two bfloat16 values: ties to even
  NDArray RP = NDArray::empty({n}, bf16), RF = NDArray::empty({n}, f32),
          RC = NDArray::empty({n}, bf16);
  fn(NDArray::from_vector(xb, {n}, bf16), NDArray::from_vector(yb, {n}, bf16), RP, RF, RC,
     NDArray::from_vector(fv, {n}));
  auto rp = RP.to_vector<uint16_t>(), rc = RC.to_vector<uint16_t>();
  auto rf = RF.to_vector<float>();
  for (int64_t k = 0; k < n; ++k) {
    float xf = bf16_to_float(xb[k]), yf = bf16_to_float(yb[k]);
    float prod = bf16_to_float(float_to_bf16(xf * yf));
    ASSERT_EQ(rp[k], float_to_bf16(prod + xf)) << k;
    ASSERT_EQ(rf[k], xf) << k;
    ASSERT_EQ(rc[k], float_to_bf16(fv[k])) << k;
  }
  EXPECT_EQ(rc[1], 0x3f80) << "1 + 2^-8 rounds to even (1.0)";
}

TEST(CodegenLLVMMath, ExternCall) {
  const int64_t n = 9;
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {n}), B = fb.buffer("B", f32, {n}), O = fb.buffer("O", f32, {n});
  Var i("i");
  auto fn = build_one(fb.make(
      "ext",
      loop(i, n,
           store(O, CallNode::make_extern(f32, "atan2f", {load(f32, A, i), load(f32, B, i)}), i))));
  std::vector<float> a{1, -1, 0, 2, -3, 0.5f, 7, -0.f, 1e-3f}, b{1, 1, -1, -2, 0.25f, 9, -7, -1, 5};
  NDArray R = NDArray::empty({n}, f32);
  fn(NDArray::from_vector(a, {n}), NDArray::from_vector(b, {n}), R);
  auto r = R.to_vector<float>();
  for (int64_t k = 0; k < n; ++k) ASSERT_EQ(r[k], std::atan2(a[k], b[k])) << k;
}

// A parallel loop capturing buffers, a scalar parameter and an outer Let variable, with a per-task
// temporary; a nested parallel loop (runs serially) and a parallel loop inside a serial one.
TEST(CodegenLLVMMath, ParallelLoops) {
  const int64_t R = 37, C = 100;
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {R, C}), O = fb.buffer("O", f32, {R, C}),
      P = fb.buffer("P", f32, {R, C});
  Var Q = fb.buffer("Q", i32, {4, R});
  Var s = fb.scalar("s", f32);
  Var r("r"), c("c"), r2("r2"), c2("c2"), k("k"), t("t"), w("w"), tmp = Var::buffer("tmp", f32),
                                                                  bias("bias", f32);
  Expr idx = r * static_cast<int>(C) + c;
  Stmt row = AllocateNode::make(
      tmp, f32, {make_const(i32, C)}, StorageScope::Local, make_const(DataType::Bool(), 1),
      BlockNode::make({loop(c, C, store(tmp, load(f32, A, idx) * s + bias, c)),
                       loop(k, C,
                            store(O, load(f32, tmp, static_cast<int>(C - 1) - k) + cast(f32, r),
                                  r * static_cast<int>(C) + k))}));
  Stmt par1 = LetStmtNode::make(bias, s * 2.f, loop(r, R, row, ForKind::Parallel));
  Stmt par2 = loop(r2, R,
                   loop(c2, C,
                        store(P, load(f32, A, r2 * static_cast<int>(C) + c2) - 1.f,
                              r2 * static_cast<int>(C) + c2),
                        ForKind::Parallel),
                   ForKind::Parallel);
  Stmt par3 =
      loop(w, 4,
           loop(t, R,
                store(Q, CallNode::make_extern(i32, "minitvm_codegen_test_note_thread", {t}) + w,
                      w * static_cast<int>(R) + t),
                ForKind::Parallel));
  PrimFunc f = fb.make("par", BlockNode::make({par1, par2, par3}));
  std::string ir = emit_llvm_ir({f});
  size_t calls = 0;
  for (size_t p = ir.find("call i32 @minitvm_parallel_for"); p != std::string::npos;
       p = ir.find("call i32 @minitvm_parallel_for", p + 1))
    ++calls;
  EXPECT_EQ(calls, 3u) << "the nested parallel loop runs serially inside its parent";

  std::vector<float> a(R * C);
  for (int64_t q = 0; q < R * C; ++q) a[q] = static_cast<float>(q % 97) * 0.25f - 3.f;
  NDArray OO = NDArray::empty({R, C}, f32), PP = NDArray::empty({R, C}, f32),
          QQ = NDArray::empty({4, R}, i32);
  g_threads.clear();
  build_one(f)(NDArray::from_vector(a, {R, C}), OO, PP, QQ, 1.5);
  auto o = OO.to_vector<float>(), p = PP.to_vector<float>();
  auto q = QQ.to_vector<int32_t>();
  for (int64_t y = 0; y < R; ++y) {
    for (int64_t x = 0; x < C; ++x) {
      ASSERT_EQ(o[y * C + x], (a[y * C + (C - 1 - x)] * 1.5f + 3.f) + static_cast<float>(y))
          << y << "," << x;
      ASSERT_EQ(p[y * C + x], a[y * C + x] - 1.f);
    }
  }
  for (int64_t ww = 0; ww < 4; ++ww)
    for (int64_t y = 0; y < R; ++y) ASSERT_EQ(q[ww * R + y], 2 * y + ww);
  if (runtime::thread_pool_size() > 1)
    EXPECT_GT(g_threads.size(), 1u) << "parallel loop ran on one thread";
}

}  // namespace
}  // namespace minitvm::codegen::test
