// The device passes (transform): split_host_device and thread_sync on hand-built kernels
// (tests/common/ir_kernels.h), checked against the kernels, launches and barriers they must give.
#include <gtest/gtest.h>

#include <array>

#include "common/ir_kernels.h"
#include "minitvm/ir/functor.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/transform/split_host_device.h"
#include "minitvm/transform/thread_sync.h"

namespace minitvm {
namespace {

using namespace ir;
using namespace testing;

bool is_sync(const Stmt& s) {
  auto* e = s.as<EvaluateNode>();
  auto* c = e ? e->value.as<CallNode>() : nullptr;
  return c && c->op == Intrinsic::StorageSync;
}

TEST(SplitHostDevice, VectorAdd) {
  PrimFunc f = vector_add();
  auto split = transform::split_host_device(f);
  ASSERT_EQ(split.kernels.size(), 1u);
  const PrimFunc& k = split.kernels[0];
  EXPECT_EQ(k.name(), "add_kernel0");
  ASSERT_EQ(k->params.size(), 3u);  // first use: C (stored), then A, B
  EXPECT_EQ(k->params[0].name(), "C");
  EXPECT_EQ(k->params[1].name(), "A");
  EXPECT_EQ(k->params[2].name(), "B");
  ASSERT_EQ(k->thread_axes.size(), 2u);
  EXPECT_EQ(k->thread_axes[0].thread_tag(), "blockIdx.x");
  EXPECT_EQ(k->thread_axes[1].thread_tag(), "threadIdx.x");
  ASSERT_EQ(split.launches.size(), 1u);
  EXPECT_EQ(split.launches[0].kernel, "add_kernel0");
  EXPECT_EQ(split.launches[0].args, (std::vector<int>{2, 0, 1}));  // C, A, B by parameter index
  EXPECT_EQ(split.launches[0].grid, (std::array<int64_t, 3>{16, 1, 1}));
  EXPECT_EQ(split.launches[0].block, (std::array<int64_t, 3>{64, 1, 1}));
  EXPECT_TRUE(split.temporaries.empty());
  // The host body launches the kernel by name with its arguments and the extents.
  std::string host = to_string(split.host->body);
  EXPECT_NE(host.find("tvm_call_packed"), std::string::npos) << host;
  EXPECT_NE(host.find("add_kernel0"), std::string::npos) << host;
}

TEST(SplitHostDevice, TwoKernels) {
  auto split = transform::split_host_device(two_kernels());
  ASSERT_EQ(split.kernels.size(), 2u);
  EXPECT_EQ(split.launches[0].kernel, "twok_kernel0");
  EXPECT_EQ(split.launches[1].kernel, "twok_kernel1");
  EXPECT_EQ(split.launches[0].args, (std::vector<int>{1, 0}));     // T, A
  EXPECT_EQ(split.launches[1].args, (std::vector<int>{2, 1, 0}));  // B, T, A
  EXPECT_EQ(split.launches[0].block[0], 128);
  EXPECT_EQ(split.launches[1].grid[0], 4);
}

TEST(SplitHostDevice, RejectsNonConstantExtent) {
  auto A = make_param("A", DataType::Float(32), {16});
  Var n("n");
  IterVar tx(Range(0, n), Var("threadIdx.x"), IterVarType::ThreadIndex, "threadIdx.x");
  Stmt body =
      AttrStmtNode::make(tx, AttrKind::ThreadExtent, n,
                         StoreNode::make(A.var(), make_const(DataType::Float(32), 1.0), Expr(tx)));
  PrimFunc f = PrimFunc::make("dyn", {A.var(), n}, {{A.var().get(), A.buf}}, body);
  EXPECT_THROW(transform::split_host_device(f), CompileError);
}

TEST(ThreadSync, MatmulGetsLoopCarriedAndRawBarriers) {
  PrimFunc f = tiled_matmul();
  Stmt synced = transform::thread_sync(f->body, StorageScope::Shared);
  // Find the k.outer loop and check its body: sync; A.shared = ..; B.shared = ..; sync; for k.inner
  const ForNode* kloop = nullptr;
  int syncs = 0;
  post_order_visit(synced, [&](const Ref<Object>& n) {
    if (auto* fl = n.as<ForNode>(); fl && fl->loop_var.name() == "k.outer") kloop = fl;
    if (auto* e = n.as<EvaluateNode>(); e && is_sync(Stmt(e))) ++syncs;
  });
  ASSERT_NE(kloop, nullptr);
  EXPECT_EQ(syncs, 2);
  auto* blk = kloop->body.as<BlockNode>();
  ASSERT_NE(blk, nullptr);
  ASSERT_EQ(blk->stmts.size(), 5u) << to_string(kloop->body);
  EXPECT_TRUE(is_sync(blk->stmts[0])) << "loop-carried WAR barrier first";
  EXPECT_EQ(blk->stmts[1].as<StoreNode>()->buffer_var.name(), "A.shared");
  EXPECT_EQ(blk->stmts[2].as<StoreNode>()->buffer_var.name(), "B.shared");
  EXPECT_TRUE(is_sync(blk->stmts[3])) << "RAW barrier before the compute loop";
  EXPECT_NE(blk->stmts[4].as<ForNode>(), nullptr);
  // Idempotent: the barriers already present satisfy the pass.
  Stmt again = transform::thread_sync(synced, StorageScope::Shared);
  EXPECT_TRUE(again.same_as(synced));
}

TEST(ThreadSync, SameIndexNeedsNoBarrierAndConditionIsAnError) {
  Var s = Var::buffer("S", DataType::Float(32));
  auto O = make_param("O", DataType::Float(32), {32});
  IterVar tx = thread_axis("threadIdx.x", 32);
  Expr x = tx;
  Expr ld = LoadNode::make(DataType::Float(32), s, x);
  // Each thread reads back only its own element: no barrier.
  Stmt own = BlockNode::make({StoreNode::make(s, make_const(DataType::Float(32), 1.0), x),
                              StoreNode::make(O.var(), ld, x)});
  Stmt a = AllocateNode::make(s, DataType::Float(32), {32}, StorageScope::Shared, Expr(), own);
  EXPECT_TRUE(transform::thread_sync(a, StorageScope::Shared).same_as(a));
  // Reading a neighbour's element: RAW barrier between the two statements.
  Expr nb = LoadNode::make(DataType::Float(32), s, 31 - x);
  Stmt other = BlockNode::make({StoreNode::make(s, make_const(DataType::Float(32), 1.0), x),
                                StoreNode::make(O.var(), nb, x)});
  Stmt b = transform::thread_sync(
      AllocateNode::make(s, DataType::Float(32), {32}, StorageScope::Shared, Expr(), other),
      StorageScope::Shared);
  auto* blk = b.as<AllocateNode>()->body.as<BlockNode>();
  ASSERT_NE(blk, nullptr);
  ASSERT_EQ(blk->stmts.size(), 3u);
  EXPECT_TRUE(is_sync(blk->stmts[1]));
  // The same exchange inside an if: a barrier there would be divergent -> CompileError.
  Stmt cond = AllocateNode::make(s, DataType::Float(32), {32}, StorageScope::Shared, Expr(),
                                 IfThenElseNode::make(x < 16, other));
  EXPECT_THROW(transform::thread_sync(cond, StorageScope::Shared), CompileError);
  // Local buffers are not tracked.
  Stmt loc = AllocateNode::make(s, DataType::Float(32), {32}, StorageScope::Local, Expr(), other);
  EXPECT_TRUE(transform::thread_sync(loc, StorageScope::Shared).same_as(loc));
}

TEST(ThreadSync, FetchLoopNeedsNoBarrierBetweenItsOwnStores) {
  // for i in 0..4: S[tx*4 + i] = 1; O[tx] = S[127 - tx*4]: the loop's store against itself in
  // the previous iteration is not a conflict (one thread, program order); the read after the loop
  // needs one RAW barrier.
  Var s = Var::buffer("S", DataType::Float(32)), i("i");
  auto O = make_param("O", DataType::Float(32), {32});
  IterVar tx = thread_axis("threadIdx.x", 32);
  Expr x = tx;
  Stmt fill = ForNode::make(i, 0, 4, ForKind::Serial,
                            StoreNode::make(s, make_const(DataType::Float(32), 1.0), x * 4 + i));
  Stmt use = StoreNode::make(O.var(), LoadNode::make(DataType::Float(32), s, 127 - x * 4), x);
  Stmt a = AllocateNode::make(s, DataType::Float(32), {128}, StorageScope::Shared, Expr(),
                              BlockNode::make({fill, use}));
  Stmt synced = transform::thread_sync(a, StorageScope::Shared);
  auto* blk = synced.as<AllocateNode>()->body.as<BlockNode>();
  ASSERT_NE(blk, nullptr);
  ASSERT_EQ(blk->stmts.size(), 3u) << to_string(synced);
  EXPECT_TRUE(blk->stmts[0].same_as(fill)) << to_string(synced);
  EXPECT_TRUE(is_sync(blk->stmts[1]));
}

}  // namespace
}  // namespace minitvm
