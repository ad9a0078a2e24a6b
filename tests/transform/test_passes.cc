// Per-pass before/expected tests: build IR by hand, run one pass, compare structurally.
#include <gtest/gtest.h>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/transform/passes.h"

using namespace minitvm;
using namespace minitvm::ir;
using namespace minitvm::transform;

namespace {
const DataType f32 = DataType::Float(32);

void expect_ir_eq(const Stmt& got, const Stmt& expected, const Stmt& input) {
  EXPECT_TRUE(structural_equal(got, expected, /*map_free_vars=*/true))
      << "Input:\n" << input << "Output:\n" << got << "Expected:\n" << expected;
}
Stmt store(const Var& buf, Expr v, Expr idx) { return StoreNode::make(buf, v, idx); }
Expr load(const Var& buf, Expr idx) { return LoadNode::make(f32.with_lanes(idx.dtype().lanes()), buf, idx); }
}  // namespace

TEST(UnrollLoop, ExplicitUnrollOfUserLoop) {
  Var i("i"), A = Var::buffer("A", f32);
  Stmt before = ForNode::make(i, 0, 3, ForKind::Unrolled, store(A, Expr(1.0f), i));
  Stmt expected = BlockNode::make({store(A, Expr(1.0f), 0), store(A, Expr(1.0f), 1), store(A, Expr(1.0f), 2)});
  expect_ir_eq(simplify(unroll_loop(before)), expected, before);
}

TEST(UnrollLoop, AutoMaxStepUnderPragmaAndNonExplicit) {
  Var i("i"), j("j"), A = Var::buffer("A", f32);
  IterVar iv(Range(0, 4), i, IterVarType::DataPar);
  Stmt inner = ForNode::make(j, 0, 4, ForKind::Serial, store(A, Expr(1.0f), i * 4 + j));
  Stmt loop = ForNode::make(i, 0, 4, ForKind::Serial, inner);
  // 4*4 stores = 16 <= 16: both loops unrolled. unroll_explicit = 0 keeps them as `unrolled` loops.
  Stmt before = AttrStmtNode::make(iv, AttrKind::PragmaAutoUnrollMaxStep, Expr(16),
                                   AttrStmtNode::make(iv, AttrKind::PragmaUnrollExplicit, Expr(0), loop));
  Stmt expected = ForNode::make(i, 0, 4, ForKind::Unrolled,
                                ForNode::make(j, 0, 4, ForKind::Unrolled, store(A, Expr(1.0f), i * 4 + j)));
  expect_ir_eq(unroll_loop(before), expected, before);
  // With max step 8 only the inner loop (4 stores) qualifies.
  Stmt before8 = AttrStmtNode::make(iv, AttrKind::PragmaAutoUnrollMaxStep, Expr(8),
                                    AttrStmtNode::make(iv, AttrKind::PragmaUnrollExplicit, Expr(0), loop));
  Stmt expected8 = ForNode::make(i, 0, 4, ForKind::Serial,
                                 ForNode::make(j, 0, 4, ForKind::Unrolled, store(A, Expr(1.0f), i * 4 + j)));
  expect_ir_eq(unroll_loop(before8), expected8, before8);
  // Without the pragma (max step 0) nothing changes.
  EXPECT_TRUE(unroll_loop(loop).same_as(loop));
}

TEST(VectorizeLoop, ContiguousBecomesRamp) {
  Var i("i"), A = Var::buffer("A", f32), B = Var::buffer("B", f32);
  Stmt before = ForNode::make(i, 0, 4, ForKind::Vectorized, store(B, load(A, i) * 2.0f, i));
  Expr ramp = RampNode::make(Expr(0), Expr(1), 4);
  Stmt expected = store(B, MulNode::make(load(A, ramp), BroadcastNode::make(Expr(2.0f), 4)), ramp);
  expect_ir_eq(vectorize_loop(before), expected, before);
}

TEST(VectorizeLoop, GuardedBodyFallsBackToSerial) {
  Var i("i"), A = Var::buffer("A", f32);
  Stmt body = IfThenElseNode::make(likely(i < 3), store(A, Expr(1.0f), i));
  Stmt before = ForNode::make(i, 0, 4, ForKind::Vectorized, body);
  Stmt expected = ForNode::make(i, 0, 4, ForKind::Serial, body);
  expect_ir_eq(vectorize_loop(before), expected, before);
}

TEST(RemoveNoOp, DropsEmptyLoopsAndBranches) {
  Var i("i"), A = Var::buffer("A", f32);
  Stmt keep = store(A, Expr(1.0f), 0);
  Stmt before = BlockNode::make({ForNode::make(i, 0, 8, ForKind::Serial, make_nop()),
                                 IfThenElseNode::make(i < 2, make_nop()), keep});
  expect_ir_eq(remove_no_op(before), keep, before);
}

TEST(InjectVirtualThread, DuplicatesLeafStatementsAndExpandsPrivateBuffers) {
  Var vx("vx"), i("i"), A = Var::buffer("A", f32), L = Var::buffer("L", f32), S = Var::buffer("S", f32);
  IterVar iv(Range(), vx, IterVarType::ThreadIndex, "vthread");
  // S (shared) does not depend on vx: loaded once. L (local) is written with vx-dependent data: one copy
  // per virtual thread, so it grows to 2 * 4 and accesses are offset by vx * 4.
  Stmt body = AllocateNode::make(
      L, f32, {Expr(4)}, StorageScope::Local, Expr(),
      BlockNode::make({store(S, Expr(1.0f), 0),
                       ForNode::make(i, 0, 4, ForKind::Serial, store(L, load(A, vx * 4 + i) + load(S, 0), i)),
                       store(A, load(L, 0), vx)}));
  Stmt before = AttrStmtNode::make(iv, AttrKind::VirtualThread, Expr(2), body);
  Var vs("vx.s");
  Stmt expected = AllocateNode::make(
      L, f32, {Expr(8)}, StorageScope::Local, Expr(),
      BlockNode::make({store(S, Expr(1.0f), 0),
                       ForNode::make(i, 0, 4, ForKind::Serial,
                                     BlockNode::make({store(L, load(A, i) + load(S, 0), i),
                                                      store(L, load(A, i + 4) + load(S, 0), i + 4)})),
                       store(A, load(L, 0), 0), store(A, load(L, 4), 1)}));
  expect_ir_eq(simplify(inject_virtual_thread(before)), simplify(expected), before);
}

TEST(StorageRewrite, HoistsKernelAllocations) {
  Var tx("threadIdx.x"), i("i"), S = Var::buffer("S", f32), A = Var::buffer("A", f32);
  IterVar tiv(Range(), tx, IterVarType::ThreadIndex, "threadIdx.x");
  Stmt alloc = AllocateNode::make(S, f32, {Expr(8)}, StorageScope::Shared, Expr(),
                                  BlockNode::make({store(S, Expr(1.0f), tx), store(A, load(S, i), tx)}));
  Stmt before = AttrStmtNode::make(tiv, AttrKind::ThreadExtent, Expr(8), ForNode::make(i, 0, 4, ForKind::Serial, alloc));
  Stmt expected = AttrStmtNode::make(
      tiv, AttrKind::ThreadExtent, Expr(8),
      AllocateNode::make(S, f32, {Expr(8)}, StorageScope::Shared, Expr(),
                         ForNode::make(i, 0, 4, ForKind::Serial,
                                       BlockNode::make({store(S, Expr(1.0f), tx), store(A, load(S, i), tx)}))));
  expect_ir_eq(storage_rewrite(before), expected, before);
}
