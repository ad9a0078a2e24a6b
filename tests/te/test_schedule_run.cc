// Every schedule primitive: lowered, built for llvm, run, and compared with a naive loop nest.
#include "test_util.h"

#include <atomic>
#include <thread>

using namespace minitvm;
using minitvm::testing::expect_close;
using minitvm::testing::random_vec;

namespace {
const DataType f32 = DataType::Float(32);

struct MatmulCase {
  int n, m, l;
  te::Tensor A, B, C;
  te::IterVar k;
  MatmulCase(int n_, int m_, int l_) : n(n_), m(m_), l(l_) {
    A = te::placeholder({n, l}, f32, "A");
    B = te::placeholder({l, m}, f32, "B");
    k = te::reduce_axis({0, l}, "k");
    C = te::compute(
        {n, m}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  }
  void run_and_check(te::Schedule s, const char* what) {
    SCOPED_TRACE(what);
    auto a = random_vec(n * l, 1), b = random_vec(l * m, 2);
    auto mod = build(s, {A, B, C}, "llvm", "mm");
    auto an = runtime::NDArray::from_vector(a, {n, l});
    auto bn = runtime::NDArray::from_vector(b, {l, m});
    auto cn = runtime::NDArray::empty({n, m}, f32);
    mod.get_function("mm")(an, bn, cn);
    std::vector<float> ref(n * m, 0.f);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) {
        float acc = 0;
        for (int kk = 0; kk < l; ++kk) acc += a[i * l + kk] * b[kk * m + j];
        ref[i * m + j] = acc;
      }
    expect_close(cn.to_vector<float>(), ref, 1e-4f);
  }
};
}  // namespace

TEST(ScheduleRun, VectorAddImperfectSplit) {
  const int n = 1000;
  auto A = te::placeholder({n}, f32, "A"), B = te::placeholder({n}, f32, "B");
  auto C = te::compute(
      {n}, [&](Var i) { return A(i) + B(i); }, "C");
  auto s = te::create_schedule({C.op()});
  auto [xo, xi] = s[C].split(C.op().axis()[0], 64);
  (void)xo;
  (void)xi;
  auto mod = build(s, {A, B, C}, "llvm", "vadd");
  auto a = random_vec(n, 3), b = random_vec(n, 4);
  auto cn = runtime::NDArray::empty({n}, f32);
  mod.get_function("vadd")(runtime::NDArray::from_vector(a, {n}),
                           runtime::NDArray::from_vector(b, {n}), cn);
  std::vector<float> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = a[i] + b[i];
  expect_close(cn.to_vector<float>(), ref, 0);
}

TEST(ScheduleRun, MatmulDefault) {
  MatmulCase mc(17, 23, 9);
  mc.run_and_check(te::create_schedule({mc.C.op()}), "default");
}

TEST(ScheduleRun, MatmulSplitReorderImperfect) {
  MatmulCase mc(37, 45, 19);
  auto s = te::create_schedule({mc.C.op()});
  auto ax = mc.C.op().axis();
  auto [io, ii] = s[mc.C].split(ax[0], 8);
  auto [jo, ji] = s[mc.C].split(ax[1], 16);
  auto [ko, ki] = s[mc.C].split(mc.C.op().reduce_axis()[0], 4);
  s[mc.C].reorder({io, jo, ko, ii, ki, ji});
  mc.run_and_check(s, "split/reorder");
}

TEST(ScheduleRun, MatmulTileVectorizeParallelWithTails) {
  MatmulCase mc(33, 50, 21);
  auto s = te::create_schedule({mc.C.op()});
  auto ax = mc.C.op().axis();
  auto t = s[mc.C].tile(ax[0], ax[1], 8, 8);
  s[mc.C].reorder({t[0], t[1], mc.C.op().reduce_axis()[0], t[2], t[3]});
  s[mc.C].vectorize(t[3]);
  s[mc.C].parallel(t[0]);
  mc.run_and_check(s, "tile+vectorize+parallel");
}

TEST(ScheduleRun, MatmulSplitNpartsAndUnroll) {
  MatmulCase mc(24, 20, 12);
  auto s = te::create_schedule({mc.C.op()});
  auto ax = mc.C.op().axis();
  auto [jo, ji] = s[mc.C].split_nparts(ax[1], 3);
  auto [ko, ki] = s[mc.C].split(mc.C.op().reduce_axis()[0], 4);
  s[mc.C].reorder({ax[0], jo, ko, ki, ji});
  s[mc.C].unroll(ki);
  mc.run_and_check(s, "nparts+unroll");
}

TEST(ScheduleRun, FuseThenSplit) {
  MatmulCase mc(13, 29, 7);
  auto s = te::create_schedule({mc.C.op()});
  auto ax = mc.C.op().axis();
  auto f = s[mc.C].fuse(ax[0], ax[1]);
  auto [fo, fi] = s[mc.C].split(f, 32);
  s[mc.C].parallel(fo);
  (void)fi;
  mc.run_and_check(s, "fuse+split");
}

TEST(ScheduleRun, CacheWriteLocalAccumulator) {
  MatmulCase mc(32, 48, 16);
  auto s = te::create_schedule({mc.C.op()});
  te::Tensor CL = s.cache_write(mc.C, "local");
  auto ax = mc.C.op().axis();
  auto t = s[mc.C].tile(ax[0], ax[1], 8, 16);
  s[CL].compute_at(s[mc.C], t[1]);
  auto cax = s[CL].op().axis();
  auto kk = s[CL].op().reduce_axis()[0];
  s[CL].reorder({kk, cax[0], cax[1]});
  s[CL].vectorize(cax[1]);
  mc.run_and_check(s, "cache_write");
}

TEST(ScheduleRun, CacheReadIntoLocalTile) {
  MatmulCase mc(16, 24, 20);
  auto s = te::create_schedule({mc.C.op()});
  te::Tensor AL = s.cache_read(mc.A, "local", {mc.C.op()});
  auto ax = mc.C.op().axis();
  auto [io, ii] = s[mc.C].split(ax[0], 4);
  s[mc.C].reorder({io, ax[1], ii, mc.C.op().reduce_axis()[0]});
  s[AL].compute_at(s[mc.C], io);
  mc.run_and_check(s, "cache_read");
}

TEST(ScheduleRun, NestedComputeAtAndInline) {
  const int n = 50, m = 30;
  auto A = te::placeholder({n, m}, f32, "A");
  auto B = te::compute(
      {n, m}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "B");
  auto Bi = te::compute(
      {n, m}, [&](Var i, Var j) { return B(i, j) + 1.0f; }, "Bi");
  auto k = te::reduce_axis({0, m}, "k");
  auto R = te::compute(
      {n}, [&](Var i) { return te::max(Bi(i, k), {k}); }, "R");
  auto O = te::compute(
      {n}, [&](Var i) { return te::exp(R(i)) - 1.0f; }, "O");
  auto s = te::create_schedule({O.op()});
  auto [xo, xi] = s[O].split(O.op().axis()[0], 8);
  s[R].compute_at(s[O], xi);
  s[Bi].compute_inline();
  s[B].compute_at(s[R], s[R].op().reduce_axis()[0]);
  auto mod = build(s, {A, O}, "llvm", "nested");
  auto a = random_vec(n * m, 5);
  auto on = runtime::NDArray::empty({n}, f32);
  mod.get_function("nested")(runtime::NDArray::from_vector(a, {n, m}), on);
  std::vector<float> ref(n);
  for (int i = 0; i < n; ++i) {
    float mx = -INFINITY;
    for (int j = 0; j < m; ++j) mx = std::max(mx, a[i * m + j] * 2.0f + 1.0f);
    ref[i] = std::exp(mx) - 1.0f;
  }
  expect_close(on.to_vector<float>(), ref, 1e-5f);
}

TEST(ScheduleRun, Matmul512BlockedVectorizedParallel) {
  MatmulCase mc(512, 512, 512);
  auto s = te::create_schedule({mc.C.op()});
  te::Tensor CL = s.cache_write(mc.C, "local");
  auto ax = mc.C.op().axis();
  auto t = s[mc.C].tile(ax[0], ax[1], 32, 32);
  s[mc.C].parallel(t[0]);
  s[CL].compute_at(s[mc.C], t[1]);
  auto cax = s[CL].op().axis();
  auto [ko, ki] = s[CL].split(s[CL].op().reduce_axis()[0], 4);
  auto [jo, jv] = s[CL].split(cax[1], 16);
  s[CL].reorder({ko, cax[0], ki, jo, jv});
  s[CL].vectorize(jv);
  s[CL].unroll(ki);
  mc.run_and_check(s, "512 blocked");
}

TEST(ScheduleRun, ArgumentMismatchIsAClearError) {
  const int n = 8;
  auto A = te::placeholder({n}, f32, "A");
  auto C = te::compute(
      {n}, [&](Var i) { return A(i) + 1.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  auto mod = build(s, {A, C}, "llvm", "f");
  auto bad = runtime::NDArray::empty({n + 1}, f32);
  auto ok = runtime::NDArray::empty({n}, f32);
  EXPECT_THROW(mod.get_function("f")(bad, ok), Error);
  EXPECT_THROW(mod.get_function("f")(ok), Error);
  EXPECT_THROW(mod.get_function("f")(ok, runtime::NDArray::empty({n}, DataType::Float(64))), Error);
  EXPECT_THROW(mod.get_function("nope"), Error);
}

TEST(ScheduleRun, ComputeRootSetScopeAndPragma) {
  const int n = 40, m = 24;
  auto A = te::placeholder({n, m}, f32, "A");
  auto B = te::compute(
      {n, m}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "B");
  auto C = te::compute(
      {n, m}, [&](Var i, Var j) { return B(i, j) * B(i, j); }, "C");
  auto a = random_vec(n * m, 9);
  std::vector<float> ref(n * m);
  for (int i = 0; i < n * m; ++i) ref[i] = (a[i] + 1.0f) * (a[i] + 1.0f);
  auto run = [&](te::Schedule s, const char* what) {
    SCOPED_TRACE(what);
    auto mod = build(s, {A, C}, "llvm", "f");
    auto cn = runtime::NDArray::empty({n, m}, f32);
    mod.get_function("f")(runtime::NDArray::from_vector(a, {n, m}), cn);
    expect_close(cn.to_vector<float>(), ref, 1e-6f);
  };
  {
    auto s = te::create_schedule({C.op()});
    s[B].compute_at(s[C], C.op().axis()[0]);
    s[B].compute_root();  // undoes the attachment
    run(s, "compute_root");
  }
  {
    auto s = te::create_schedule({C.op()});
    s[B].compute_at(s[C], C.op().axis()[0]);
    s[B].set_scope("local");
    std::string text = ir::to_string(lower(s, {A, C}, "f"));
    EXPECT_NE(text.find("storage_scope = \"local\""), std::string::npos) << text;
    run(s, "set_scope local");
  }
  {
    auto s = te::create_schedule({C.op()});
    auto [jo, ji] = s[C].split(C.op().axis()[1], 4);
    s[C].pragma(jo, "auto_unroll_max_step", 16);
    s[C].pragma(jo, "unroll_explicit", 1);
    std::string text = ir::to_string(lower(s, {A, C}, "f"));
    EXPECT_EQ(text.find("pragma_auto_unroll_max_step"), std::string::npos)
        << text;                                                       // consumed by unroll_loop
    EXPECT_EQ(text.find("for (i1.inner"), std::string::npos) << text;  // 4 stores <= 16: unrolled
    run(s, "pragma unroll");
  }
}

TEST(ScheduleRun, ArgmaxWithTupleReducer) {
  const int n = 7, m = 33;
  auto A = te::placeholder({n, m}, f32, "A");
  auto k = te::reduce_axis({0, m}, "k");
  // (index, value) pairs; the first maximum wins ties.
  auto argmax = te::comm_reducer(
      [](const std::vector<Var>& x, const std::vector<Var>& y) {
        Expr take_y = y[1] > x[1];
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
  auto mod = build(s, {A, outs[0], outs[1]}, "llvm", "argmax");
  auto a = random_vec(n * m, 11);
  a[3 * m + 5] = 5.0f;
  a[3 * m + 9] = 5.0f;  // tie: index 5 must win
  minitvm::testing::expect_row_argmax(mod, a, n, m);
}

TEST(ScheduleRun, ConcurrentBuildsAreIndependent) {
  // The tuner builds candidates on several threads: lowering and JIT compilation must be thread
  // safe.
  const int n = 64;
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 3; ++rep) {
        auto A = te::placeholder({n, n}, f32, "A");
        auto k = te::reduce_axis({0, n}, "k");
        auto C = te::compute(
            {n}, [&](Var i) { return te::sum(A(i, k) * float(t + 1), {k}); }, "C");
        auto s = te::create_schedule({C.op()});
        auto [o, i] = s[C].split(C.op().axis()[0], 8 << (rep % 2));
        s[C].parallel(o);
        (void)i;
        auto mod = build(s, {A, C}, "llvm", "same_name");
        auto a = runtime::NDArray::from_vector(std::vector<float>(n * n, 1.0f), {n, n});
        auto c = runtime::NDArray::empty({n}, f32);
        mod.get_function("same_name")(a, c);
        auto v = c.to_vector<float>();
        bool good = true;
        for (float x : v) good &= x == float(n * (t + 1));
        ok += good;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 12);
}
