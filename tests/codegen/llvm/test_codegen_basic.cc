// LLVM codegen: loops, integer arithmetic, vectors, allocation, control flow, scalar parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include <dlpack/dlpack.h>
#include <sys/mman.h>
#include <unistd.h>

#include "codegen/llvm/helpers.h"
#include "minitvm/runtime/ndarray.h"
#include "runtime/cpu/jit.h"

namespace minitvm::codegen::test {
namespace {

using namespace ir;
using runtime::NDArray;
const DataType f32 = DataType::Float(32);
const DataType i32 = DataType::Int(32);

std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -4.f, float hi = 4.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(CodegenLLVM, VectorAdd) {
  const int64_t n = 1000;
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {n}), B = fb.buffer("B", f32, {n}), C = fb.buffer("C", f32, {n});
  Var i("i");
  PrimFunc f = fb.make("vadd", loop(i, n, store(C, load(f32, A, i) + load(f32, B, i), i)));
  runtime::Module m = build_llvm({f});
  EXPECT_EQ(m.type_key(), "llvm");
  EXPECT_NE(m.get_source().find("define void @vadd(ptr"), std::string::npos);
  EXPECT_NE(m.get_source().find("noalias"), std::string::npos);
  auto a = random_floats(n, 1), b = random_floats(n, 2);
  NDArray A_ = NDArray::from_vector(a, {n}), B_ = NDArray::from_vector(b, {n});
  NDArray C_ = NDArray::empty({n}, f32);
  m.get_function("vadd")(A_, B_, C_);
  auto c = C_.to_vector<float>();
  for (int64_t k = 0; k < n; ++k) ASSERT_EQ(c[k], a[k] + b[k]) << k;
}

// The JIT's O3 pipeline must vectorize a plain elementwise loop without runtime alias checks: the
// body function's noalias buffer parameters become alias scopes when it is inlined.
TEST(CodegenLLVM, ElementwiseLoopIsVectorizedWithoutAliasChecks) {
  const int64_t n = 1024;
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {n}), B = fb.buffer("B", f32, {n}), C = fb.buffer("C", f32, {n});
  Var i("i");
  PrimFunc f = fb.make("vadd", loop(i, n, store(C, load(f32, A, i) * load(f32, B, i), i)));
  std::string opt = runtime::cpu::jit_optimized_ir(emit_llvm_ir({f}));
  EXPECT_NE(opt.find(" x float>"), std::string::npos) << opt;
  EXPECT_NE(opt.find("!alias.scope"), std::string::npos) << opt;
  EXPECT_EQ(opt.find("vector.memcheck"), std::string::npos) << opt;
}

int64_t ref_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t ref_floormod(int64_t a, int64_t b) {
  return a - ref_floordiv(a, b) * b;
}

// A 2-d loop nest over int32 operands of both signs: floor and truncating division, by a
// runtime divisor and by constants.
TEST(CodegenLLVM, FloorDivModLoopNest) {
  const int64_t H = 41, W = 13;
  FuncBuilder fb;
  Var X = fb.buffer("X", i32, {H, W}), D = fb.buffer("D", i32, {W});
  std::vector<Var> outs;
  for (int k = 0; k < 6; ++k) outs.push_back(fb.buffer("O" + std::to_string(k), i32, {H, W}));
  Var i("i"), j("j");
  Expr idx = i * static_cast<int>(W) + j;
  Expr x = load(i32, X, idx), d = load(i32, D, j);
  Stmt body =
      BlockNode::make({store(outs[0], floordiv(x, d), idx), store(outs[1], floormod(x, d), idx),
                       store(outs[2], truncdiv(x, d), idx), store(outs[3], truncmod(x, d), idx),
                       store(outs[4], floordiv(x, 4), idx), store(outs[5], floormod(x, -3), idx)});
  PrimFunc f = fb.make("divmod", loop(i, H, loop(j, W, body)));
  auto fn = build_one(f);

  std::vector<int32_t> xs(H * W), ds(W);
  for (int64_t k = 0; k < H * W; ++k) xs[k] = static_cast<int32_t>(k % 41) - 20;
  for (int64_t k = 0; k < W; ++k) ds[k] = (k % 2 ? 1 : -1) * static_cast<int32_t>(k / 2 + 1);
  std::vector<NDArray> o;
  for (int k = 0; k < 6; ++k) o.push_back(NDArray::empty({H, W}, i32));
  fn(NDArray::from_vector(xs, {H, W}), NDArray::from_vector(ds, {W}), o[0], o[1], o[2], o[3], o[4],
     o[5]);
  std::vector<std::vector<int32_t>> r;
  for (auto& a : o) r.push_back(a.to_vector<int32_t>());
  for (int64_t a = 0; a < H; ++a) {
    for (int64_t b = 0; b < W; ++b) {
      int64_t k = a * W + b, xv = xs[k], dv = ds[b];
      ASSERT_EQ(r[0][k], ref_floordiv(xv, dv)) << xv << " fdiv " << dv;
      ASSERT_EQ(r[1][k], ref_floormod(xv, dv)) << xv << " fmod " << dv;
      ASSERT_EQ(r[2][k], xv / dv) << xv << " / " << dv;
      ASSERT_EQ(r[3][k], xv % dv) << xv << " % " << dv;
      ASSERT_EQ(r[4][k], ref_floordiv(xv, 4)) << xv;
      ASSERT_EQ(r[5][k], ref_floormod(xv, -3)) << xv;
    }
  }
}

// Ramp/Broadcast vector code: dense loads and stores, a reversed load (one dense load and a
// shuffle), a strided scatter, and a predicated (masked) tail.
TEST(CodegenLLVM, VectorRampBroadcast) {
  const int64_t n = 1003, lanes = 8, chunks = (n + lanes - 1) / lanes;
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {chunks * lanes}), B = fb.buffer("B", f32, {chunks * lanes});
  Var C = fb.buffer("C", f32, {n}), D = fb.buffer("D", f32, {2 * chunks * lanes});
  Var i("i");
  Expr base = i * static_cast<int>(lanes);
  Expr dense = RampNode::make(base, 1, lanes);
  Expr reversed = RampNode::make(base + static_cast<int>(lanes - 1), -1, lanes);
  Expr in_range = dense < BroadcastNode::make(static_cast<int>(n), lanes);
  DataType v8 = f32.with_lanes(lanes);
  Expr value = LoadNode::make(v8, A, dense) * BroadcastNode::make(Expr(2.5f), lanes) +
               LoadNode::make(v8, B, reversed);
  Stmt body = BlockNode::make({
      StoreNode::make(C, value, dense, in_range),
      StoreNode::make(D, LoadNode::make(v8, A, dense), RampNode::make(base * 2, 2, lanes)),
  });
  auto fn = build_one(fb.make("vec", loop(i, chunks, body)));
  auto a = random_floats(chunks * lanes, 3), b = random_floats(chunks * lanes, 4);
  NDArray C_ = NDArray::from_vector(std::vector<float>(n, -7.f), {n});
  NDArray D_ =
      NDArray::from_vector(std::vector<float>(2 * chunks * lanes, -1.f), {2 * chunks * lanes});
  fn(NDArray::from_vector(a, {chunks * lanes}), NDArray::from_vector(b, {chunks * lanes}), C_, D_);
  auto c = C_.to_vector<float>(), d = D_.to_vector<float>();
  for (int64_t k = 0; k < n; ++k) {
    int64_t chunk = k / lanes, lane = k % lanes;
    const float bk = b[chunk * lanes + lanes - 1 - lane];  // fused or not (TVM's FP fusion)
    ASSERT_TRUE(c[k] == a[k] * 2.5f + bk || c[k] == std::fma(a[k], 2.5f, bk)) << k;
  }
  for (int64_t k = 0; k < chunks * lanes; ++k) {
    ASSERT_EQ(d[2 * k], a[k]);
    ASSERT_EQ(d[2 * k + 1], -1.f);
  }
}

// Vector indices that are Ramps in disguise (ramp + broadcast) load densely; broadcast indices load
// one element; Unrolled/Vectorized loops that reach the backend run as loops with LLVM hints.
TEST(CodegenLLVM, VectorIndexFormsAndLoopKinds) {
  const int64_t chunks = 6, lanes = 8, n = chunks * lanes;
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {n + 3}), E = fb.buffer("E", f32, {n}), G = fb.buffer("G", f32, {n});
  Var c("c"), u("u"), v("v");
  DataType v8 = f32.with_lanes(lanes);
  Expr dense = RampNode::make(c * static_cast<int>(lanes), 1, lanes);
  Expr shifted = dense + BroadcastNode::make(3, lanes);
  Stmt s1 = loop(
      c, chunks,
      StoreNode::make(
          E, LoadNode::make(v8, A, shifted) + LoadNode::make(v8, A, BroadcastNode::make(c, lanes)),
          dense));
  Stmt s2 = loop(u, n / 4,
                 loop(v, 4, store(G, load(f32, A, u * 4 + v) * 2.f, u * 4 + v), ForKind::Unrolled),
                 ForKind::Vectorized);
  PrimFunc f = fb.make("forms", BlockNode::make({s1, s2}));
  std::string ir = emit_llvm_ir({f});
  EXPECT_EQ(ir.find("masked.gather"), std::string::npos) << ir;
  EXPECT_NE(ir.find("load <8 x float>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("llvm.loop.unroll.full"), std::string::npos) << ir;
  EXPECT_NE(ir.find("llvm.loop.vectorize.enable"), std::string::npos) << ir;
  auto a = random_floats(n + 3, 11);
  NDArray E_ = NDArray::empty({n}, f32), G_ = NDArray::empty({n}, f32);
  build_one(f)(NDArray::from_vector(a, {n + 3}), E_, G_);
  auto e = E_.to_vector<float>(), g = G_.to_vector<float>();
  for (int64_t k = 0; k < n; ++k) {
    ASSERT_EQ(e[k], a[k + 3] + a[k / lanes]) << k;
    ASSERT_EQ(g[k], a[k] * 2.f) << k;
  }
}

// Vector loads whose lanes are a base plus constant offsets over a short span (strides up to 4,
// repeated lanes) are one dense load of the span and a shuffle, no gather; masked ones load only
// the elements an active lane reads, and masked-off lanes read 0 even when they share an element
// with an active lane.
TEST(CodegenLLVM, ShortSpanLoadsAreDenseLoadsAndShuffles) {
  const int64_t rows = 5, w = 28, ow = 9, lanes9 = 9;
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {rows * w}), S = fb.buffer("S", f32, {rows * ow * 3});
  Var G = fb.buffer("G", f32, {16}), R = fb.buffer("R", f32, {3 * 48});
  Var r("r"), t("t"), c("c");
  DataType v9 = f32.with_lanes(lanes9);
  // S[r, tap, 0:9] = A[r*28 + tap + 3*lane]: a stride-3 load of 9 lanes (span 25) per tap
  Expr strided = RampNode::make(r * static_cast<int>(w) + t, 3, lanes9);
  Stmt s1 =
      loop(r, rows,
           loop(t, 3,
                StoreNode::make(S, LoadNode::make(v9, A, strided),
                                RampNode::make((r * 3 + t) * static_cast<int>(ow), 1, lanes9))));
  // R[c*48 + lane] = G[floordiv(c*48 + lane, 3)] for lanes with c*48 + lane < 40, else 0: each
  // element repeated three times, a masked load of the 16-element span (G has 16 elements; the
  // chunks c = 1, 2 would read past them without the mask)
  Expr rep_index = FloorDivNode::make(RampNode::make(c * 48, 1, 48), BroadcastNode::make(3, 48));
  Expr active = RampNode::make(c * 48, 1, 48) < BroadcastNode::make(40, 48);
  Expr rep = LoadNode::make(f32.with_lanes(48), G, rep_index, active);
  Stmt s2 = loop(c, 3, StoreNode::make(R, rep, RampNode::make(c * 48, 1, 48)));
  PrimFunc f = fb.make("spans", BlockNode::make({s1, s2}));
  std::string ir = emit_llvm_ir({f});
  EXPECT_EQ(ir.find("masked.gather"), std::string::npos) << ir;
  EXPECT_NE(ir.find("load <25 x float>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("masked.load.v16f32"), std::string::npos) << ir;
  auto a = random_floats(rows * w, 21), g = random_floats(16, 22);
  NDArray S_ = NDArray::empty({rows * ow * 3}, f32);
  NDArray R_ = NDArray::from_vector(std::vector<float>(3 * 48, -1.f), {3 * 48});
  build_one(f)(NDArray::from_vector(a, {rows * w}), S_, NDArray::from_vector(g, {16}), R_);
  auto sv = S_.to_vector<float>(), rv = R_.to_vector<float>();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t tap = 0; tap < 3; ++tap)
      for (int64_t l = 0; l < ow; ++l)
        ASSERT_EQ(sv[(i * 3 + tap) * ow + l], a[i * w + tap + 3 * l]) << i << " " << tap;
  for (int64_t k = 0; k < 3 * 48; ++k) ASSERT_EQ(rv[k], k < 40 ? g[k / 3] : 0.f) << k;
}

// A short-span load under a mask of a constant lane pattern (a 28-wide row in tiles of 30 lanes:
// lane < 27) and a scalar condition (the row exists: r < 3, as a tvm_if_then_else's tile guard
// makes it) is a plain load of the run of elements the pattern's lanes read, behind a branch on the
// scalar: no masked load, which AVX2 has not for bytes and scalarizes. Here the row that fails
// the scalar would read past the buffers. A pattern whose lanes read no single run (elements 0-1
// and 4-5) keeps the masked load. Masked-off lanes read 0 either way.
TEST(CodegenLLVM, ShortSpanLoadsUnderAConstantPatternAreRunLoads) {
  const int64_t rows = 4, per_row = 9, lanes = 30;
  for (DataType et : {DataType::UInt(8), f32}) {
    for (bool run : {true, false}) {
      SCOPED_TRACE(std::string(et == f32 ? "f32" : "u8") + (run ? " run" : " two runs"));
      FuncBuilder fb;
      Var T = fb.buffer("T", et, {(rows - 1) * per_row}), O = fb.buffer("O", f32, {rows * lanes});
      Var r("r");
      Expr lane = RampNode::make(0, 1, lanes);
      Expr index = BroadcastNode::make(r * static_cast<int>(per_row), lanes) +
                   FloorDivNode::make(lane, BroadcastNode::make(3, lanes));
      Expr pattern = run ? Expr(lane < BroadcastNode::make(27, lanes))
                         : Expr(OrNode::make(lane < BroadcastNode::make(6, lanes),
                                             AndNode::make(lane >= BroadcastNode::make(12, lanes),
                                                           lane < BroadcastNode::make(18, lanes))));
      Expr mask = AndNode::make(BroadcastNode::make(r < 3, lanes), pattern);
      Expr value =
          cast(f32.with_lanes(lanes), LoadNode::make(et.with_lanes(lanes), T, index, mask));
      Stmt body =
          loop(r, rows,
               StoreNode::make(O, value, RampNode::make(r * static_cast<int>(lanes), 1, lanes)));
      PrimFunc f = fb.make("runs", body);
      std::string ir = emit_llvm_ir({f});
      EXPECT_EQ(ir.find("masked.load") == std::string::npos, run) << ir;
      EXPECT_EQ(ir.find("span_yes") != std::string::npos, run) << ir;
      std::vector<float> t((rows - 1) * per_row);
      for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<float>(1 + i % 200);
      NDArray T_ = NDArray::empty({(rows - 1) * per_row}, et);
      if (et == f32) {
        T_ = NDArray::from_vector(t, {(rows - 1) * per_row});
      } else {
        std::vector<uint8_t> tb(t.begin(), t.end());
        std::memcpy(T_.data(), tb.data(), tb.size());
      }
      NDArray O_ = NDArray::from_vector(std::vector<float>(rows * lanes, -1.f), {rows * lanes});
      build_one(f)(T_, O_);
      auto o = O_.to_vector<float>();
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t l = 0; l < lanes; ++l) {
          const bool on = i < 3 && (run ? l < 27 : (l < 6 || (l >= 12 && l < 18)));
          ASSERT_EQ(o[i * lanes + l], on ? t[i * per_row + l / 3] : 0.f) << i << " " << l;
        }
    }
  }
}

// A serial loop whose iteration i stores column i of a small matrix read with a lane stride (a
// layout transform's tile: Y[o + i*so + lane] = X[x + i + S*lane], S >= the loop's extent) loads
// the matrix's rows densely and transposes them by shuffles: no gather, for square and ragged tiles
// (rows or columns not a power of two, a pack's stride of H*W), with the loop inside an outer loop
// whose variable moves both bases. A loop the pattern does not fit (stride below the extent, rows
// that overlap) keeps its gathers, with the same results.
TEST(CodegenLLVM, StridedColumnCopiesAreTransposedTiles) {
  struct Tile {
    int64_t n, m, stride, out_step;  // iterations, lanes, X's lane stride, Y's step per iteration
    bool transposed;
  };
  const std::vector<Tile> tiles = {{16, 16, 16, 16, true}, {16, 14, 16, 56, true},
                                   {14, 16, 3136, 16, true}, {7, 16, 49, 16, true},
                                   {5, 3, 9, 3, true},       {16, 8, 12, 8, false}};
  const int64_t outer = 3;
  for (const Tile& tl : tiles) {
    SCOPED_TRACE("tile " + std::to_string(tl.n) + "x" + std::to_string(tl.m) + " stride " +
                 std::to_string(tl.stride));
    const int64_t in_size = outer * tl.n + tl.stride * (tl.m - 1) + tl.n;
    const int64_t out_size = outer * tl.n * tl.out_step + tl.m;
    FuncBuilder fb;
    Var X = fb.buffer("X", f32, {in_size}), Y = fb.buffer("Y", f32, {out_size});
    Var o("o"), i("i");
    DataType vt = f32.with_lanes(static_cast<int>(tl.m));
    Expr src = RampNode::make(o * static_cast<int>(tl.n) + i, static_cast<int>(tl.stride),
                              static_cast<int>(tl.m));
    Expr dst = RampNode::make((o * static_cast<int>(tl.n) + i) * static_cast<int>(tl.out_step),
                              1, static_cast<int>(tl.m));
    Stmt body = loop(o, outer, loop(i, tl.n, StoreNode::make(Y, LoadNode::make(vt, X, src), dst)));
    PrimFunc f = fb.make("tile", body);
    std::string ir = emit_llvm_ir({f});
    EXPECT_EQ(ir.find("masked.gather") == std::string::npos, tl.transposed) << ir;
    auto x = random_floats(in_size, 31);
    NDArray Y_ = NDArray::from_vector(std::vector<float>(out_size, -7.f), {out_size});
    build_one(f)(NDArray::from_vector(x, {in_size}), Y_);
    auto y = Y_.to_vector<float>();
    std::vector<float> want(out_size, -7.f);
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t k = 0; k < tl.n; ++k)
        for (int64_t l = 0; l < tl.m; ++l)
          want[(a * tl.n + k) * tl.out_step + l] = x[a * tl.n + k + tl.stride * l];
    for (int64_t k = 0; k < out_size; ++k) ASSERT_EQ(y[k], want[k]) << k;
  }
}

// A vector tvm_if_then_else masks every load of its true branch (here a select of two loads),
// so lanes outside the condition never read.
TEST(CodegenLLVM, VectorIfThenElseMasksNestedLoads) {
  const int64_t n = 20, lanes = 8, chunks = 3;
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {n}), B = fb.buffer("B", f32, {n}),
      O = fb.buffer("O", f32, {chunks * lanes});
  Var c("c");
  DataType v8 = f32.with_lanes(lanes);
  Expr ramp = RampNode::make(c * static_cast<int>(lanes), 1, lanes);
  Expr a = LoadNode::make(v8, A, ramp), b = LoadNode::make(v8, B, ramp);
  Expr body = if_then_else(ramp < BroadcastNode::make(static_cast<int>(n), lanes),
                           select(a > b, a, b * 2.f), BroadcastNode::make(Expr(-3.f), lanes));
  PrimFunc f = fb.make("ite", loop(c, chunks, StoreNode::make(O, body, ramp)));
  std::string ir = emit_llvm_ir({f});
  EXPECT_NE(ir.find("masked.load"), std::string::npos) << ir;
  auto av = random_floats(n, 31), bv = random_floats(n, 32);
  NDArray O_ = NDArray::empty({chunks * lanes}, f32);
  build_one(f)(NDArray::from_vector(av, {n}), NDArray::from_vector(bv, {n}), O_);
  auto o = O_.to_vector<float>();
  for (int64_t k = 0; k < chunks * lanes; ++k)
    ASSERT_EQ(o[k], k < n ? (av[k] > bv[k] ? av[k] : bv[k] * 2.f) : -3.f) << k;
}

// A scalar condition on a vector of no register width (48 floats: a pooling tile after
// loop_partition) is broadcast to a mask, not branched on: a phi of <48 x float> made LLVM spill
// it lane by lane. Rows of the condition's false side read nothing and give the else value.
TEST(CodegenLLVM, ScalarConditionOnWideVectorIsAMask) {
  const int64_t lanes = 48, rows = 4, valid_rows = 3;
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {valid_rows * lanes}), O = fb.buffer("O", f32, {rows * lanes});
  Var r("r");
  DataType v48 = f32.with_lanes(lanes);
  Expr ramp = RampNode::make(r * static_cast<int>(lanes), 1, lanes);
  Expr body = if_then_else(r < static_cast<int>(valid_rows), LoadNode::make(v48, A, ramp) * 2.f,
                           BroadcastNode::make(Expr(-1.f), lanes));
  PrimFunc f = fb.make("wide_ite", loop(r, rows, StoreNode::make(O, body, ramp)));
  std::string ir = emit_llvm_ir({f});
  EXPECT_EQ(ir.find("phi <48 x float>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("masked.load"), std::string::npos) << ir;
  auto av = random_floats(valid_rows * lanes, 33);
  NDArray O_ = NDArray::empty({rows * lanes}, f32);
  build_one(f)(NDArray::from_vector(av, {valid_rows * lanes}), O_);
  auto o = O_.to_vector<float>();
  for (int64_t k = 0; k < rows * lanes; ++k)
    ASSERT_EQ(o[k], k < valid_rows * lanes ? av[k] * 2.f : -1.f) << k;
}

/** Floats on a page of their own between two inaccessible pages, at its start or its end: a read
 *  before or after them faults. */
class FencedFloats {
 public:
  FencedFloats(const std::vector<float>& v, bool at_end) : n_(static_cast<int64_t>(v.size())) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    MINITVM_ICHECK(v.size() * sizeof(float) <= page_);
    mem_ = static_cast<char*>(
        mmap(nullptr, 3 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    MINITVM_ICHECK(mem_ != MAP_FAILED);
    mprotect(mem_, page_, PROT_NONE);
    mprotect(mem_ + 2 * page_, page_, PROT_NONE);
    data_ =
        reinterpret_cast<float*>(mem_ + page_ + (at_end ? page_ - v.size() * sizeof(float) : 0));
    std::copy(v.begin(), v.end(), data_);
  }
  ~FencedFloats() { munmap(mem_, 3 * page_); }
  FencedFloats(const FencedFloats&) = delete;
  FencedFloats& operator=(const FencedFloats&) = delete;
  /** A view of the floats (the memory stays this object's). */
  NDArray array() {
    auto* t = new DLManagedTensor{};
    t->dl_tensor.data = data_;
    t->dl_tensor.device = {kDLCPU, 0};
    t->dl_tensor.ndim = 1;
    t->dl_tensor.dtype = {kDLFloat, 32, 1};
    t->dl_tensor.shape = &n_;
    t->deleter = [](DLManagedTensor* self) { delete self; };
    return NDArray::from_dlpack(t);
  }

 private:
  int64_t n_;
  size_t page_ = 0;
  char* mem_ = nullptr;
  float* data_ = nullptr;
};

// A concat as the TE lowers it, O[c] = c < 2 ? A[c] : B[c - 2], over rows of 14 lanes (a scalar
// condition on an odd vector: one select, no branch) and along the lanes (a vector condition).
// Neither branch reads for the lanes of the other: A ends and B starts at an inaccessible page, so
// an unmasked read of B at a row of A (before B) or of A at a row of B (after A) faults.
TEST(CodegenLLVM, VectorSelectReadsNeitherBranchOutsideItsLanes) {
  for (bool along_lanes : {false, true}) {
    SCOPED_TRACE(along_lanes ? "vector condition" : "scalar condition");
    const int lanes = along_lanes ? 16 : 14, rows = 5, split = 2;
    const int64_t na = split * lanes, nb = (rows - split) * lanes, n = rows * lanes;
    FuncBuilder fb;
    Var A = fb.buffer("A", f32, {na}), B = fb.buffer("B", f32, {nb}), O = fb.buffer("O", f32, {n});
    DataType vt = f32.with_lanes(lanes);
    Var r("r");
    Stmt body;
    if (!along_lanes) {
      Expr at = RampNode::make(r * lanes, 1, lanes);
      Expr sel = if_then_else(r < split, LoadNode::make(vt, A, at) + 1.f,
                              LoadNode::make(vt, B, RampNode::make((r - split) * lanes, 1, lanes)));
      body = loop(r, rows, StoreNode::make(O, sel, at));
    } else {
      // lanes along the concatenated axis: each vector of 16 starts 8 elements later, so the
      // middle vectors straddle the boundary at na
      const int step = 8;
      Expr base = r * step, at = RampNode::make(base, 1, lanes);
      Expr in_a = at < BroadcastNode::make(make_const(i32, na), lanes);
      Expr sel = if_then_else(
          in_a, LoadNode::make(vt, A, at) + 1.f,
          LoadNode::make(vt, B, RampNode::make(base - static_cast<int>(na), 1, lanes)));
      body = loop(r, (n - lanes) / step + 1, StoreNode::make(O, sel, at));
    }
    PrimFunc f = fb.make(along_lanes ? "concat_lanes" : "concat_rows", body);
    auto av = random_floats(na, 51), bv = random_floats(nb, 52);
    FencedFloats fa(av, /*at_end=*/true), fb_(bv, /*at_end=*/false);
    NDArray O_ = NDArray::empty({n}, f32);
    build_one(f)(fa.array(), fb_.array(), O_);
    auto o = O_.to_vector<float>();
    for (int64_t k = 0; k < n; ++k) ASSERT_EQ(o[k], k < na ? av[k] + 1.f : bv[k - na]) << k;
  }
}

// Stack (small) and heap (large) temporaries; the heap ones from the runtime's workspace.
TEST(CodegenLLVM, AllocateTemporaries) {
  for (int64_t n : {16, 40000}) {
    FuncBuilder fb;
    Var A = fb.buffer("A", f32, {n}), Out = fb.buffer("Out", f32, {n});
    Var T = Var::buffer("T", f32), k("k"), m("m");
    Stmt body = AllocateNode::make(
        T, f32, {make_const(i32, n)}, StorageScope::Global, make_const(DataType::Bool(), 1),
        BlockNode::make(
            {loop(k, n, store(T, load(f32, A, k) * 2.f, k)),
             loop(m, n, store(Out, load(f32, T, static_cast<int>(n - 1) - m) + 1.f, m))}));
    PrimFunc f = fb.make("alloc", body);
    std::string ir = emit_llvm_ir({f});
    if (n == 16)
      EXPECT_NE(ir.find("alloca float"), std::string::npos) << ir;
    else
      EXPECT_TRUE(ir.find("minitvm_workspace_alloc") != std::string::npos &&
                  ir.find("minitvm_workspace_free") != std::string::npos)
          << ir;
    auto a = random_floats(n, 5);
    NDArray O = NDArray::empty({n}, f32);
    build_one(f)(NDArray::from_vector(a, {n}), O);
    auto o = O.to_vector<float>();
    for (int64_t q = 0; q < n; ++q) ASSERT_EQ(o[q], a[n - 1 - q] * 2.f + 1.f) << n << " " << q;
  }
}

// Dense vectors of 14 lanes (a row of a 14x14 map): on an AVX-512 host, accesses of parameter
// buffers are one masked access of 16 lanes (LLVM would split them into 8 + 4 + 2), accesses of a
// temporary stay plain (LLVM keeps plain accumulators in registers). Nothing is read or written
// past the 14 lanes: the elements after the last vector keep their values.
TEST(CodegenLLVM, OddLaneVectorsOfParametersAreMaskedAccesses) {
  const int lanes = 14, chunks = 5, n = lanes * chunks, guard = 3;
  const DataType v14 = f32.with_lanes(lanes);
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {n}), Out = fb.buffer("Out", f32, {n + guard});
  Var T = Var::buffer("T", f32), c("c");
  Expr ramp = RampNode::make(c * lanes, 1, lanes);
  Expr zero = RampNode::make(make_const(i32, 0), 1, lanes);
  Stmt body = AllocateNode::make(
      T, f32, {make_const(i32, lanes)}, StorageScope::Global, make_const(DataType::Bool(), 1),
      loop(c, chunks,
           BlockNode::make({StoreNode::make(T, LoadNode::make(v14, A, ramp) * 3.f, zero),
                            StoreNode::make(Out, LoadNode::make(v14, T, zero) + 1.f, ramp)})));
  PrimFunc f = fb.make("odd", body);
  runtime::Module m = build_llvm({f});
  const std::string ll = m.get_source("ll");
  if (__builtin_cpu_supports("avx512f")) {
    EXPECT_NE(ll.find("@llvm.masked.load.v16f32"), std::string::npos) << ll;
    EXPECT_NE(ll.find("@llvm.masked.store.v16f32"), std::string::npos) << ll;
    EXPECT_NE(ll.find("store <14 x float>"), std::string::npos) << ll;  // into T
  }
  auto a = random_floats(n, 8);
  std::vector<float> init(n + guard, -7.5f);
  NDArray O = NDArray::from_vector(init, {n + guard});
  m.get_function("odd")(NDArray::from_vector(a, {n}), O);
  auto o = O.to_vector<float>();
  for (int q = 0; q < n; ++q) {
    volatile float t = a[q] * 3.f;  // rounded, or fused with the add (FP contraction as TVM's)
    ASSERT_TRUE(o[q] == t + 1.f || o[q] == std::fma(a[q], 3.f, 1.f)) << q;
  }
  for (int q = n; q < n + guard; ++q) ASSERT_EQ(o[q], -7.5f) << q;
}

// IfThenElse statements, Select, and tvm_if_then_else guarding out-of-range reads (scalar and
// vector).
TEST(CodegenLLVM, ConditionalsAndSelect) {
  const int64_t n = 64;
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {n});
  Var O1 = fb.buffer("O1", f32, {n}), O2 = fb.buffer("O2", i32, {n}),
      O3 = fb.buffer("O3", f32, {n});
  Var O4 = fb.buffer("O4", f32, {n});
  Var i("i"), c("c");
  Expr a = load(f32, A, i);
  Expr ramp = RampNode::make(c * 8 - 1, 1, 8);
  Stmt body = BlockNode::make({
      store(O1, select(a > 0.f, a, a * 0.125f), i),
      IfThenElseNode::make(floormod(i, 3) == 0, store(O2, 1, i), store(O2, -1, i)),
      IfThenElseNode::make(i >= 60, store(O3, 100.f, i)),
      IfThenElseNode::make(i < 60,
                           store(O3, if_then_else(i >= 1, load(f32, A, i - 1), Expr(-5.f)), i)),
  });
  Stmt vec = store(
      O4,
      if_then_else(ramp >= BroadcastNode::make(0, 8), LoadNode::make(f32.with_lanes(8), A, ramp),
                   BroadcastNode::make(Expr(-9.f), 8)),
      RampNode::make(c * 8, 1, 8));
  auto fn = build_one(fb.make("cond", BlockNode::make({loop(i, n, body), loop(c, n / 8, vec)})));
  auto av = random_floats(n, 6);
  NDArray R1 = NDArray::empty({n}, f32), R2 = NDArray::empty({n}, i32),
          R3 = NDArray::empty({n}, f32);
  NDArray R4 = NDArray::empty({n}, f32);
  fn(NDArray::from_vector(av, {n}), R1, R2, R3, R4);
  auto r1 = R1.to_vector<float>(), r3 = R3.to_vector<float>(), r4 = R4.to_vector<float>();
  auto r2 = R2.to_vector<int32_t>();
  for (int64_t k = 0; k < n; ++k) {
    ASSERT_EQ(r1[k], av[k] > 0 ? av[k] : av[k] * 0.125f);
    ASSERT_EQ(r2[k], k % 3 == 0 ? 1 : -1);
    ASSERT_EQ(r3[k], k >= 60 ? 100.f : (k >= 1 ? av[k - 1] : -5.f)) << k;
    ASSERT_EQ(r4[k], k >= 1 ? av[k - 1] : -9.f) << k;
  }
}

// Scalar parameters of several dtypes, passed by pointer in the packed convention.
TEST(CodegenLLVM, ScalarParameters) {
  const int64_t n = 10;
  FuncBuilder fb;
  Var A = fb.buffer("A", f32, {n}), Out = fb.buffer("Out", DataType::Float(64), {n});
  Var off = fb.scalar("off", i32), alpha = fb.scalar("alpha", f32),
      big = fb.scalar("big", DataType::Int(64));
  Var beta = fb.scalar("beta", DataType::Float(64)), flag = fb.scalar("flag", DataType::Bool());
  Var u8 = fb.scalar("u8", DataType::UInt(8));
  Var i("i");
  Expr v = cast(DataType::Float(64), load(f32, A, i) * alpha + cast(f32, off)) * beta +
           cast(DataType::Float(64), big) + cast(DataType::Float(64), u8);
  auto fn = build_one(
      fb.make("scalars",
              loop(i, n, store(Out, select(flag, v, make_const(DataType::Float(64), -1.0)), i))));
  auto a = random_floats(n, 7);
  NDArray O = NDArray::empty({n}, DataType::Float(64));
  const int64_t bigv = int64_t{1} << 40;
  fn(NDArray::from_vector(a, {n}), O, -3, 0.5, bigv, 0.25, 1, 200);
  auto o = O.to_vector<double>();
  for (int64_t k = 0; k < n; ++k)
    ASSERT_EQ(o[k],
              static_cast<double>(a[k] * 0.5f + -3.f) * 0.25 + static_cast<double>(bigv) + 200.0);
  fn(NDArray::from_vector(a, {n}), O, -3, 0.5, bigv, 0.25, 0, 200);
  for (double x : O.to_vector<double>()) ASSERT_EQ(x, -1.0);
}

// Integer/float/bool conversions with C semantics.
TEST(CodegenLLVM, Casts) {
  const int64_t n = 8;
  FuncBuilder fb;
  Var F = fb.buffer("F", f32, {n}), I = fb.buffer("I", i32, {n}),
      U = fb.buffer("U", DataType::UInt(32), {n});
  Var o_fi = fb.buffer("o_fi", i32, {n}), o_if = fb.buffer("o_if", f32, {n}),
      o_i8 = fb.buffer("o_i8", DataType::Int(8), {n});
  Var o_u8 = fb.buffer("o_u8", DataType::Int(32), {n}),
      o_s8 = fb.buffer("o_s8", DataType::Int(64), {n});
  Var o_fb = fb.buffer("o_fb", DataType::Bool(), {n}), o_bf = fb.buffer("o_bf", f32, {n});
  Var o_uf = fb.buffer("o_uf", f32, {n}), o_fd = fb.buffer("o_fd", DataType::Float(64), {n});
  Var i("i");
  Expr f = load(f32, F, i), iv = load(i32, I, i), u = load(DataType::UInt(32), U, i);
  Stmt body = BlockNode::make({
      store(o_fi, cast(i32, f), i),
      store(o_if, cast(f32, iv), i),
      store(o_i8, cast(DataType::Int(8), iv), i),
      store(o_u8, cast(i32, cast(DataType::UInt(8), iv)), i),
      store(o_s8, cast(DataType::Int(64), cast(DataType::Int(8), iv)), i),
      store(o_fb, cast(DataType::Bool(), f), i),
      store(o_bf, cast(f32, cast(DataType::Bool(), iv)), i),
      store(o_uf, cast(f32, u), i),
      store(o_fd, cast(DataType::Float(64), f) / 3.0, i),
  });
  auto fn = build_one(fb.make("casts", loop(i, n, body)));
  std::vector<float> fv{-2.75f, -0.5f, 0.f, 0.5f, 1.99f, 1e6f, -123.5f, 7.f};
  std::vector<int32_t> ivs{-1, 255, 256, -129, 127, 0, 1000, -70000};
  std::vector<uint32_t> uvs{0u, 1u, 4000000000u, 2147483648u, 77u, 4294967295u, 3u, 123456789u};
  std::vector<NDArray> outs{NDArray::empty({n}, i32),
                            NDArray::empty({n}, f32),
                            NDArray::empty({n}, DataType::Int(8)),
                            NDArray::empty({n}, i32),
                            NDArray::empty({n}, DataType::Int(64)),
                            NDArray::empty({n}, DataType::Bool()),
                            NDArray::empty({n}, f32),
                            NDArray::empty({n}, f32),
                            NDArray::empty({n}, DataType::Float(64))};
  fn(NDArray::from_vector(fv, {n}), NDArray::from_vector(ivs, {n}), NDArray::from_vector(uvs, {n}),
     outs[0], outs[1], outs[2], outs[3], outs[4], outs[5], outs[6], outs[7], outs[8]);
  auto fi = outs[0].to_vector<int32_t>();
  auto iff = outs[1].to_vector<float>();
  auto i8 = outs[2].to_vector<int8_t>();
  auto u8 = outs[3].to_vector<int32_t>();
  auto s8 = outs[4].to_vector<int64_t>();
  auto fbv = outs[5].to_vector<bool>();
  auto bf = outs[6].to_vector<float>();
  auto uf = outs[7].to_vector<float>();
  auto fd = outs[8].to_vector<double>();
  for (int64_t k = 0; k < n; ++k) {
    ASSERT_EQ(fi[k], static_cast<int32_t>(fv[k])) << k;
    ASSERT_EQ(iff[k], static_cast<float>(ivs[k])) << k;
    ASSERT_EQ(i8[k], static_cast<int8_t>(ivs[k])) << k;
    ASSERT_EQ(u8[k], static_cast<int32_t>(static_cast<uint8_t>(ivs[k]))) << k;
    ASSERT_EQ(s8[k], static_cast<int64_t>(static_cast<int8_t>(ivs[k]))) << k;
    ASSERT_EQ(fbv[k], fv[k] != 0.f) << k;
    ASSERT_EQ(bf[k], ivs[k] != 0 ? 1.f : 0.f) << k;
    ASSERT_EQ(uf[k], static_cast<float>(uvs[k])) << k;
    ASSERT_EQ(fd[k], static_cast<double>(fv[k]) / 3.0) << k;
  }
}

// Unsigned arithmetic, comparisons, shifts and bitwise intrinsics.
TEST(CodegenLLVM, UnsignedAndBitwise) {
  const int64_t n = 6;
  const DataType u32 = DataType::UInt(32);
  FuncBuilder fb;
  Var U = fb.buffer("U", u32, {n}), S = fb.buffer("S", i32, {n});
  Var o1 = fb.buffer("o1", u32, {n}), o2 = fb.buffer("o2", i32, {n}),
      o3 = fb.buffer("o3", DataType::Bool(), {n});
  Var o4 = fb.buffer("o4", u32, {n}), o5 = fb.buffer("o5", i32, {n});
  Var i("i");
  Expr u = load(u32, U, i), s = load(i32, S, i);
  Expr three = make_const(u32, 3);
  Stmt body = BlockNode::make({
      store(o1, CallNode::make(u32, Intrinsic::ShiftRight, {u, three}), i),
      store(o2, CallNode::make(i32, Intrinsic::ShiftRight, {s, make_const(i32, 2)}), i),
      store(o3, u > make_const(u32, int64_t{2147483648LL}), i),
      store(o4,
            CallNode::make(u32, Intrinsic::BitwiseXor,
                           {CallNode::make(u32, Intrinsic::BitwiseAnd,
                                           {u, make_const(u32, int64_t{0xff00ff})}),
                            CallNode::make(u32, Intrinsic::ShiftLeft, {u, three})}) /
                make_const(u32, 7),
            i),
      store(o5, floordiv(s, 8) + CallNode::make(i32, Intrinsic::BitwiseNot, {s}), i),
  });
  auto fn = build_one(fb.make("bits", loop(i, n, body)));
  std::vector<uint32_t> us{0u, 1u, 0x80000000u, 0xffffffffu, 12345678u, 0x80000001u};
  std::vector<int32_t> ss{-1, -100, 100, INT32_MIN, INT32_MAX, 7};
  NDArray r1 = NDArray::empty({n}, u32), r2 = NDArray::empty({n}, i32),
          r3 = NDArray::empty({n}, DataType::Bool());
  NDArray r4 = NDArray::empty({n}, u32), r5 = NDArray::empty({n}, i32);
  fn(NDArray::from_vector(us, {n}), NDArray::from_vector(ss, {n}), r1, r2, r3, r4, r5);
  auto v1 = r1.to_vector<uint32_t>(), v4 = r4.to_vector<uint32_t>();
  auto v2 = r2.to_vector<int32_t>(), v5 = r5.to_vector<int32_t>();
  auto v3 = r3.to_vector<bool>();
  for (int64_t k = 0; k < n; ++k) {
    ASSERT_EQ(v1[k], us[k] >> 3);
    ASSERT_EQ(v2[k], ss[k] >> 2);
    ASSERT_EQ(v3[k], us[k] > 2147483648u);
    ASSERT_EQ(v4[k], ((us[k] & 0xff00ffu) ^ (us[k] << 3)) / 7u);
    ASSERT_EQ(v5[k], static_cast<int32_t>(ref_floordiv(ss[k], 8)) + ~ss[k]);
  }
}

TEST(CodegenLLVM, Errors) {
  {  // a buffer with a symbolic shape has no static signature
    Var n("n");
    Buffer b = Buffer::make("A", f32, {n});
    PrimFunc f = PrimFunc::make("dyn", {b->data}, {{b->data.get(), b}}, make_nop());
    EXPECT_THROW(signature_of(f), CompileError);
  }
  {  // a variable that is never bound
    FuncBuilder fb;
    Var A = fb.buffer("A", f32, {4});
    Var ghost("ghost");
    EXPECT_THROW(emit_llvm_ir({fb.make("bad", store(A, 1.f, ghost))}), InternalError);
  }
  {  // two functions with one name
    FuncBuilder fb;
    Var A = fb.buffer("A", f32, {4});
    PrimFunc f = fb.make("twice", store(A, 1.f, 0));
    EXPECT_THROW(emit_llvm_ir({f, f}), CompileError);
  }
}

}  // namespace
}  // namespace minitvm::codegen::test
