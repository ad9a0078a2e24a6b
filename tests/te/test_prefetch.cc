// Stage::prefetch (TVM's s[B].prefetch(A, axis, offset)): the lowered prefetch region, the LLVM
// code, unchanged results against naive loops, and the errors.
#include "test_util.h"

using namespace minitvm;
using minitvm::testing::count_occurrences;
using minitvm::testing::expect_close;
using minitvm::testing::random_vec;

namespace {
const DataType f32 = DataType::Float(32);
}  // namespace

// Row sums of a 64x48 matrix, rows split in blocks of 4: at block io the 4 rows of block io + 1
// (4 * 48 floats, contiguous: the whole column range is read) are prefetched, one cache line each
// (768 bytes = 12 lines, plus the run's last element); the run's start is clamped so that the run
// stays inside the buffer (the last block prefetches rows 60..63 again).
TEST(Prefetch, RegionOfTheNextIterationOneLineEach) {
  auto A = te::placeholder({64, 48}, f32, "A");
  auto k = te::reduce_axis({0, 48}, "k");
  auto B = te::compute(
      {64}, [&](Var i) { return te::sum(A(i, k), {k}); }, "B");
  auto s = te::create_schedule({B.op()});
  auto [io, ii] = s[B].split(B.op().axis()[0], 4);
  (void)ii;
  s[B].prefetch(A, io, 1);
  std::string ir = to_string(lower(s, {A, B}, "rowsum"));
  EXPECT_NE(ir.find("for (prefetch.line, 0, 13)"), std::string::npos) << ir;
  EXPECT_NE(ir.find("let prefetch.base = min(((i0.outer*192) + 192), 2880)"), std::string::npos)
      << ir;
  EXPECT_NE(
      ir.find("prefetch(address_of(A[(prefetch.base + min((prefetch.line*16), 191))]), 0, 3, 1)"),
      std::string::npos)
      << ir;
  // the prefetch sits at the top of the io loop, not in the reduction's init
  EXPECT_EQ(count_occurrences(ir, "prefetch("), 1u) << ir;

  auto mod = build(s, {A, B}, "llvm", "rowsum");
  EXPECT_NE(mod.get_source("ll").find("@llvm.prefetch"), std::string::npos);
  auto a = random_vec(64 * 48, 5);
  auto bn = runtime::NDArray::empty({64}, f32);
  mod.get_function("rowsum")(runtime::NDArray::from_vector(a, {64, 48}), bn);
  std::vector<float> ref(64, 0.f);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 48; ++j) ref[i] += a[i * 48 + j];
  expect_close(bn.to_vector<float>(), ref, 1e-5f);
}

// A 2-D window: a column block of a wider matrix is not contiguous, so the prefetch loops over its
// rows; each row's run (8 floats) fits in one line plus its last element. Negative offsets work
// (the previous iteration) and addresses stay inside the buffer.
TEST(Prefetch, StridedRegionLoopsOverRowsAndRunsWithOffsets) {
  const int n = 32, m = 40;
  auto A = te::placeholder({n, m}, f32, "A");
  auto B = te::compute(
      {n, m}, [&](Var i, Var j) { return A(i, j) * 2.0f + 1.0f; }, "B");
  for (int offset : {2, -1}) {
    SCOPED_TRACE(offset);
    auto s = te::create_schedule({B.op()});
    auto t = s[B].tile(B.op().axis()[0], B.op().axis()[1], 4, 8);
    s[B].prefetch(A, t[1], offset);  // at yo: the 4x8 block of tile (xo, yo + offset)
    s[B].vectorize(t[3]);
    std::string ir = to_string(lower(s, {A, B}, "scale"));
    EXPECT_NE(ir.find("for (prefetch.i0, 0, 4)"), std::string::npos) << ir;
    EXPECT_NE(ir.find("for (prefetch.line, 0, 2)"), std::string::npos) << ir;
    auto mod = build(s, {A, B}, "llvm", "scale");
    auto a = random_vec(n * m, 6);
    auto bn = runtime::NDArray::empty({n, m}, f32);
    mod.get_function("scale")(runtime::NDArray::from_vector(a, {n, m}), bn);
    std::vector<float> ref(n * m);
    for (int i = 0; i < n * m; ++i) ref[i] = a[i] * 2.0f + 1.0f;
    expect_close(bn.to_vector<float>(), ref, 0);
  }
}

// Prefetching inside a parallel loop (the pooling schedule's shape): results unchanged.
TEST(Prefetch, InsideParallelLoopMatchesReference) {
  const int p = 8, h = 30, w = 30;
  auto A = te::placeholder({p, h, w}, f32, "A");
  auto r = te::reduce_axis({0, 3}, "r");
  auto B = te::compute(
      {p, h / 3, w}, [&](Var c, Var i, Var j) { return te::max(A(c, i * 3 + r, j), {r}); }, "B");
  auto s = te::create_schedule({B.op()});
  const auto& ax = B.op().axis();
  s[B].parallel(ax[0]);
  s[B].prefetch(A, ax[1], 2);
  s[B].reorder({ax[0], ax[1], r, ax[2]});
  s[B].vectorize(ax[2]);
  auto mod = build(s, {A, B}, "llvm", "colmax");
  auto a = random_vec(p * h * w, 7);
  auto bn = runtime::NDArray::empty({p, h / 3, w}, f32);
  mod.get_function("colmax")(runtime::NDArray::from_vector(a, {p, h, w}), bn);
  std::vector<float> ref(p * (h / 3) * w);
  for (int c = 0; c < p; ++c)
    for (int i = 0; i < h / 3; ++i)
      for (int j = 0; j < w; ++j) {
        float v = a[(c * h + i * 3) * w + j];
        for (int q = 1; q < 3; ++q) v = std::max(v, a[(c * h + i * 3 + q) * w + j]);
        ref[(c * (h / 3) + i) * w + j] = v;
      }
  expect_close(bn.to_vector<float>(), ref, 0);
}

TEST(Prefetch, Errors) {
  auto A = te::placeholder({64}, f32, "A"), Z = te::placeholder({64}, f32, "Z");
  auto B = te::compute(
      {64}, [&](Var i) { return A(i) + 1.0f; }, "B");
  {  // a tensor the loop does not read (Z is read by the next stage)
    auto C = te::compute(
        {64}, [&](Var i) { return B(i) + Z(i); }, "C");
    auto s = te::create_schedule({C.op()});
    auto [o, i] = s[B].split(B.op().axis()[0], 8);
    (void)i;
    s[B].prefetch(Z, o, 1);
    EXPECT_ERROR_HAS(lower(s, {A, Z, C}, "f"), "prefetch of Z at loop i0.outer", "does not read Z");
  }
  {  // the vectorized axis
    auto s = te::create_schedule({B.op()});
    auto [o, i] = s[B].split(B.op().axis()[0], 8);
    (void)o;
    s[B].vectorize(i);
    s[B].prefetch(A, i, 1);
    EXPECT_ERROR_HAS(lower(s, {A, B}, "f"), "In schedule for B",
                     "prefetch at the vectorized axis `i0.inner`");
  }
  {  // a thread-bound axis
    auto s = te::create_schedule({B.op()});
    auto [o, i] = s[B].split(B.op().axis()[0], 8);
    s[B].bind(o, te::thread_axis("blockIdx.x"));
    s[B].bind(i, te::thread_axis("threadIdx.x"));
    s[B].prefetch(A, o, 1);
    EXPECT_ERROR_HAS(lower(s, {A, B}, "f"), "prefetch at `i0.outer`", "bound to blockIdx.x");
  }
  {  // not a leaf, float offset
    auto s = te::create_schedule({B.op()});
    IterVar x = B.op().axis()[0];
    s[B].split(x, 8);
    EXPECT_ERROR_HAS(s[B].prefetch(A, x, 1), "prefetch");
    auto s2 = te::create_schedule({B.op()});
    EXPECT_ERROR_HAS(s2[B].prefetch(A, B.op().axis()[0], Expr(1.5f)),
                     "prefetch offset must be an integer");
  }
}
