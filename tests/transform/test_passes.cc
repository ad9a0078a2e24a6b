// Per-pass before/expected tests: build IR by hand, run one pass, compare structurally.
#include <gtest/gtest.h>

#include <sstream>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/te/schedule.h"
#include "minitvm/transform/lower.h"
#include "minitvm/transform/passes.h"
#include "minitvm/transform/thread_sync.h"

using namespace minitvm;
using namespace minitvm::ir;
using namespace minitvm::transform;

namespace {
const DataType f32 = DataType::Float(32);

void expect_ir_eq(const Stmt& got, const Stmt& expected, const Stmt& input) {
  EXPECT_TRUE(structural_equal(got, expected, /*map_free_vars=*/true)) << "Input:\n"
                                                                       << input << "Output:\n"
                                                                       << got << "Expected:\n"
                                                                       << expected;
}
Stmt store(const Var& buf, Expr v, Expr idx) {
  return StoreNode::make(buf, v, idx);
}
Expr load(const Var& buf, Expr idx) {
  return LoadNode::make(f32.with_lanes(idx.dtype().lanes()), buf, idx);
}
}  // namespace

TEST(UnrollLoop, ExplicitUnrollOfUserLoop) {
  Var i("i"), A = Var::buffer("A", f32);
  Stmt before = ForNode::make(i, 0, 3, ForKind::Unrolled, store(A, Expr(1.0f), i));
  Stmt expected =
      BlockNode::make({store(A, Expr(1.0f), 0), store(A, Expr(1.0f), 1), store(A, Expr(1.0f), 2)});
  expect_ir_eq(simplify(unroll_loop(before)), expected, before);
}

TEST(UnrollLoop, AutoMaxStepUnderPragmaAndNonExplicit) {
  Var i("i"), j("j"), A = Var::buffer("A", f32);
  IterVar iv(Range(0, 4), i, IterVarType::DataPar);
  Stmt inner = ForNode::make(j, 0, 4, ForKind::Serial, store(A, Expr(1.0f), i * 4 + j));
  Stmt loop = ForNode::make(i, 0, 4, ForKind::Serial, inner);
  // 4*4 stores = 16 <= 16: both loops unrolled. unroll_explicit = 0 keeps them as `unrolled` loops.
  Stmt before =
      AttrStmtNode::make(iv, AttrKind::PragmaAutoUnrollMaxStep, Expr(16),
                         AttrStmtNode::make(iv, AttrKind::PragmaUnrollExplicit, Expr(0), loop));
  Stmt expected =
      ForNode::make(i, 0, 4, ForKind::Unrolled,
                    ForNode::make(j, 0, 4, ForKind::Unrolled, store(A, Expr(1.0f), i * 4 + j)));
  expect_ir_eq(unroll_loop(before), expected, before);
  // With max step 8 only the inner loop (4 stores) qualifies.
  Stmt before8 =
      AttrStmtNode::make(iv, AttrKind::PragmaAutoUnrollMaxStep, Expr(8),
                         AttrStmtNode::make(iv, AttrKind::PragmaUnrollExplicit, Expr(0), loop));
  Stmt expected8 =
      ForNode::make(i, 0, 4, ForKind::Serial,
                    ForNode::make(j, 0, 4, ForKind::Unrolled, store(A, Expr(1.0f), i * 4 + j)));
  expect_ir_eq(unroll_loop(before8), expected8, before8);
  // Without the pragma (max step 0) nothing changes.
  EXPECT_TRUE(unroll_loop(loop).same_as(loop));
}

// A split tail (70 = 4 x 16 + 6): the iterations where the guard holds for every lane lose it,
// the last keeps it (its lanes 0..5). Guards that hold everywhere or nowhere, scalar guards and
// guards not using the serial loop leave the loop as it was.
TEST(LoopPartition, PeelsTheMaskedTailOfASplit) {
  Var o("o"), i("i"), A = Var::buffer("A", f32), B = Var::buffer("B", f32);
  auto nest = [&](int64_t n, ForKind inner_kind, Expr extra = Expr()) {
    Expr cond = o * 16 + i < Expr(static_cast<int>(n));
    if (extra.defined()) cond = AndNode::make(cond, extra);
    Stmt st = store(B, load(A, o * 16 + i) + 1.0f, o * 16 + i);
    return ForNode::make(
        o, 0, 5, ForKind::Serial,
        ForNode::make(i, 0, 16, inner_kind, IfThenElseNode::make(likely(cond), st)));
  };
  Stmt before = nest(70, ForKind::Vectorized);
  Stmt st = store(B, load(A, o * 16 + i) + 1.0f, o * 16 + i);
  Stmt main =
      ForNode::make(o, 0, 4, ForKind::Serial, ForNode::make(i, 0, 16, ForKind::Vectorized, st));
  Stmt tail_st = store(B, load(A, i + 64) + 1.0f, i + 64);
  Stmt tail =
      ForNode::make(i, 0, 16, ForKind::Vectorized, IfThenElseNode::make(likely(i < 6), tail_st));
  expect_ir_eq(simplify(loop_partition(before)), BlockNode::make({main, tail}), before);
  // Holds nowhere in a whole iteration (n < 16) or is provable everywhere: unchanged.
  for (int64_t n : {10, 80}) {
    Stmt b = nest(n, ForKind::Vectorized);
    EXPECT_TRUE(loop_partition(b).same_as(b)) << n;
  }
  // A scalar inner loop, or a guard with a condition on a variable not bounded here.
  Stmt scalar = nest(70, ForKind::Serial);
  EXPECT_TRUE(loop_partition(scalar).same_as(scalar));
  Var n("n");
  Stmt unknown = nest(70, ForKind::Vectorized, n < 3);
  EXPECT_TRUE(loop_partition(unknown).same_as(unknown));
}

// A register tile's split tail after unrolling: 14 columns in tiles of 5, the fifth column's
// update guarded by `xo < 2` inside the kernel-row, kernel-column and channel loops (or the
// channel loops of a 1x1 kernel). The tile loop splits into two full tiles without the guard and
// the last tile without the fifth column. A guard under one loop only, guards that also use an
// inner loop's variable, and guards that hold everywhere leave the loop as it was.
TEST(PartitionGuardedTiles, SplitsTheLastPartialTile) {
  Var xo("xo"), kh("kh"), kw("kw"), c("c"), A = Var::buffer("A", f32), B = Var::buffer("B", f32);
  auto upd = [&](Expr col) {
    return store(B, load(B, col) + load(A, kh * 48 + kw * 16 + c + col), col);
  };
  auto nest = [&](Expr guard, int depth) {
    Stmt body =
        BlockNode::make({upd(xo * 5), IfThenElseNode::make(likely(guard), upd(xo * 5 + 4))});
    if (depth >= 1) body = ForNode::make(c, 0, 16, ForKind::Serial, body);
    if (depth >= 2) body = ForNode::make(kw, 0, 3, ForKind::Serial, body);
    if (depth >= 3) body = ForNode::make(kh, 0, 3, ForKind::Serial, body);
    return ForNode::make(xo, 0, 3, ForKind::Serial, body);
  };
  Stmt before = nest(xo < 2, 3);
  auto inner = [&](Stmt b) {
    return ForNode::make(
        kh, 0, 3, ForKind::Serial,
        ForNode::make(kw, 0, 3, ForKind::Serial, ForNode::make(c, 0, 16, ForKind::Serial, b)));
  };
  Stmt main = ForNode::make(xo, 0, 2, ForKind::Serial,
                            inner(BlockNode::make({upd(xo * 5), upd(xo * 5 + 4)})));
  Stmt tail = inner(store(B, load(B, Expr(10)) + load(A, kh * 48 + kw * 16 + c + 10), Expr(10)));
  expect_ir_eq(partition_guarded_tiles(before), BlockNode::make({simplify(main), tail}), before);
  // Two loops: a 1x1 kernel's input-channel chunks and lanes (here kw and c).
  Stmt before2 = nest(xo < 2, 2);
  auto inner2 = [&](Stmt b) {
    return ForNode::make(kw, 0, 3, ForKind::Serial, ForNode::make(c, 0, 16, ForKind::Serial, b));
  };
  Stmt main2 = ForNode::make(xo, 0, 2, ForKind::Serial,
                             inner2(BlockNode::make({upd(xo * 5), upd(xo * 5 + 4)})));
  Stmt tail2 = inner2(store(B, load(B, Expr(10)) + load(A, kh * 48 + kw * 16 + c + 10), Expr(10)));
  expect_ir_eq(partition_guarded_tiles(before2), BlockNode::make({simplify(main2), tail2}),
               before2);
  Stmt one = nest(xo < 2, 1);
  EXPECT_TRUE(partition_guarded_tiles(one).same_as(one));
  Stmt mixed = nest(xo * 5 + c < 12, 3);
  EXPECT_TRUE(partition_guarded_tiles(mixed).same_as(mixed));
  Stmt always = nest(xo < 3, 3);
  EXPECT_TRUE(partition_guarded_tiles(always).same_as(always));
}

TEST(VectorizeLoop, ContiguousBecomesRamp) {
  Var i("i"), A = Var::buffer("A", f32), B = Var::buffer("B", f32);
  Stmt before = ForNode::make(i, 0, 4, ForKind::Vectorized, store(B, load(A, i) * 2.0f, i));
  Expr ramp = RampNode::make(Expr(0), Expr(1), 4);
  Stmt expected = store(B, MulNode::make(load(A, ramp), BroadcastNode::make(Expr(2.0f), 4)), ramp);
  expect_ir_eq(vectorize_loop(before), expected, before);
}

// A lane-dependent guard (a split tail) becomes the predicate of the stores and loads under it.
TEST(VectorizeLoop, GuardedBodyIsPredicated) {
  Var i("i"), A = Var::buffer("A", f32), B = Var::buffer("B", f32);
  Stmt body = IfThenElseNode::make(likely(i < 3), store(A, load(B, i) * 2.0f, i));
  Stmt before = ForNode::make(i, 0, 4, ForKind::Vectorized, body);
  Expr ramp = RampNode::make(Expr(0), Expr(1), 4);
  Expr mask = LTNode::make(ramp, BroadcastNode::make(Expr(3), 4));
  Expr value = MulNode::make(LoadNode::make(f32.with_lanes(4), B, ramp, mask),
                             BroadcastNode::make(Expr(2.0f), 4));
  Stmt expected = StoreNode::make(A, value, ramp, mask);
  expect_ir_eq(vectorize_loop(before), expected, before);
}

// The conjuncts of a guard that do not use the lane (an outer split's `r < 56` next to the
// vector split's `i < 3`, as TE joins them in one likely()) stay a scalar `if` around the vector
// statement; only the lane-dependent ones become the predicate.
TEST(VectorizeLoop, LaneFreeConjunctsOfAGuardStayAScalarIf) {
  Var i("i"), r("r"), A = Var::buffer("A", f32), B = Var::buffer("B", f32);
  Expr cond = AndNode::make(LTNode::make(r, Expr(56)), LTNode::make(i, Expr(3)));
  Stmt body = IfThenElseNode::make(likely(cond), store(A, load(B, r * 4 + i) * 2.0f, r * 4 + i));
  Stmt before = ForNode::make(i, 0, 4, ForKind::Vectorized, body);
  Expr ramp = RampNode::make(r * 4, Expr(1), 4);
  Expr mask = LTNode::make(RampNode::make(Expr(0), Expr(1), 4), BroadcastNode::make(Expr(3), 4));
  Expr value = MulNode::make(LoadNode::make(f32.with_lanes(4), B, ramp, mask),
                             BroadcastNode::make(Expr(2.0f), 4));
  Stmt expected = IfThenElseNode::make(likely(LTNode::make(r, Expr(56))),
                                       StoreNode::make(A, value, ramp, mask));
  expect_ir_eq(simplify(vectorize_loop(before)), simplify(expected), before);
  // A conjunct on a let variable bound to a lane-dependent value depends on the lane too.
  Var a("a", f32);
  Expr cond2 = AndNode::make(GTNode::make(a, Expr(0.0f)), LTNode::make(r, Expr(56)));
  Stmt let_before = ForNode::make(
      i, 0, 4, ForKind::Vectorized,
      LetStmtNode::make(a, load(B, i), IfThenElseNode::make(likely(cond2), store(A, a, i))));
  Var av("a", f32.with_lanes(4));
  Expr ramp0 = RampNode::make(Expr(0), Expr(1), 4);
  Stmt let_expected = LetStmtNode::make(
      av, load(B, ramp0),
      IfThenElseNode::make(
          likely(LTNode::make(r, Expr(56))),
          StoreNode::make(A, av, ramp0, GTNode::make(av, BroadcastNode::make(Expr(0.0f), 4)))));
  expect_ir_eq(simplify(vectorize_loop(let_before)), simplify(let_expected), let_before);
}

// An else branch, or a load that does not depend on the lane under the guard, keeps the loop
// serial.
TEST(VectorizeLoop, GuardWithElseFallsBackToSerialAUniformLoadIsMasked) {
  Var i("i"), A = Var::buffer("A", f32), B = Var::buffer("B", f32);
  Stmt with_else = IfThenElseNode::make(i < 3, store(A, Expr(1.0f), i), store(A, Expr(2.0f), i));
  Stmt before = ForNode::make(i, 0, 4, ForKind::Vectorized, with_else);
  expect_ir_eq(vectorize_loop(before), ForNode::make(i, 0, 4, ForKind::Serial, with_else), before);
  // A lane-independent load under the guard (softmax's row max in a split tail): one element
  // repeated in every lane, read under the guard's mask like the store.
  Stmt uniform = IfThenElseNode::make(i < 3, store(A, load(B, 0), i));
  Stmt ub = ForNode::make(i, 0, 4, ForKind::Vectorized, uniform);
  Expr ramp4 = RampNode::make(Expr(0), Expr(1), 4);
  Expr mask = LTNode::make(ramp4, BroadcastNode::make(Expr(3), 4));
  Stmt expected = StoreNode::make(
      A, LoadNode::make(f32.with_lanes(4), B, BroadcastNode::make(Expr(0), 4), mask), ramp4, mask);
  expect_ir_eq(vectorize_loop(ub), expected, ub);
}

// A let whose value depends on the lane binds a vector variable (tuple reductions compute every
// combined value before the first store).
TEST(VectorizeLoop, LaneDependentLetBindsAVector) {
  Var i("i"), a("a", f32), A = Var::buffer("A", f32), B = Var::buffer("B", f32);
  Stmt before =
      ForNode::make(i, 0, 4, ForKind::Vectorized,
                    LetStmtNode::make(a, load(B, i) * 2.0f, store(A, AddNode::make(a, a), i)));
  Expr ramp = RampNode::make(Expr(0), Expr(1), 4);
  Var av("a", f32.with_lanes(4));
  Stmt expected =
      LetStmtNode::make(av, MulNode::make(load(B, ramp), BroadcastNode::make(Expr(2.0f), 4)),
                        store(A, AddNode::make(av, av), ramp));
  expect_ir_eq(vectorize_loop(before), expected, before);
}

// Non-ramp indices with constant lane offsets over a short span (here each element read by three
// lanes) vectorize; other vector indices (a product of lanes) keep the loop serial.
TEST(VectorizeLoop, ShortSpanIndicesAndIfThenElse) {
  Var i("i"), A = Var::buffer("A", f32), B = Var::buffer("B", f32);
  Stmt rep = ForNode::make(i, 0, 6, ForKind::Vectorized, store(B, load(A, floordiv(i, 3)), i));
  Expr ramp6 = RampNode::make(Expr(0), Expr(1), 6);
  Stmt rep_expected =
      store(B, load(A, FloorDivNode::make(ramp6, BroadcastNode::make(Expr(3), 6))), ramp6);
  expect_ir_eq(vectorize_loop(rep), rep_expected, rep);
  Stmt square = ForNode::make(i, 0, 4, ForKind::Vectorized, store(B, load(A, i * i), i));
  expect_ir_eq(vectorize_loop(square),
               ForNode::make(i, 0, 4, ForKind::Serial, store(B, load(A, i * i), i)), square);
  // tvm_if_then_else with a lane-dependent condition stays a (vector) call: code generation masks
  // its loads
  Stmt ite = ForNode::make(i, 0, 4, ForKind::Vectorized,
                           store(B, if_then_else(i < 3, load(A, i + 1), Expr(0.0f)), i));
  Expr ramp4 = RampNode::make(Expr(0), Expr(1), 4);
  Expr call = CallNode::make(
      f32.with_lanes(4), Intrinsic::IfThenElse,
      {LTNode::make(ramp4, BroadcastNode::make(Expr(3), 4)),
       load(A, RampNode::make(Expr(1), Expr(1), 4)), BroadcastNode::make(Expr(0.0f), 4)});
  expect_ir_eq(vectorize_loop(ite), store(B, call, ramp4), ite);
}

TEST(RemoveNoOp, DropsEmptyLoopsAndBranches) {
  Var i("i"), A = Var::buffer("A", f32);
  Stmt keep = store(A, Expr(1.0f), 0);
  Stmt before = BlockNode::make({ForNode::make(i, 0, 8, ForKind::Serial, make_nop()),
                                 IfThenElseNode::make(i < 2, make_nop()), keep});
  expect_ir_eq(remove_no_op(before), keep, before);
}

TEST(InjectVirtualThread, DuplicatesLeafStatementsAndExpandsPrivateBuffers) {
  Var vx("vx"), i("i"), A = Var::buffer("A", f32), L = Var::buffer("L", f32),
                        S = Var::buffer("S", f32);
  IterVar iv(Range(), vx, IterVarType::ThreadIndex, "vthread");
  // S (shared) does not depend on vx: loaded once. L (local) is written with vx-dependent data: one
  // copy per virtual thread, so it grows to 2 * 4 and accesses are offset by vx * 4.
  Stmt body = AllocateNode::make(
      L, f32, {Expr(4)}, StorageScope::Local, Expr(),
      BlockNode::make(
          {store(S, Expr(1.0f), 0),
           ForNode::make(i, 0, 4, ForKind::Serial, store(L, load(A, vx * 4 + i) + load(S, 0), i)),
           store(A, load(L, 0), vx)}));
  Stmt before = AttrStmtNode::make(iv, AttrKind::VirtualThread, Expr(2), body);
  Var vs("vx.s");
  Stmt expected = AllocateNode::make(
      L, f32, {Expr(8)}, StorageScope::Local, Expr(),
      BlockNode::make(
          {store(S, Expr(1.0f), 0),
           ForNode::make(i, 0, 4, ForKind::Serial,
                         BlockNode::make({store(L, load(A, i) + load(S, 0), i),
                                          store(L, load(A, i + 4) + load(S, 0), i + 4)})),
           store(A, load(L, 0), 0), store(A, load(L, 4), 1)}));
  expect_ir_eq(simplify(inject_virtual_thread(before)), simplify(expected), before);
}

TEST(StorageRewrite, HoistsKernelAllocations) {
  Var tx("threadIdx.x"), i("i"), S = Var::buffer("S", f32), A = Var::buffer("A", f32);
  IterVar tiv(Range(), tx, IterVarType::ThreadIndex, "threadIdx.x");
  Stmt alloc =
      AllocateNode::make(S, f32, {Expr(8)}, StorageScope::Shared, Expr(),
                         BlockNode::make({store(S, Expr(1.0f), tx), store(A, load(S, i), tx)}));
  Stmt before = AttrStmtNode::make(tiv, AttrKind::ThreadExtent, Expr(8),
                                   ForNode::make(i, 0, 4, ForKind::Serial, alloc));
  Stmt expected = AttrStmtNode::make(
      tiv, AttrKind::ThreadExtent, Expr(8),
      AllocateNode::make(
          S, f32, {Expr(8)}, StorageScope::Shared, Expr(),
          ForNode::make(i, 0, 4, ForKind::Serial,
                        BlockNode::make({store(S, Expr(1.0f), tx), store(A, load(S, i), tx)}))));
  expect_ir_eq(storage_rewrite(before), expected, before);
}

namespace {
/** attr threadIdx.x (and .y); allocate reduce_temp0; tvm_thread_allreduce(1, value, cond,
 * reduce_temp0, reduced threads...) under reduce_scope(sum); B[out_idx] = reduce_temp0[0]. */
struct AllreduceIR {
  Var tx{"threadIdx.x"}, ty{"threadIdx.y"};
  IterVar tiv{Range(), tx, IterVarType::ThreadIndex, "threadIdx.x"};
  IterVar tyv{Range(), ty, IterVarType::ThreadIndex, "threadIdx.y"};
  Var A = Var::buffer("A", f32), B = Var::buffer("B", f32), res = Var::buffer("reduce_temp0", f32);
  CommReducer sum = sum_reducer(f32);
  Stmt call(Expr value, Expr cond, std::vector<Expr> threads) {
    std::vector<Expr> args{make_const(DataType::UInt(32), int64_t{1}), value, cond, res};
    args.insert(args.end(), threads.begin(), threads.end());
    Stmt c =
        EvaluateNode::make(CallNode::make(DataType::Handle(), Intrinsic::ThreadAllreduce, args));
    return AttrStmtNode::make(sum, AttrKind::ReduceScope, Expr(0), c);
  }
  Stmt with_result(Stmt reduce, Expr out_idx) {
    return AllocateNode::make(res, f32, {Expr(1)}, StorageScope::Local, Expr(),
                              BlockNode::make({reduce, store(B, load(res, 0), out_idx)}));
  }
};
Stmt barrier() {
  return make_storage_sync(StorageScope::Shared);
}
Expr const_true() {
  return make_const(DataType::Bool(), int64_t{1});
}
}  // namespace

TEST(LowerThreadAllreduce, NonPowerOfTwoTreeWithBarriers) {
  // 3 threads: fold slot 2 into slot 0 first (3 - 2 = 1 active thread), then 1 into 0.
  AllreduceIR t;
  Stmt before = AttrStmtNode::make(t.tiv, AttrKind::ThreadExtent, Expr(3),
                                   t.with_result(t.call(load(t.A, t.tx), const_true(), {t.tx}), 0));
  Var buf = Var::buffer("red_buf0", f32);
  auto step = [&](int active, int off) {
    return IfThenElseNode::make(t.tx < active,
                                store(buf, load(buf, t.tx) + load(buf, t.tx + off), t.tx));
  };
  Stmt lowered = AllocateNode::make(
      buf, f32, {Expr(3)}, StorageScope::Shared, Expr(),
      BlockNode::make({store(buf, load(t.A, t.tx), t.tx), barrier(), step(1, 2), barrier(),
                       step(1, 1), barrier(), store(t.res, load(buf, 0), 0)}));
  Stmt expected =
      AttrStmtNode::make(t.tiv, AttrKind::ThreadExtent, Expr(3), t.with_result(lowered, 0));
  expect_ir_eq(lower_thread_allreduce(before), expected, before);
}

TEST(LowerThreadAllreduce, GroupsConditionAndSingleThread) {
  AllreduceIR t;
  // Reduce over threadIdx.x (8) in groups of threadIdx.y (2): slots ty * 8 + tx of a 16-slot
  // buffer; the condition selects the identity for threads that do not contribute.
  Stmt before = AttrStmtNode::make(
      t.tyv, AttrKind::ThreadExtent, Expr(2),
      AttrStmtNode::make(
          t.tiv, AttrKind::ThreadExtent, Expr(8),
          t.with_result(t.call(load(t.A, t.ty * 8 + t.tx), t.tx < 5, {t.tx}), t.ty)));
  std::string got = to_string(lower_thread_allreduce(before));
  EXPECT_NE(got.find("allocate red_buf0[float32 * 16]"), std::string::npos) << got;
  EXPECT_NE(
      got.find("red_buf0[((threadIdx.y*8) + threadIdx.x)] = tvm_if_then_else((threadIdx.x < 5), "),
      std::string::npos)
      << got;
  EXPECT_NE(got.find("reduce_temp0[0] = red_buf0[(threadIdx.y*8)]"), std::string::npos) << got;
  size_t syncs = 0;
  for (size_t p = got.find("tvm_storage_sync"); p != std::string::npos;
       p = got.find("tvm_storage_sync", p + 1))
    ++syncs;
  EXPECT_EQ(syncs, 4u)
      << got;  // after the stores, and after each of the 3 steps (8 -> 4 -> 2 -> 1)
  EXPECT_EQ(got.find("tvm_thread_allreduce"), std::string::npos) << got;
  EXPECT_EQ(got.find("reduce_scope"), std::string::npos) << got;
  // One thread: no shared memory, the value is the result.
  Stmt single = AttrStmtNode::make(t.tiv, AttrKind::ThreadExtent, Expr(1),
                                   t.with_result(t.call(load(t.A, t.tx), const_true(), {t.tx}), 0));
  Stmt expected = AttrStmtNode::make(t.tiv, AttrKind::ThreadExtent, Expr(1),
                                     t.with_result(store(t.res, load(t.A, t.tx), 0), 0));
  expect_ir_eq(lower_thread_allreduce(single), expected, single);
}

TEST(LowerThreadAllreduce, Errors) {
  auto error_of = [](const Stmt& s) -> std::string {
    try {
      lower_thread_allreduce(s);
    } catch (const CompileError& e) {
      return e.what();
    }
    return "<no error>";
  };
  AllreduceIR t;
  // Under a condition on the thread index: not every thread reaches the barriers.
  Stmt divergent = AttrStmtNode::make(
      t.tiv, AttrKind::ThreadExtent, Expr(8),
      IfThenElseNode::make(t.tx < 4,
                           t.with_result(t.call(load(t.A, t.tx), const_true(), {t.tx}), 0)));
  std::string msg = error_of(divergent);
  EXPECT_NE(msg.find("inside a condition on the thread index"), std::string::npos) << msg;
  // threadIdx.y bound in the kernel, but not around the reduction.
  Stmt elsewhere = AttrStmtNode::make(
      t.tiv, AttrKind::ThreadExtent, Expr(8),
      BlockNode::make({t.with_result(t.call(load(t.A, t.tx), const_true(), {t.tx}), 0),
                       AttrStmtNode::make(t.tyv, AttrKind::ThreadExtent, Expr(2),
                                          store(t.B, Expr(0.0f), t.ty))}));
  msg = error_of(elsewhere);
  EXPECT_NE(msg.find("also binds threadIdx.y elsewhere"), std::string::npos) << msg;
  // Symbolic thread extent.
  Var n("n");
  Stmt symbolic =
      AttrStmtNode::make(t.tiv, AttrKind::ThreadExtent, n,
                         t.with_result(t.call(load(t.A, t.tx), const_true(), {t.tx}), 0));
  msg = error_of(symbolic);
  EXPECT_NE(msg.find("needs a constant extent for threadIdx.x"), std::string::npos) << msg;
}

namespace {
/** for k in 0..n: allocate S[4] shared { attr [S] double_buffer_scope { S[tx] = A[k*4 + tx] };
 *  B[k*4 + tx] = S[3 - tx] } under threadIdx.x (4). */
struct DoubleBufferIR {
  Var tx{"threadIdx.x"}, k{"k"}, A = Var::buffer("A", f32), B = Var::buffer("B", f32),
                                 S = Var::buffer("S", f32);
  IterVar tiv{Range(), tx, IterVarType::ThreadIndex, "threadIdx.x"};
  Stmt make(int n) {
    Stmt producer = AttrStmtNode::make(S, AttrKind::DoubleBufferScope, Expr(1),
                                       store(S, load(A, k * 4 + tx), tx));
    Stmt alloc =
        AllocateNode::make(S, f32, {Expr(4)}, StorageScope::Shared, Expr(),
                           BlockNode::make({producer, store(B, load(S, 3 - tx), k * 4 + tx)}));
    return AttrStmtNode::make(tiv, AttrKind::ThreadExtent, Expr(4),
                              ForNode::make(k, 0, n, ForKind::Serial, alloc));
  }
};
int count_barriers(const Stmt& s) {
  int n = 0;
  post_order_visit(s, [&](const Ref<Object>& o) {
    if (auto* c = o.as<CallNode>(); c && c->op == Intrinsic::StorageSync) ++n;
  });
  return n;
}
}  // namespace

TEST(InjectDoubleBuffer, TwoHalvesPrefetchAndTail) {
  DoubleBufferIR t;
  Stmt before = t.make(5);
  // S doubles and moves around the loop; iteration 0's copy goes first; iteration i prefetches
  // i + 1 into half (i + 1) % 2 and reads half i % 2; the last iteration is a tail without
  // prefetch.
  Var ko("k.outer");
  Stmt prefetch = AttrStmtNode::make(
      t.S, AttrKind::DoubleBufferWrite, Expr(1),
      store(t.S, load(t.A, (ko + 1) * 4 + t.tx), t.tx + floormod(ko + 1, 2) * 4));
  Stmt loop = ForNode::make(
      ko, 0, 4, ForKind::Serial,
      BlockNode::make(
          {prefetch, store(t.B, load(t.S, (3 - t.tx) + floormod(ko, 2) * 4), ko * 4 + t.tx)}));
  Stmt expected = AttrStmtNode::make(
      t.tiv, AttrKind::ThreadExtent, Expr(4),
      AllocateNode::make(t.S, f32, {Expr(8)}, StorageScope::Shared, Expr(),
                         BlockNode::make({store(t.S, load(t.A, t.tx), t.tx), loop,
                                          store(t.B, load(t.S, 3 - t.tx), t.tx + 16)})));
  Stmt got = simplify(inject_double_buffer(before, 1));
  expect_ir_eq(got, simplify(expected), before);
  // One barrier per iteration (at its head: the prefetch overwrites what the previous iteration
  // read, and this iteration reads what it prefetched), one before the tail; without the
  // double_buffer_write attribute the loop body needs two.
  Stmt synced = thread_sync(got, StorageScope::Shared);
  EXPECT_EQ(count_barriers(synced), 2) << synced;
  int loops = 0;
  post_order_visit(synced, [&](const Ref<Object>& o) {
    if (auto* f = o.as<ForNode>()) {
      ++loops;
      EXPECT_EQ(count_barriers(Stmt(f)), 1) << synced;
    }
  });
  EXPECT_EQ(loops, 1) << synced;
  EXPECT_EQ(count_barriers(thread_sync(before, StorageScope::Shared)), 2);
  // Extent 2: the split loop has one iteration and simplify removes it; without the loop the
  // prefetch is an ordinary write and the read of iteration 0 waits for it too.
  DoubleBufferIR t2;
  Stmt flat = thread_sync(simplify(inject_double_buffer(t2.make(2), 1)), StorageScope::Shared);
  EXPECT_EQ(count_barriers(flat), 2) << flat;
  int flat_loops = 0;
  post_order_visit(flat, [&](const Ref<Object>& o) { flat_loops += o.as<ForNode>() != nullptr; });
  EXPECT_EQ(flat_loops, 0) << flat;
}

TEST(InjectDoubleBuffer, SplitZeroAndExtentOne) {
  DoubleBufferIR t;
  // split_loop = 0 keeps the loop with the prefetch guarded by k + 1 < 3.
  Stmt got = simplify(inject_double_buffer(t.make(3), 0));
  std::ostringstream os;
  os << got;
  EXPECT_NE(os.str().find("allocate S[float32 * 8]"), std::string::npos) << got;
  EXPECT_NE(os.str().find("for (k, 0, 3)"), std::string::npos) << got;
  EXPECT_NE(os.str().find("double_buffer_write"), std::string::npos) << got;
  EXPECT_NE(os.str().find("if ((k < 2))"), std::string::npos) << got;
  // Extent 1: no alternation is needed; the result is the single-buffered loop body at k = 0.
  DoubleBufferIR u;
  Stmt one = remove_no_op(simplify(inject_double_buffer(u.make(1), 1)));
  Stmt want = AttrStmtNode::make(
      u.tiv, AttrKind::ThreadExtent, Expr(4),
      AllocateNode::make(u.S, f32, {Expr(8)}, StorageScope::Shared, Expr(),
                         BlockNode::make({store(u.S, load(u.A, u.tx), u.tx),
                                          store(u.B, load(u.S, 3 - u.tx), u.tx)})));
  expect_ir_eq(one, want, u.make(1));
  // A loop-free producer (its loop had extent 1 and was never emitted) stays single buffered.
  DoubleBufferIR w;
  Stmt flat = AllocateNode::make(w.S, f32, {Expr(4)}, StorageScope::Shared, Expr(),
                                 AttrStmtNode::make(w.S, AttrKind::DoubleBufferScope, Expr(1),
                                                    store(w.S, load(w.A, w.tx), w.tx)));
  Stmt flat_want = AllocateNode::make(w.S, f32, {Expr(4)}, StorageScope::Shared, Expr(),
                                      store(w.S, load(w.A, w.tx), w.tx));
  expect_ir_eq(inject_double_buffer(flat, 1), flat_want, flat);
}

namespace {
/** The IR text printed after pass `name` by lower() with print_after_each_pass. */
std::string section_after(const std::string& log, const std::string& name) {
  const std::string head = "// ---- after " + name + " ----\n";
  size_t a = log.find(head);
  if (a == std::string::npos) return "";
  a += head.size();
  return log.substr(a, log.find("// ---- after ", a) - a);
}
}  // namespace

// storage_flatten, before and expected: a producer computed at its consumer's outer loop is
// realized over the region one iteration reads (row i0, columns [3*i1.outer, +3)); flattening
// allocates those 3 elements, indexes them relative to the region's minimum, and flattens the bound
// arguments A and C row-major (4 x 6: i*6 + j).
TEST(StorageFlatten, RealizeRegionBecomesAllocationIndexedFromItsMinimum) {
  te::Tensor A = te::placeholder({4, 6}, f32, "A");
  te::Tensor B = te::compute(
      {4, 6}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "B");
  te::Tensor C = te::compute(
      {4, 6}, [&](Var i, Var j) { return B(i, j) * 2.0f; }, "C");
  te::Schedule s = te::create_schedule({C.op()});
  auto [xo, xi] = s[C].split(C.op().axis()[1], 3);
  s[B].compute_at(s[C], xo);
  std::ostringstream log;
  LowerOptions opt;
  opt.print_after_each_pass = &log;
  lower(s, {A, C}, "f", opt);
  const std::string before = section_after(log.str(), "schedule_ops");
  ASSERT_NE(before.find("realize B([i0, 1], [(i1.outer*3), 3])"), std::string::npos) << before;
  const std::string expected =
      "produce C {\n"
      "  for (i0, 0, 4) {\n"
      "    for (i1.outer, 0, 2) {\n"
      "      // attr [B] storage_scope = \"global\"\n"
      "      allocate B[float32 * 3]\n"
      "      produce B {\n"
      "        for (i1, 0, 3) {\n"
      "          B[i1] = (A[(((i0*6) + (i1.outer*3)) + i1)] + 1f)\n"
      "        }\n"
      "      }\n"
      "      for (i1.inner, 0, 3) {\n"
      "        C[(((i0*6) + (i1.outer*3)) + i1.inner)] = (B[i1.inner]*2f)\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n";
  EXPECT_EQ(section_after(log.str(), "storage_flatten"), expected) << "before:\n" << before;
}

// A tensor that is read but neither an argument nor realized cannot be flattened: the error names
// it.
TEST(StorageFlatten, UnboundTensorIsAnErrorNamingIt) {
  te::Tensor A = te::placeholder({8}, f32, "A");
  te::Tensor B = te::compute(
      {8}, [&](Var i) { return A(i) * 2.0f; }, "B");
  te::Schedule s = te::create_schedule({B.op()});
  try {
    lower(s, {B}, "f");  // A missing from the arguments
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("tensor A is used but is neither an argument"),
              std::string::npos)
        << e.what();
  }
}
