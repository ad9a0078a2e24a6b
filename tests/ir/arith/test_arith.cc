// Arithmetic analysis: intervals, canonical simplification, div/mod with bounds, proofs, and the
// statement simplifier. Expected texts are TVM v0.6's printed forms of the same results.
#include <gtest/gtest.h>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"

namespace minitvm::ir {
namespace {

std::string S(const Expr& e, const RangeMap& r = {}) {
  return to_string(simplify(e, r));
}

TEST(Interval, LinearWithThreadVars) {
  Var bx("blockIdx.x"), tx("threadIdx.x");
  IntervalMap dom{{tx.get(), IntervalSet::from_range(Range(0, 64))}};
  IntervalSet iv = eval_interval(bx * 64 + tx, dom);
  ASSERT_TRUE(iv.is_bounded());
  EXPECT_EQ(to_string(iv.min), "(blockIdx.x*64)");
  EXPECT_EQ(to_string(iv.max), "((blockIdx.x*64) + 63)");
  Expr extent = simplify(iv.max - iv.min + 1);
  ASSERT_TRUE(as_const_int(extent));
  EXPECT_EQ(*as_const_int(extent), 64);
}

TEST(Interval, ConstantsScalingAndDivision) {
  Var i("i"), j("j");
  IntervalMap dom{{i.get(), IntervalSet::from_range(Range(0, 8))},
                  {j.get(), IntervalSet::from_range(Range(-2, 5))}};
  auto check = [&](const Expr& e, int64_t lo, int64_t hi) {
    IntervalSet iv = eval_interval(e, dom);
    ASSERT_TRUE(iv.is_bounded()) << e;
    ASSERT_TRUE(as_const_int(iv.min) && as_const_int(iv.max))
        << e << " -> [" << iv.min << ", " << iv.max << "]";
    EXPECT_EQ(*as_const_int(iv.min), lo) << e;
    EXPECT_EQ(*as_const_int(iv.max), hi) << e;
  };
  check(i * 4 + 3, 3, 31);
  check(i * -2, -14, 0);
  check(i - j, -2, 9);
  check(floordiv(i, 3), 0, 2);
  check(floordiv(j, 2), -1, 1);
  check(floormod(i, 3), 0, 2);
  check(floormod(i, 16), 0, 7);  // within one period
  check(floormod(i + 8, 16), 8, 15);
  check(truncdiv(i * 5, 4), 0, 8);
  check(min(i, j), -2, 2);
  check(max(i, j + 10), 8, 12);
  check(select(i < j, i, j * 2), -4, 7);
  check(cast(DataType::Int(64), i) * 2, 0, 14);
  Var v("v");
  check(LetNode::make(v, i * 2, v + 1), 1, 15);
  // x - x cancels before relaxing.
  check(i - i, 0, 0);
}

TEST(Interval, SymbolicScaleAndUnbounded) {
  Var i("i"), n("n");
  IntervalMap dom{{i.get(), IntervalSet::from_range(Range(0, 4))}};
  IntervalSet iv = eval_interval(i * n, dom);
  ASSERT_TRUE(iv.is_bounded());  // sign of n unknown: select bounds
  IntervalMap none{{i.get(), IntervalSet::everything()}};
  EXPECT_FALSE(eval_interval(i + 1, none).is_bounded());
  // Outside the domain a variable is a point.
  IntervalSet p = eval_interval(n + 1, dom);
  EXPECT_TRUE(p.is_point());
  EXPECT_EQ(to_string(p.min), "(n + 1)");
}

TEST(Simplify, ExtentCancellation) {
  Var bx("bx");
  EXPECT_EQ(S((bx * 64 + 63) - (bx * 64) + 1), "64");
  Var x("x");
  EXPECT_EQ(S((x * 4 + 2) - x * 4), "2");
}

TEST(Simplify, CanonicalPrinting) {
  Var x("x"), y("y"), z("z");
  EXPECT_EQ(S(x * 4 + y + 2), "(((x*4) + y) + 2)");
  EXPECT_EQ(S(2 + (3 * x + z + y + 1) * 4 + x), "((((x*13) + (z*4)) + (y*4)) + 6)");
  EXPECT_EQ(S(x * 3 - 4 * x + 1), "(1 - x)");
  EXPECT_EQ(S(y + x * 3 - 5 * x + 1 + y), "(((y*2) + 1) - (x*2))");
  EXPECT_EQ(S(x - y), "(x - y)");
  EXPECT_EQ(S(x - 1), "(x + -1)");
  EXPECT_EQ(S(0 - x), "(0 - x)");
  EXPECT_EQ(S(x * y - y * 0 + x * y), "((x*y)*2)");
  EXPECT_EQ(S(max(x, 1) - max(x, 1)), "0");
  // Stable: simplifying again prints the same.
  Expr e = simplify(x * 2 - y * 3 + floordiv(x + 7, 4) * 5 - 9);
  EXPECT_EQ(to_string(simplify(e)), to_string(e));
  EXPECT_EQ(to_string(e), "((((x*2) + (floordiv((x + 7), 4)*5)) + -9) - (y*3))");
}

TEST(Simplify, SplitIndexRecombination) {
  Var i("i"), j("j");
  RangeMap r{{j.get(), Range(0, 32)}};
  EXPECT_EQ(S(floordiv(i * 32 + j, 32), r), "i");
  EXPECT_EQ(S(floormod(i * 32 + j, 32), r), "j");
  // Without the range of j only the multiple of 32 moves out.
  EXPECT_EQ(S(floordiv(i * 32 + j, 32)), "(i + floordiv(j, 32))");
  EXPECT_EQ(S(floormod(i * 32 + j, 32)), "floormod(j, 32)");
  // Known bounds.
  EXPECT_EQ(S(floordiv(j, 32), r), "0");
  EXPECT_EQ(S(floormod(j, 32), r), "j");
  EXPECT_EQ(S(floordiv(j + 32, 32), r), "1");
  EXPECT_EQ(S(floormod(j + 64, 32), r), "j");
  // Common factor: floordiv(i*4 + k, 8) with k in [0, 4) -> floordiv(i, 2).
  Var k("k");
  RangeMap rk{{k.get(), Range(0, 4)}};
  EXPECT_EQ(S(floordiv(i * 4 + k, 8), rk), "floordiv(i, 2)");
  EXPECT_EQ(S(floormod(i * 4 + k, 8), rk), "((floormod(i, 2)*4) + k)");
  EXPECT_EQ(S(floormod(i * 8, 16)), "(floormod(i, 2)*8)");
  EXPECT_EQ(S(floormod(i * 8, 2)), "0");
  // Ceil-division extents keep their constant inside.
  Var n("n");
  EXPECT_EQ(S(floordiv(n + 31, 32)), "floordiv((n + 31), 32)");
}

TEST(Simplify, FuseSplitRoundTrip) {
  Var f("f");
  RangeMap r{{f.get(), Range(0, 512)}};
  Expr outer = floordiv(f, 128), inner = floormod(f, 128);
  Expr jo = floordiv(inner, 16), ji = floormod(inner, 16);
  EXPECT_EQ(S(ji, r), "floormod(f, 16)");
  EXPECT_EQ(S(jo * 16 + ji, r), "floormod(f, 128)");
  EXPECT_EQ(S(outer * 128 + jo * 16 + ji, r), "f");
  EXPECT_EQ(S(floordiv(floordiv(f, 16), 8)), "floordiv(f, 128)");
  EXPECT_EQ(S(floordiv(f, 512), r), "0");
  // TVM's split-index cases.
  Var x("x");
  EXPECT_EQ(S(floordiv(x, 3) * 3 + floormod(x, 3)), "x");
  EXPECT_EQ(S(floordiv(x, 6) * 6 + floormod(floordiv(x, 3), 2) * 3 + floormod(x, 3)), "x");
  EXPECT_EQ(S(floordiv(floordiv(floormod(x, 16), 2) * 2, 4)), "floordiv(floormod(x, 16), 4)");
  EXPECT_EQ(S(floordiv(floormod(x, 2), 8)), "0");
  EXPECT_EQ(S(truncdiv(x, 3) * 3 + truncmod(x, 3)), "x");
}

TEST(Simplify, TruncDivNeedsNonNegative) {
  Var x("x");
  // (17 + 48x)/16 is not 3x + 1 for negative x.
  EXPECT_EQ(S(truncdiv(17 + 48 * x, 16)), "(((x*48) + 17)/16)");
  RangeMap r{{x.get(), Range(0, 11)}};
  EXPECT_EQ(S(truncdiv(17 + 48 * x, 16), r), "((x*3) + 1)");
  EXPECT_EQ(S(floordiv(17 + 48 * x, 16)), "((x*3) + 1)");
  EXPECT_EQ(S(truncmod(x + 16, 16), r), "x");
}

TEST(Simplify, TvmComplexCase) {
  Var x("x"), y("y");
  RangeMap r{{x.get(), Range(0, 6)}, {y.get(), Range(0, 128)}};
  Expr a = x * 128 + y;
  Expr res = (((truncdiv(truncdiv(truncmod(a, 1296), 36) * 2 + 1, 2) * 36) +
               truncdiv(truncmod(a, 36) * 2 + 1, 2)) -
              truncmod(a, 1296)) +
             1;
  EXPECT_EQ(S(res, r), "1");
}

TEST(Simplify, Comparisons) {
  Var x("x"), n("n");
  RangeMap r{{x.get(), Range(0, 10)}};
  EXPECT_EQ(S(x < 10, r), "(bool)1");
  EXPECT_EQ(S(x >= 10, r), "(bool)0");
  EXPECT_EQ(S(x < 9, r), "(x < 9)");
  EXPECT_EQ(S((x + 1) < 5), "(x < 4)");
  EXPECT_EQ(S(x - 2 < 3), "(x < 5)");
  EXPECT_EQ(S(x > 5), "(5 < x)");
  EXPECT_EQ(S(x * 4 < 10), "(x < 3)");
  EXPECT_EQ(S(x * 4 <= 10), "(x <= 2)");
  EXPECT_EQ(S(x * 2 == 7), "(bool)0");
  EXPECT_EQ(S(x + 3 == n), "(x == (n + -3))");
  EXPECT_TRUE(can_prove(x < 10, r));
  EXPECT_TRUE(can_prove(x * 2 + 1 <= 19, r));
  EXPECT_FALSE(can_prove(x < 9, r));
  EXPECT_FALSE(can_prove(x < n, r));
  // Symbolic range: i in [0, n) proves i < n.
  Var i("i");
  RangeMap rn{{i.get(), Range(0, n)}};
  EXPECT_TRUE(can_prove(i < n, rn));
  EXPECT_TRUE(can_prove(i + 1 <= n, rn));
  EXPECT_FALSE(can_prove(i + 1 < n, rn));
  EXPECT_EQ(S(!(x < n)), "(n <= x)");
  // An undefined range (an unbound thread axis) is just unknown.
  RangeMap ru{{i.get(), Range()}, {x.get(), Range(0, n)}};
  EXPECT_FALSE(can_prove(i < n, ru));
  EXPECT_TRUE(can_prove(x < n, ru));
}

TEST(Simplify, MinMaxLogicSelect) {
  Var x("x"), y("y");
  RangeMap r{{x.get(), Range(0, 10)}};
  EXPECT_EQ(S(min(x, x + 1)), "x");
  EXPECT_EQ(S(max(x, x + 1)), "(x + 1)");
  EXPECT_EQ(S(max(x, 0), r), "x");
  EXPECT_EQ(S(min(x, 16), r), "x");
  EXPECT_EQ(S(min(x, y), r), "min(x, y)");
  EXPECT_EQ(S(min(min(x, 4), 8)), "min(x, 4)");
  EXPECT_EQ(S(x < 10 && y < 3, r), "(y < 3)");
  EXPECT_EQ(S(x < 10 || y < 3, r), "(bool)1");
  EXPECT_EQ(S(!(x < 0), r), "(bool)1");
  EXPECT_EQ(S(select(x < 10, y, y + 1), r), "y");
  EXPECT_EQ(S(select(y < 3, x + 1 - 1, x)), "x");
  // Both values of a select are evaluated: the condition simplifies a value without loads, but
  // the clamp that keeps a load in bounds where it is false stays; if_then_else reads only where
  // its condition holds, and drops it.
  Var buf = Var::buffer("buf", DataType::Float(32));
  Expr ld = LoadNode::make(DataType::Float(32), buf, min(y, 6));
  EXPECT_EQ(S(select(y < 7, min(y, 6) + 1, 0)), "select((y < 7), (y + 1), 0)");
  EXPECT_EQ(S(select(y < 7, ld, Expr(0.f))), "select((y < 7), buf[min(y, 6)], 0f)");
  EXPECT_EQ(S(if_then_else(y < 7, ld, Expr(0.f))), "tvm_if_then_else((y < 7), buf[y], 0f)");
  EXPECT_EQ(S(likely(x < 10), r), "(bool)1");
  EXPECT_EQ(S(likely(x < 5), r), "likely((x < 5))");
  Var v("v");
  // A let of a non-trivial value stays (TVM keeps it too); of a variable it is substituted.
  EXPECT_EQ(S(LetNode::make(v, x + 1, v * 2)), "(let v = (x + 1) in (v*2))");
  EXPECT_EQ(S(LetNode::make(v, y, v * 2 + v)), "(y*3)");
  EXPECT_EQ(S(LetNode::make(v, x + 1, y)), "y");
}

TEST(Simplify, FloatsOnlyFold) {
  Var x("x", DataType::Float(32));
  EXPECT_EQ(S(Expr(1.5f) + Expr(2.5f)), "4f");
  EXPECT_EQ(S((x + 1.0f) - 1.0f), "((x + 1f) - 1f)");
  EXPECT_EQ(S(x * 1.0f), "(x*1f)");
  EXPECT_EQ(S(x * 2.0f + x * 3.0f), "((x*2f) + (x*3f))");
  Var i("i");
  EXPECT_EQ(S(cast(DataType::Float(32), i * 2 - i) * 0.5f), "(float32(i)*0.5f)");
}

TEST(Simplify, Vectors) {
  Var x("x"), y("y");
  Expr r = RampNode::make(x, 1, 4) + BroadcastNode::make(y, 4);
  EXPECT_EQ(S(r), "ramp((x + y), 1, 4)");
  Expr b = BroadcastNode::make(x * 2, 4) + BroadcastNode::make(x, 4);
  EXPECT_EQ(S(b), "x4((x*3))");
  Expr m = RampNode::make(x, 1, 4) * BroadcastNode::make(Expr(4), 4);
  EXPECT_EQ(S(m), "ramp((x*4), 4, 4)");
  Expr rr = RampNode::make(x * 4, 1, 4) - RampNode::make(x * 4, 1, 4);
  EXPECT_EQ(S(rr), "x4(0)");
}

TEST(Simplify, ConstUpperBound) {
  Var i("i"), j("j");
  RangeMap r{{i.get(), Range(0, 8)}, {j.get(), Range(0, 4)}};
  int64_t hi = 0;
  ASSERT_TRUE(const_upper_bound(i * 4 + j, r, &hi));
  EXPECT_EQ(hi, 31);
  ASSERT_TRUE(const_upper_bound(floormod(i * 5, 3) + 1, r, &hi));
  EXPECT_EQ(hi, 3);
  Var n("n", DataType::Int(64));
  EXPECT_FALSE(const_upper_bound(n + 1, r, &hi));
  int64_t lo = 0;
  ASSERT_TRUE(const_lower_bound(i - j, r, &lo));
  EXPECT_EQ(lo, -3);
}

// ---- statements --------------------------------------------------------------------------------

Stmt guarded_store(const Var& buf, const Var& i, int64_t bound) {
  return IfThenElseNode::make(likely(i < Expr(static_cast<int>(bound))),
                              StoreNode::make(buf, Expr(1.0f), i));
}

TEST(SimplifyStmt, LikelyGuards) {
  Var buf = Var::buffer("A", DataType::Float(32));
  Var i("i");
  // i in [0, 1024) with bound 1000: the guard stays.
  Stmt needed = ForNode::make(i, 0, 1024, ForKind::Serial, guarded_store(buf, i, 1000));
  Stmt s1 = simplify(needed);
  EXPECT_NE(to_string(s1).find("likely((i < 1000))"), std::string::npos) << s1;
  // i in [0, 1000): provably true, dropped.
  Stmt redundant = ForNode::make(i, 0, 1000, ForKind::Serial, guarded_store(buf, i, 1000));
  Stmt s2 = simplify(redundant);
  EXPECT_EQ(to_string(s2).find("if"), std::string::npos) << s2;
  auto* f = s2.as<ForNode>();
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->body.as<StoreNode>());
}

TEST(SimplifyStmt, BranchConditionsBoundTheThenCase) {
  Var buf = Var::buffer("A", DataType::Float(32));
  Var i("i");
  // if (likely(i < 1000)) { if (likely(i < 1000)) A[i] = ...; A[min(i, 999)] = ... }
  Stmt inner =
      BlockNode::make({guarded_store(buf, i, 1000), StoreNode::make(buf, Expr(2.0f), min(i, 999))});
  Stmt s =
      ForNode::make(i, 0, 1024, ForKind::Serial, IfThenElseNode::make(likely(i < 1000), inner));
  std::string text = to_string(simplify(s));
  size_t first = text.find("likely");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find("likely", first + 1), std::string::npos) << text;
  EXPECT_EQ(text.find("min("), std::string::npos) << text;
  // The fact does not leak past the branch.
  Stmt after = BlockNode::make({IfThenElseNode::make(i < 10, StoreNode::make(buf, Expr(1.0f), i)),
                                guarded_store(buf, i, 1000)});
  std::string t2 = to_string(simplify(ForNode::make(i, 0, 1024, ForKind::Serial, after)));
  EXPECT_NE(t2.find("likely((i < 1000))"), std::string::npos) << t2;
}

TEST(SimplifyStmt, ThreadExtentRanges) {
  Var buf = Var::buffer("A", DataType::Float(32));
  IterVar bx(Range(), Var("blockIdx.x"), IterVarType::ThreadIndex, "blockIdx.x");
  IterVar tx(Range(), Var("threadIdx.x"), IterVarType::ThreadIndex, "threadIdx.x");
  Expr idx = bx.var() * 64 + tx.var();
  Stmt guard =
      IfThenElseNode::make(likely(idx < bx.var() * 64 + 64), StoreNode::make(buf, Expr(1.0f), idx));
  Stmt s = AttrStmtNode::make(bx, AttrKind::ThreadExtent, 16,
                              AttrStmtNode::make(tx, AttrKind::ThreadExtent, 64, guard));
  std::string text = to_string(simplify(s));
  EXPECT_EQ(text.find("likely"), std::string::npos) << text;
  // With 1000 elements the guard on blocks of 64 stays (16*64 = 1024 > 1000).
  Stmt g2 = IfThenElseNode::make(likely(idx < 1000), StoreNode::make(buf, Expr(1.0f), idx));
  Stmt s2 = AttrStmtNode::make(bx, AttrKind::ThreadExtent, 16,
                               AttrStmtNode::make(tx, AttrKind::ThreadExtent, 64, g2));
  std::string t2 = to_string(simplify(s2));
  EXPECT_NE(t2.find("likely((((blockIdx.x*64) + threadIdx.x) < 1000))"), std::string::npos) << t2;
}

TEST(SimplifyStmt, TrivialLoopsAndLets) {
  Var buf = Var::buffer("A", DataType::Float(32));
  Var i("i"), j("j"), v("v");
  Stmt zero = ForNode::make(i, 0, 0, ForKind::Serial, StoreNode::make(buf, Expr(1.0f), i));
  EXPECT_TRUE(is_nop(simplify(zero)));
  Stmt one = ForNode::make(i, 3, 1, ForKind::Serial, StoreNode::make(buf, Expr(1.0f), i * 2));
  Stmt r1 = simplify(one);
  auto* st = r1.as<StoreNode>();
  ASSERT_TRUE(st);
  EXPECT_EQ(to_string(st->index), "6");
  Stmt let = LetStmtNode::make(v, j, StoreNode::make(buf, Expr(1.0f), v + 1));
  Stmt r2 = simplify(let);
  auto* st2 = r2.as<StoreNode>();
  ASSERT_TRUE(st2);
  EXPECT_EQ(to_string(st2->index), "(j + 1)");
  Stmt kept = LetStmtNode::make(v, j * 2, StoreNode::make(buf, Expr(1.0f), v + 1));
  EXPECT_TRUE(simplify(kept).as<LetStmtNode>());
  // if (false) drops, the else branch stays.
  Stmt ite = IfThenElseNode::make(Expr(1) < Expr(0), StoreNode::make(buf, Expr(1.0f), 0),
                                  StoreNode::make(buf, Expr(2.0f), 1));
  Stmt r3 = simplify(ite);
  auto* st3 = r3.as<StoreNode>();
  ASSERT_TRUE(st3);
  EXPECT_EQ(to_string(st3->index), "1");
  // Block of no-ops collapses.
  Stmt blk = BlockNode::make({zero, ForNode::make(j, 0, 4, ForKind::Serial, zero)});
  EXPECT_TRUE(is_nop(simplify(blk)));
}

// lane_offsets: vector indices as one scalar base plus constant per-lane offsets (what the LLVM
// backend turns into one dense load and a shuffle).
TEST(LaneOffsets, RampsSumsScalesAndDivisions) {
  Var x("x"), y("y");
  auto offs = [](const Expr& e) {
    auto lo = lane_offsets(e);
    return lo ? lo->offsets : std::vector<int64_t>{-999};
  };
  // strided ramp plus a broadcast: base x*84 + y, offsets 0, 3, 6, 9
  Expr strided = RampNode::make(x * 84, 3, 4) + BroadcastNode::make(y, 4);
  auto lo = lane_offsets(strided);
  ASSERT_TRUE(lo);
  EXPECT_EQ(lo->offsets, (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(to_string(simplify(lo->base)), "((x*84) + y)");
  EXPECT_EQ(lo->span(), 10);
  EXPECT_EQ(lo->min_offset(), 0);
  // reversed lanes, scaled by a constant
  EXPECT_EQ(offs(RampNode::make(x, -1, 3) * BroadcastNode::make(2, 3)),
            (std::vector<int64_t>{0, -2, -4}));
  // each element repeated three times: floordiv of a ramp whose base is a multiple of 3
  Expr rep = FloorDivNode::make(RampNode::make(x * 48, 1, 6), BroadcastNode::make(3, 6));
  lo = lane_offsets(rep);
  ASSERT_TRUE(lo);
  EXPECT_EQ(lo->offsets, (std::vector<int64_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(to_string(simplify(lo->base)), "(x*16)");
  EXPECT_EQ(offs(FloorModNode::make(RampNode::make(x * 48, 1, 6), BroadcastNode::make(3, 6))),
            (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  // int64 cast of an int32 index
  EXPECT_EQ(offs(cast(DataType::Int(64, 4), RampNode::make(x, 2, 4))),
            (std::vector<int64_t>{0, 2, 4, 6}));
  // not constant offsets: the base is not known to be a multiple of the divisor, a ramp with a
  // variable stride, a product of two vectors, a scalar
  EXPECT_FALSE(
      lane_offsets(FloorDivNode::make(RampNode::make(x * 16, 1, 6), BroadcastNode::make(3, 6))));
  EXPECT_FALSE(lane_offsets(RampNode::make(x, y, 4)));
  EXPECT_FALSE(lane_offsets(RampNode::make(x, 1, 4) * RampNode::make(y, 1, 4)));
  EXPECT_FALSE(lane_offsets(x + 1));
}

}  // namespace
}  // namespace minitvm::ir
