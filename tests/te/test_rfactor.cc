// Schedule::rfactor on the CPU (llvm): factored reductions against naive loops, the shapes and axes
// rfactor creates, its error messages, and set_store_predicate.
#include "test_util.h"

#include <limits>

using namespace minitvm;
using minitvm::testing::expect_close;
using minitvm::testing::random_vec;

namespace {
const DataType f32 = DataType::Float(32);

std::vector<int64_t> shape_of(const te::Tensor& t) {
  std::vector<int64_t> s;
  for (auto& e : t.shape()) s.push_back(*ir::as_const_int(e));
  return s;
}

/** B[i] = reduce_k A[i, k] for rows n, length m (sum or max). */
struct RowReduce {
  int n, m;
  bool is_max;
  te::Tensor A, B;
  te::IterVar k;
  RowReduce(int n_, int m_, bool max_) : n(n_), m(m_), is_max(max_) {
    A = te::placeholder({n, m}, f32, "A");
    k = te::reduce_axis({0, m}, "k");
    B = te::compute(
        {n}, [&](Var i) { return is_max ? te::max(A(i, k), {k}) : te::sum(A(i, k), {k}); }, "B");
  }
  std::vector<float> reference(const std::vector<float>& a) const {
    std::vector<float> r(n);
    for (int i = 0; i < n; ++i) {
      double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
      for (int j = 0; j < m; ++j)
        acc = is_max ? std::max(acc, double(a[i * m + j])) : acc + a[i * m + j];
      r[i] = float(acc);
    }
    return r;
  }
  void run_and_check(te::Schedule s, const std::string& what) {
    SCOPED_TRACE(what);
    auto a = random_vec(size_t(n) * m, 5);
    auto mod = build(s, {A, B}, "llvm", "rowred");
    auto bn = runtime::NDArray::empty({n}, f32);
    mod.get_function("rowred")(runtime::NDArray::from_vector(a, {n, m}), bn);
    expect_close(bn.to_vector<float>(), reference(a), 1e-5f);
  }
};
}  // namespace

TEST(Rfactor, SumInnerSplitFactorAxis0And1NonDividing) {
  for (int factor_axis : {0, 1, -1, -2}) {
    RowReduce r(13, 50, false);  // 50 = 4 * 12 + 2: the factored reduction is guarded
    auto s = te::create_schedule({r.B.op()});
    auto [ko, ki] = s[r.B].split(r.k, 4);
    (void)ko;
    auto rf = s.rfactor(r.B, ki, factor_axis);
    ASSERT_EQ(rf.size(), 1u);
    bool first = factor_axis == 0 || factor_axis == -2;
    EXPECT_EQ(shape_of(rf[0]),
              first ? (std::vector<int64_t>{4, 13}) : (std::vector<int64_t>{13, 4}));
    EXPECT_EQ(rf[0].name(), "B.rf");
    // The factored stage reduces over k.outer; B now sums over k.inner.v.
    ASSERT_EQ(rf[0].op().reduce_axis().size(), 1u);
    EXPECT_EQ(rf[0].op().reduce_axis()[0]->var->name_hint, "k.outer");
    EXPECT_EQ(*ir::as_const_int(rf[0].op().reduce_axis()[0]->dom.extent()), 13);
    ASSERT_EQ(s[r.B].op().reduce_axis().size(), 1u);
    EXPECT_EQ(s[r.B].op().reduce_axis()[0]->var->name_hint, "k.inner.v");
    EXPECT_TRUE(s[r.B].op().axis()[0].same_as(r.B.op().axis()[0]));  // B's axis handles stay valid
    std::string ir = ir::to_string(lower(s, {r.A, r.B}, "f"));
    EXPECT_NE(ir.find("produce B.rf"), std::string::npos) << ir;
    EXPECT_NE(ir.find("likely"), std::string::npos) << ir;  // k.outer*4 + k.inner < 50
    r.run_and_check(s, "factor_axis " + std::to_string(factor_axis));
  }
}

TEST(Rfactor, MaxOuterSplitAndScheduledFactorStage) {
  RowReduce r(9, 37, true);
  auto s = te::create_schedule({r.B.op()});
  auto [ko, ki] = s[r.B].split_nparts(r.k, 5);  // 5 parts of 8 over 37 elements
  (void)ki;
  te::Tensor BF = s.rfactor(r.B, ko, 1)[0];
  EXPECT_EQ(shape_of(BF), (std::vector<int64_t>{9, 5}));
  // Schedule the new stages like any other: the factored axis is data-parallel now.
  s[BF].parallel(s[BF].op().axis()[0]);
  s[BF].reorder({BF.op().axis()[0], BF.op().reduce_axis()[0], BF.op().axis()[1]});
  auto [bo, bi] = s[r.B].split(r.B.op().axis()[0], 4);
  (void)bi;
  s[BF].compute_at(s[r.B], bo);
  r.run_and_check(s, "max, nparts");
}

TEST(Rfactor, ReductionThatStartsAboveZeroAndHasACondition) {
  const int n = 6, m = 40;
  auto A = te::placeholder({n, m}, f32, "A");
  auto k = te::reduce_axis({3, 38}, "k");  // k in [3, 38)
  auto B = te::compute(
      {n}, [&](Var i) { return te::sum(A(i, k), {k}, (k % 3) != 1); }, "B");
  auto s = te::create_schedule({B.op()});
  auto [ko, ki] = s[B].split(k, 6);
  (void)ko;
  s.rfactor(B, ki);
  auto a = random_vec(n * m, 8);
  auto mod = build(s, {A, B}, "llvm", "f");
  auto bn = runtime::NDArray::empty({n}, f32);
  mod.get_function("f")(runtime::NDArray::from_vector(a, {n, m}), bn);
  std::vector<float> ref(n, 0.f);
  for (int i = 0; i < n; ++i)
    for (int j = 3; j < 38; ++j)
      if (j % 3 != 1) ref[i] += a[i * m + j];
  expect_close(bn.to_vector<float>(), ref, 1e-5f);
}

TEST(Rfactor, TwoReduceAxesUnrelatedOneKeepsItsSplit) {
  // C[i] = sum_{k,l} A[i, k, l]; rfactor the root axis k: l (and its split) moves to C.rf.
  const int n = 5, K = 7, L = 11;
  auto A = te::placeholder({n, K, L}, f32, "A");
  auto k = te::reduce_axis({0, K}, "k"), l = te::reduce_axis({0, L}, "l");
  auto C = te::compute(
      {n},
      [&](Var i) {
        return te::sum(A(i, k, l), {k, l});
      },
      "C");
  auto s = te::create_schedule({C.op()});
  auto [lo, li] = s[C].split(l, 3);
  auto rf = s.rfactor(C, k)[0];
  EXPECT_EQ(shape_of(rf), (std::vector<int64_t>{K, n}));
  auto leaves = s[rf].leaf_iter_vars();
  ASSERT_EQ(leaves.size(), 4u);  // k, i, l.outer, l.inner
  EXPECT_TRUE(leaves[2].same_as(lo));
  EXPECT_TRUE(leaves[3].same_as(li));
  s[rf].unroll(li);
  auto a = random_vec(n * K * L, 3);
  auto mod = build(s, {A, C}, "llvm", "f");
  auto cn = runtime::NDArray::empty({n}, f32);
  mod.get_function("f")(runtime::NDArray::from_vector(a, {n, K, L}), cn);
  std::vector<float> ref(n, 0.f);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < K * L; ++j) ref[i] += a[i * K * L + j];
  expect_close(cn.to_vector<float>(), ref, 1e-5f);
}

TEST(Rfactor, FusedReduceAxesThenSplit) {
  // Fuse k and l (7 * 9 = 63), split by 8 (63 does not divide): both roots come from the parts.
  const int n = 4, K = 7, L = 9;
  auto A = te::placeholder({n, K, L}, f32, "A");
  auto k = te::reduce_axis({0, K}, "k"), l = te::reduce_axis({0, L}, "l");
  auto C = te::compute(
      {n},
      [&](Var i) {
        return te::sum(A(i, k, l) * A(i, k, l), {k, l});
      },
      "C");
  auto s = te::create_schedule({C.op()});
  auto f = s[C].fuse(k, l);
  auto [fo, fi] = s[C].split(f, 8);
  (void)fi;
  auto rf = s.rfactor(C, fo)[0];
  EXPECT_EQ(shape_of(rf), (std::vector<int64_t>{8, n}));
  auto a = random_vec(n * K * L, 4);
  auto mod = build(s, {A, C}, "llvm", "f");
  auto cn = runtime::NDArray::empty({n}, f32);
  mod.get_function("f")(runtime::NDArray::from_vector(a, {n, K, L}), cn);
  std::vector<float> ref(n, 0.f);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < K * L; ++j) ref[i] += a[i * K * L + j] * a[i * K * L + j];
  expect_close(cn.to_vector<float>(), ref, 1e-5f);
}

TEST(Rfactor, TupleReducerArgmaxGivesTwoTensors) {
  const int n = 6, m = 29;
  auto A = te::placeholder({n, m}, f32, "A");
  auto k = te::reduce_axis({0, m}, "k");
  auto argmax = te::comm_reducer(
      [](const std::vector<Var>& x, const std::vector<Var>& y) {
        // Larger value wins; equal values: the smaller index (deterministic whatever the order).
        Expr take_y = (y[1] > x[1]) || ((y[1] == x[1]) && (y[0] < x[0]));
        return std::vector<Expr>{te::select(take_y, y[0], x[0]), te::select(take_y, y[1], x[1])};
      },
      {Expr(-1), ir::min_value(f32)}, "argmax");
  auto outs = te::compute_multi(
      {n},
      [&](const std::vector<Var>& i) {
        return te::reduce_multi(argmax, {Expr(k->var), A(i[0], k)}, {k});
      },
      "R");
  auto s = te::create_schedule({outs[0].op()});
  auto [ko, ki] = s[outs[0]].split(k, 4);
  (void)ko;
  auto rf = s.rfactor(outs[1], ki);  // either output names the reduction
  ASSERT_EQ(rf.size(), 2u);
  EXPECT_EQ(rf[0].dtype(), DataType::Int(32));
  EXPECT_EQ(rf[1].dtype(), f32);
  EXPECT_EQ(shape_of(rf[1]), (std::vector<int64_t>{4, n}));
  auto mod = build(s, {A, outs[0], outs[1]}, "llvm", "argmax");
  auto a = random_vec(n * m, 12);
  a[2 * m + 6] = 3.0f;
  a[2 * m + 27] = 3.0f;  // tie across different k.inner: index 6 must win
  minitvm::testing::expect_row_argmax(mod, a, n, m);
}

TEST(Rfactor, ConsumerReadsTheNewReduction) {
  // D = B * 2 after rfactor of B: D's reads follow the rewritten B.
  RowReduce r(8, 24, false);
  auto D = te::compute(
      {r.n}, [&](Var i) { return r.B(i) * 2.0f; }, "D");
  auto s = te::create_schedule({D.op()});
  auto [ko, ki] = s[r.B].split(r.k, 8);
  (void)ki;
  s.rfactor(r.B, ko);
  s[r.B].compute_at(s[D], D.op().axis()[0]);
  auto a = random_vec(r.n * r.m, 2);
  auto mod = build(s, {r.A, D}, "llvm", "f");
  auto dn = runtime::NDArray::empty({r.n}, f32);
  mod.get_function("f")(runtime::NDArray::from_vector(a, {r.n, r.m}), dn);
  auto ref = r.reference(a);
  for (auto& x : ref) x *= 2.0f;
  expect_close(dn.to_vector<float>(), ref, 1e-5f);
}

TEST(Rfactor, Errors) {
  RowReduce r(8, 16, false);
  auto D = te::compute(
      {8}, [&](Var i) { return r.B(i) + 1.0f; }, "D");
  auto s = te::create_schedule({D.op()});
  EXPECT_ERROR_HAS(s.rfactor(r.B, r.B.op().axis()[0]), "In schedule for B", "`i0`",
                   "data-parallel axis");
  EXPECT_ERROR_HAS(s.rfactor(D, D.op().axis()[0]), "In schedule for D", "not a reduction");
  EXPECT_ERROR_HAS(s.rfactor(r.B, r.k), "In schedule for B", "leaves no reduction");
  auto other_k = te::reduce_axis({0, 4}, "other");
  EXPECT_ERROR_HAS(s.rfactor(r.B, other_k), "In schedule for B", "`other`", "does not belong");
  auto [ko, ki] = s[r.B].split(r.k, 4);
  EXPECT_ERROR_HAS(s.rfactor(r.B, r.k), "In schedule for B", "`k`", "already split");
  EXPECT_ERROR_HAS(s.rfactor(r.B, ki, 2), "factor_axis 2 is out of range", "[-2, 1]");
  EXPECT_ERROR_HAS(s.rfactor(r.B, ki, -3), "factor_axis -3 is out of range");
  auto [io, ii] = s[r.B].split(r.B.op().axis()[0], 2);
  (void)ii;
  EXPECT_ERROR_HAS(s.rfactor(r.B, ko), "In schedule for B", "`i0`", "split or fused",
                   "call rfactor first");
  // A stage computed at an axis rfactor removes.
  RowReduce q(8, 16, false);
  auto E = te::compute(
      {8, 16}, [&](Var i, Var j) { return q.A(i, j) * 3.0f; }, "E");
  auto kk = te::reduce_axis({0, 16}, "kk");
  auto F = te::compute(
      {8}, [&](Var i) { return te::sum(E(i, kk), {kk}); }, "F");
  auto s2 = te::create_schedule({F.op()});
  auto [fo, fi] = s2[F].split(kk, 4);
  s2[E].compute_at(s2[F], fo);
  EXPECT_ERROR_HAS(s2.rfactor(F, fi), "In schedule for F",
                   "stage E is computed at its axis `kk.outer`", "before compute_at");
  // A reduction range that does not start at 0 cannot be the factored axis itself.
  auto A3 = te::placeholder({4, 20}, f32, "A3");
  auto r1 = te::reduce_axis({2, 20}, "r1"), r2 = te::reduce_axis({0, 3}, "r2");
  auto G = te::compute(
      {4},
      [&](Var i) {
        return te::sum(A3(i, r1) + A3(i, r2), {r1, r2});
      },
      "G");
  auto s3 = te::create_schedule({G.op()});
  EXPECT_ERROR_HAS(s3.rfactor(G, r1), "In schedule for G", "`r1`", "starts at 2");
  (void)io;
}

TEST(StorePredicate, GuardsTheStoreAndChecksItsType) {
  const int n = 10;
  auto A = te::placeholder({n}, f32, "A");
  auto B = te::compute(
      {n}, [&](Var i) { return A(i) + 1.0f; }, "B");
  auto s = te::create_schedule({B.op()});
  Var i = B.op().axis()[0]->var;
  s[B].set_store_predicate(i % 2 == 0);
  std::string ir = ir::to_string(lower(s, {A, B}, "f"));
  EXPECT_NE(ir.find("if (((i0 % 2) == 0))"), std::string::npos) << ir;
  auto mod = build(s, {A, B}, "llvm", "f");
  auto a = random_vec(n, 1);
  std::vector<float> init(n, -7.0f);
  auto bn = runtime::NDArray::from_vector(init, {n});
  mod.get_function("f")(runtime::NDArray::from_vector(a, {n}), bn);
  auto got = bn.to_vector<float>();
  for (int j = 0; j < n; ++j) EXPECT_EQ(got[j], j % 2 == 0 ? a[j] + 1.0f : -7.0f) << j;
  EXPECT_ERROR_HAS(s[B].set_store_predicate(Expr(i + 1)), "In schedule for B", "boolean expression",
                   "int32");
  EXPECT_ERROR_HAS(s[B].set_store_predicate(Expr()), "In schedule for B", "boolean expression");
}

TEST(CrossThreadReduction, BindErrorsAndLoweredForm) {
  RowReduce r(8, 64, false);
  auto s = te::create_schedule({r.B.op()});
  auto [ko, ki] = s[r.B].split(r.k, 16);
  EXPECT_ERROR_HAS(s[r.B].bind(ko, te::thread_axis("blockIdx.x")), "In schedule for B",
                   "cannot bind reduction axis `k.outer` to blockIdx.x", "threadIdx");
  EXPECT_ERROR_HAS(s[r.B].bind(ko, te::thread_axis("vthread")), "cannot bind reduction axis");
  auto BF = s.rfactor(r.B, ki)[0];
  te::IterVar tx = te::thread_axis("threadIdx.x");
  s[r.B].bind(r.B.op().axis()[0], te::thread_axis("blockIdx.x"));
  s[r.B].bind(s[r.B].op().reduce_axis()[0], tx);
  s[BF].compute_at(s[r.B], s[r.B].op().reduce_axis()[0]);
  s[r.B].set_store_predicate(tx->var == 0);
  std::ostringstream log;
  LowerOptions opt;
  opt.print_after_each_pass = &log;
  lower(s, {r.A, r.B}, "f", opt);
  std::string text = log.str();
  size_t sched = text.find("after schedule_ops"), flat = text.find("after storage_flatten");
  size_t lowered = text.find("after lower_thread_allreduce");
  ASSERT_NE(lowered, std::string::npos) << text;
  std::string before = text.substr(sched, flat - sched), after = text.substr(lowered);
  // The intermediate form: TVM's reduce_scope attribute and tvm_thread_allreduce call.
  EXPECT_NE(before.find("] reduce_scope = 0"), std::string::npos) << before;
  EXPECT_NE(before.find("comm_reducer(result=[(x + y)]"), std::string::npos) << before;
  EXPECT_NE(before.find("tvm_thread_allreduce((uint32)1, B.rf("), std::string::npos) << before;
  EXPECT_NE(before.find(", reduce_temp0, threadIdx.x)"), std::string::npos) << before;
  EXPECT_NE(before.find("if ((threadIdx.x == 0))"), std::string::npos) << before;
  // After lowering: a shared buffer of 16, a tree of 4 steps.
  EXPECT_EQ(after.find("tvm_thread_allreduce"), std::string::npos) << after;
  EXPECT_NE(after.find("allocate red_buf0[float32 * 16]"), std::string::npos) << after;
  EXPECT_NE(after.find("if ((threadIdx.x < 8))"), std::string::npos) << after;
  EXPECT_NE(after.find("if ((threadIdx.x < 1))"), std::string::npos) << after;
  EXPECT_NE(after.find("reduce_temp0[0] = red_buf0[0]"), std::string::npos) << after;
}
