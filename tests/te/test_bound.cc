// Bound inference on its own (src/te/bound.h): the ranges and storage scopes infer_bound returns
// for split, fused, attached and thread-bound schedules, against values computed by hand.
#include <gtest/gtest.h>

#include <minitvm/minitvm.h>

#include "minitvm/te/schedule_ops.h"
#include "te/bound.h"

using namespace minitvm;
using te::detail::BoundMap;
using te::detail::infer_bound;

namespace {
const DataType f32 = DataType::Float(32);

/** `e` simplifies to the constant `v`. */
void expect_const(const Expr& e, int64_t v, const std::string& what) {
  ASSERT_TRUE(e.defined()) << what;
  Expr s = ir::simplify(e);
  const int64_t* c = ir::as_const_int(s);
  ASSERT_TRUE(c) << what << ": " << s << " is not a constant";
  EXPECT_EQ(*c, v) << what;
}

/** The range bound inference gave `iv` is [min, min + extent). */
void expect_range(const BoundMap& b, const IterVar& iv, int64_t min, int64_t extent) {
  auto it = b.ranges.find(iv.get());
  ASSERT_NE(it, b.ranges.end()) << "no range for " << iv->var->name_hint;
  expect_const(it->second.min(), min, iv->var->name_hint + " min");
  expect_const(it->second.extent(), extent, iv->var->name_hint + " extent");
}

/** The range bound inference gave the loop (or thread) variable `v` is [0, extent). */
void expect_var_range(const BoundMap& b, const Var& v, int64_t extent) {
  auto it = b.var_ranges.find(v.get());
  ASSERT_NE(it, b.var_ranges.end()) << "no range for variable " << v->name_hint;
  expect_const(it->second.min(), 0, v->name_hint + " min");
  expect_const(it->second.extent(), extent, v->name_hint + " extent");
}
}  // namespace

TEST(InferBound, NonDividingSplit) {
  // 100 = 6 * 16 + 4: outer ceil(100 / 16) = 7 iterations, inner 16.
  auto A = te::placeholder({100}, f32, "A");
  auto C = te::compute(
      {100}, [&](Var i) { return A(i) * 2.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  IterVar i = C.op().axis()[0];
  auto [io, ii] = s[C].split(i, 16);
  BoundMap b = infer_bound(s);
  expect_range(b, i, 0, 100);
  expect_range(b, io, 0, 7);
  expect_range(b, ii, 0, 16);
  expect_var_range(b, io->var, 7);
  expect_var_range(b, ii->var, 16);
  EXPECT_EQ(b.scope(s[C].ptr()), ir::StorageScope::Global);
  // Placeholders are not computed: no ranges, no scope.
  EXPECT_EQ(b.scopes.count(s[A].node()), 0u);
}

TEST(InferBound, SplitByNpartsOfAFusedAxis) {
  // fuse(12 x 10) = 120; split_nparts 7: inner ceil(120 / 7) = 18, outer 7.
  auto A = te::placeholder({12, 10}, f32, "A");
  auto C = te::compute(
      {12, 10}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  auto ax = C.op().axis();
  IterVar f = s[C].fuse(ax[0], ax[1]);
  auto [fo, fi] = s[C].split_nparts(f, 7);
  BoundMap b = infer_bound(s);
  expect_range(b, ax[0], 0, 12);
  expect_range(b, ax[1], 0, 10);
  expect_range(b, f, 0, 120);
  expect_range(b, fo, 0, 7);
  expect_range(b, fi, 0, 18);
  // The split and the fused axis are not leaves: only the leaves' variables get a range.
  expect_var_range(b, fo->var, 7);
  expect_var_range(b, fi->var, 18);
  EXPECT_EQ(b.var_ranges.count(f->var.get()), 0u);
}

TEST(InferBound, AttachedStencilNeedsOneIterationsWindow) {
  // C[i] = B[i] + B[i + 1] over 64, split by 8; B (65) computed at C's outer axis needs, per outer
  // iteration co, B[co * 8 .. co * 8 + 8]: 9 elements starting at co * 8.
  auto A = te::placeholder({65}, f32, "A");
  auto B = te::compute(
      {65}, [&](Var i) { return A(i) * 3.0f; }, "B");
  auto C = te::compute(
      {64}, [&](Var i) { return B(i) + B(i + 1); }, "C");
  auto s = te::create_schedule({C.op()});
  auto [co, ci] = s[C].split(C.op().axis()[0], 8);
  s[B].compute_at(s[C], co);
  BoundMap b = infer_bound(s);
  expect_range(b, co, 0, 8);
  expect_range(b, ci, 0, 8);
  IterVar bi = B.op().axis()[0];
  auto it = b.ranges.find(bi.get());
  ASSERT_NE(it, b.ranges.end());
  EXPECT_TRUE(ir::can_prove(it->second.min() == co->var * 8, b.var_ranges)) << it->second.min();
  expect_const(it->second.extent(), 9, "B extent");
  // Its loop runs over the window, from 0.
  expect_var_range(b, bi->var, 9);
  EXPECT_EQ(b.scope(s[B].ptr()), ir::StorageScope::Global);
}

TEST(InferBound, AttachedInThreadsIsLocalInBlocksShared) {
  // Matmul tile: C (64 x 64) tiled 16 x 16, blocks on the outer axes, threads on the inner ones.
  // AA = A cached at the block level: shared, relaxed over the threads, so the whole 16-row band
  // of A: rows [by * 16, by * 16 + 16) x all 32 columns. CL computed at the thread level: local,
  // one element per thread.
  auto A = te::placeholder({64, 32}, f32, "A"), Bm = te::placeholder({32, 64}, f32, "B");
  auto k = te::reduce_axis({0, 32}, "k");
  auto C = te::compute(
      {64, 64}, [&](Var i, Var j) { return te::sum(A(i, k) * Bm(k, j), {k}); }, "C");
  auto s = te::create_schedule({C.op()});
  auto CL = s.cache_write(C, "local");
  auto AA = s.cache_read(A, "shared", {CL.op()});
  auto ax = C.op().axis();
  auto t = s[C].tile(ax[0], ax[1], 16, 16);
  IterVar by = te::thread_axis("blockIdx.y"), bx = te::thread_axis("blockIdx.x");
  IterVar ty = te::thread_axis("threadIdx.y"), tx = te::thread_axis("threadIdx.x");
  s[C].bind(t.xo, by).bind(t.yo, bx).bind(t.xi, ty).bind(t.yi, tx);
  s[CL].compute_at(s[C], t.yi);
  s[AA].compute_at(s[C], t.yo);
  BoundMap b = infer_bound(s);
  expect_range(b, t.xo, 0, 4);
  expect_range(b, t.xi, 0, 16);
  expect_var_range(b, by->var, 4);
  expect_var_range(b, tx->var, 16);
  EXPECT_EQ(b.scope(s[CL].ptr()), ir::StorageScope::Local);
  EXPECT_EQ(b.scope(s[AA].ptr()), ir::StorageScope::Shared);
  EXPECT_EQ(b.scope(s[C].ptr()), ir::StorageScope::Global);
  auto cl_ax = CL.op().axis();
  // One element per thread: row by * 16 + ty, column bx * 16 + tx.
  const Range& crow = b.ranges.at(cl_ax[0].get());
  const Range& ccol = b.ranges.at(cl_ax[1].get());
  EXPECT_TRUE(ir::can_prove(crow.min() == by->var * 16 + ty->var, b.var_ranges)) << crow.min();
  EXPECT_TRUE(ir::can_prove(ccol.min() == bx->var * 16 + tx->var, b.var_ranges)) << ccol.min();
  expect_const(crow.extent(), 1, "CL rows");
  expect_const(ccol.extent(), 1, "CL columns");
  auto aa_ax = AA.op().axis();
  const Range& rows = b.ranges.at(aa_ax[0].get());
  EXPECT_TRUE(ir::can_prove(rows.min() == by->var * 16, b.var_ranges)) << rows.min();
  expect_const(rows.extent(), 16, "AA rows");
  expect_range(b, aa_ax[1], 0, 32);
  expect_range(b, CL.op().reduce_axis()[0], 0, 32);
}

TEST(InferBound, MatchesWhatLoweringReports) {
  auto A = te::placeholder({4, 4}, f32, "A");
  auto B = te::compute(
      {4, 4}, [&](Var i, Var j) { return A(i, j) + 2.0f; }, "B");
  auto C = te::compute(
      {4, 4}, [&](Var i, Var j) { return B(i, j) * 3.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  auto f = s[C].fuse(C.op().axis()[0], C.op().axis()[1]);
  auto [fo, fi] = s[C].split(f, 4);
  s[B].compute_at(s[C], fo);
  BoundMap b = infer_bound(s);
  // One row of B per outer iteration (TVM's inferbound.rst example).
  const Range& brow = b.ranges.at(B.op().axis()[0].get());
  EXPECT_TRUE(ir::can_prove(brow.min() == fo->var, b.var_ranges)) << brow.min();
  expect_const(brow.extent(), 1, "B rows");
  expect_range(b, B.op().axis()[1], 0, 4);
  te::ScheduleLowering l = te::schedule_to_stmt(s);
  ASSERT_EQ(l.bounds.size(), b.ranges.size());
  for (auto& [iv, r] : b.ranges) {
    ASSERT_TRUE(l.bounds.count(iv)) << iv->var->name_hint;
    EXPECT_TRUE(ir::structural_equal(l.bounds.at(iv).min(), r.min())) << iv->var->name_hint;
    EXPECT_TRUE(ir::structural_equal(l.bounds.at(iv).extent(), r.extent())) << iv->var->name_hint;
  }
}

TEST(StageScope, SetScopeParsesNames) {
  auto A = te::placeholder({8}, f32, "A");
  auto B = te::compute(
      {8}, [&](Var i) { return A(i) + 1.0f; }, "B");
  auto C = te::compute(
      {8}, [&](Var i) { return B(i) * 2.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  s[B].set_scope("shared");
  EXPECT_EQ(s[B].node()->scope, ir::StorageScope::Shared);
  s[B].set_scope("global");  // global and "" leave the scope to inference
  EXPECT_FALSE(s[B].node()->scope.has_value());
  s[B].set_scope("local");
  s[B].set_scope("");
  EXPECT_FALSE(s[B].node()->scope.has_value());
  EXPECT_THROW(s[B].set_scope("texture"), CompileError);
  auto BL = s.cache_read(B, "global", {C.op()});  // a cache pins its scope, global included
  EXPECT_EQ(s[BL].node()->scope, ir::StorageScope::Global);
}
