// Bound inference of root stages read through oversized splits, nested vectorized axes, shape
// checks of placeholder/compute, and the te API as TVM users write it (named axes, te::var,
// integer shapes of any C++ type, tile() with structured bindings).
#include <sstream>

#include "test_util.h"

using namespace minitvm;
using minitvm::testing::expect_close;
using minitvm::testing::random_vec;

namespace {

std::string ir_text(const ir::PrimFunc& f) {
  std::ostringstream os;
  os << f;
  return os.str();
}

/** A (1, 13) -> B = A + 1 (root stage) -> C = B * 2, C's axes split by the given factors. */
struct Chain {
  te::Tensor A, B, C;
  te::Schedule s;
};
Chain oversized_chain(int f0, int f1) {
  Chain c;
  c.A = te::placeholder({1, 13}, DataType::Float(32), "A");
  c.B = te::compute(
      {1, 13}, [&](Var i, Var j) { return c.A(i, j) + 1.0f; }, "B");
  c.C = te::compute(
      {1, 13}, [&](Var i, Var j) { return c.B(i, j) * 2.0f; }, "C");
  c.s = te::create_schedule({c.C.op()});
  auto ax = c.C.op().axis();
  auto [io, ii] = c.s[c.C].split(ax[0], f0);
  auto [jo, ji] = c.s[c.C].split(ax[1], f1);
  c.s[c.C].reorder({io, jo, ii, ji});
  return c;
}

}  // namespace

// ---- 1. oversized bounds ------------------------------------------------------------------------

TEST(TeHardening, RootStageReadThroughOversizedSplitsKeepsItsShape) {
  // Factors far beyond the 1x13 tensor: the consumer's loops overrun it (guarded), but B is only
  // ever read inside its shape, so it holds 13 elements (before: 100000 * 319000 = 31.9e9).
  Chain c = oversized_chain(100000, 319000);
  std::string ir = ir_text(lower(c.s, {c.A, c.C}, "f"));
  EXPECT_NE(ir.find("allocate B[float32 * 13]"), std::string::npos) << ir;
}

TEST(TeHardening, RootStageReadThroughOversizedSplitsRuns) {
  Chain c = oversized_chain(16, 64);
  std::string ir = ir_text(lower(c.s, {c.A, c.C}, "f"));
  EXPECT_NE(ir.find("allocate B[float32 * 13]"), std::string::npos) << ir;
  runtime::Module m = build(c.s, {c.A, c.C}, "llvm", "f");
  auto a = random_vec(13);
  auto out = runtime::NDArray::empty({1, 13}, DataType::Float(32));
  m.get_function("f")(runtime::NDArray::from_vector(a, {1, 13}), out);
  std::vector<float> ref(13);
  for (int j = 0; j < 13; ++j) ref[j] = (a[j] + 1.0f) * 2.0f;
  expect_close(out.to_vector<float>(), ref);
}

TEST(TeHardening, ComputeAtStageReadThroughOversizedSplitKeepsItsShape) {
  // B computed at C's outer loop: one iteration reads B[0..f-1] of which only 0..12 exist.
  te::Tensor A = te::placeholder({13}, DataType::Float(32), "A");
  te::Tensor B = te::compute(
      {13}, [&](Var i) { return A(i) + 1.0f; }, "B");
  te::Tensor C = te::compute(
      {13}, [&](Var i) { return B(i) * 2.0f; }, "C");
  te::Schedule s = te::create_schedule({C.op()});
  auto [o, i] = s[C].split(C.op().axis()[0], 1000);
  s[B].compute_at(s[C], o);
  std::string ir = ir_text(lower(s, {A, C}, "f"));
  EXPECT_NE(ir.find("allocate B[float32 * 13]"), std::string::npos) << ir;
  runtime::Module m = build(s, {A, C}, "llvm", "f");
  auto a = random_vec(13, 3);
  auto out = runtime::NDArray::empty({13}, DataType::Float(32));
  m.get_function("f")(runtime::NDArray::from_vector(a, {13}), out);
  std::vector<float> ref(13);
  for (int j = 0; j < 13; ++j) ref[j] = (a[j] + 1.0f) * 2.0f;
  expect_close(out.to_vector<float>(), ref);
}

TEST(TeHardening, BufferLargerThanInt32IsACompileErrorNotATruncation) {
  // An intermediate of 50000 x 50000 = 2.5e9 elements: its size does not fit int32 (LLVM would
  // have received it truncated to 32 bits).
  te::Tensor A = te::placeholder({50000, 50000}, DataType::Float(32), "A");
  te::Tensor B = te::compute(
      {50000, 50000}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "B");
  te::Tensor C = te::compute(
      {50000, 50000}, [&](Var i, Var j) { return B(i, j) * 2.0f; }, "C");
  te::Schedule s = te::create_schedule({C.op()});
  EXPECT_ERROR_HAS(build(s, {A, C}, "llvm", "big"), "buffer 'B'", "2500000000", "int32", "'big'");
}

// ---- 2. vectorizing two nested axes -------------------------------------------------------------

TEST(TeHardening, TwoNestedVectorizedAxesRunOnLlvm) {
  // Before: InternalError (a Ramp with a vector base). Now the inner axis is vector code and the
  // outer one a serial loop around it.
  const int n = 6, m = 8;
  te::Tensor A = te::placeholder({n, m}, DataType::Float(32), "A");
  te::Tensor C = te::compute(
      {n, m}, [&](Var i, Var j) { return A(i, j) * 3.0f + 1.0f; }, "C");
  te::Schedule s = te::create_schedule({C.op()});
  auto [jo, ji] = s[C].split(C.op().axis()[1], 4);
  s[C].vectorize(jo);
  s[C].vectorize(ji);
  std::string ir = ir_text(lower(s, {A, C}, "f"));
  EXPECT_NE(ir.find("ramp("), std::string::npos) << ir;                 // inner axis vectorized
  EXPECT_NE(ir.find("for (i1.outer, 0, 2)"), std::string::npos) << ir;  // outer stays a loop
  runtime::Module mod = build(s, {A, C}, "llvm", "f");
  auto a = random_vec(n * m, 5);
  auto out = runtime::NDArray::empty({n, m}, DataType::Float(32));
  mod.get_function("f")(runtime::NDArray::from_vector(a, {n, m}), out);
  std::vector<float> ref(n * m);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) ref[i * m + j] = a[i * m + j] * 3.0f + 1.0f;
  expect_close(out.to_vector<float>(), ref);
}

TEST(TeHardening, TwoNestedVectorizedAxesWithTailAndReuse) {
  // Both data-parallel axes vectorized, the inner with a guarded tail (10 = 4 + 4 + 2), and the
  // outer axis appearing in the inner vector code.
  const int n = 4, m = 10;
  te::Tensor A = te::placeholder({n, m}, DataType::Float(32), "A");
  te::Tensor C = te::compute(
      {n, m}, [&](Var i, Var j) { return A(i, j) + te::cast(DataType::Float(32), i * 100); }, "C");
  te::Schedule s = te::create_schedule({C.op()});
  auto [jo, ji] = s[C].split(C.op().axis()[1], 4);
  s[C].reorder({jo, C.op().axis()[0], ji});
  s[C].vectorize(C.op().axis()[0]);
  s[C].vectorize(ji);
  runtime::Module mod = build(s, {A, C}, "llvm", "f");
  auto a = random_vec(n * m, 6);
  auto out = runtime::NDArray::empty({n, m}, DataType::Float(32));
  mod.get_function("f")(runtime::NDArray::from_vector(a, {n, m}), out);
  std::vector<float> ref(n * m);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) ref[i * m + j] = a[i * m + j] + static_cast<float>(i * 100);
  expect_close(out.to_vector<float>(), ref);
}

TEST(TeHardening, TwoNestedVectorizedAxesUnderThreadsOnTheEmulator) {
  const int n = 8, m = 16;
  te::Tensor A = te::placeholder({n, m}, DataType::Float(32), "A");
  te::Tensor C = te::compute(
      {n, m}, [&](Var i, Var j) { return A(i, j) - 0.5f; }, "C");
  te::Schedule s = te::create_schedule({C.op()});
  auto [io, ii] = s[C].split(C.op().axis()[0], 2);
  auto [jo, ji] = s[C].split(C.op().axis()[1], 4);
  s[C].reorder({io, jo, ii, ji});
  s[C].bind(io, te::thread_axis("blockIdx.x"));
  s[C].bind(jo, te::thread_axis("threadIdx.x"));
  s[C].vectorize(ii);
  s[C].vectorize(ji);
  runtime::Module mod = build(s, {A, C}, "cuda -emulate", "f");
  auto a = random_vec(n * m, 7);
  auto out = runtime::NDArray::empty({n, m}, DataType::Float(32));
  mod.get_function("f")(runtime::NDArray::from_vector(a, {n, m}), out);
  std::vector<float> ref(n * m);
  for (int i = 0; i < n * m; ++i) ref[i] = a[i] - 0.5f;
  expect_close(out.to_vector<float>(), ref);
}

// ---- 4. shapes checked where the tensor is made -------------------------------------------------

TEST(TeHardening, NegativePlaceholderDimensionNamesTensorAndDimension) {
  EXPECT_ERROR_HAS(te::placeholder({-4, 8}, DataType::Float(32), "A"),
                   "placeholder A: dimension 0 is -4");
  EXPECT_ERROR_HAS(te::placeholder({8, int64_t{-1}}, DataType::Float(32), "W"),
                   "placeholder W: dimension 1 is -1");
}

TEST(TeHardening, NegativeComputeDimensionNamesTensorAndDimension) {
  EXPECT_ERROR_HAS(
      te::compute(
          {3, -2}, [](Var i, Var j) { return te::cast(DataType::Float(32), i + j); }, "C"),
      "compute C: dimension 1 is -2");
}

TEST(TeHardening, UnsignedDimensionBeyondInt64IsRejected) {
  size_t huge = static_cast<size_t>(-1);
  EXPECT_ERROR_HAS(te::placeholder({huge}, DataType::Float(32), "A"),
                   "placeholder A: dimension 0 is 18446744073709551615, which does not fit int64");
}

// ---- 5. te API as TVM users write it ------------------------------------------------------------

TEST(TeApi, ShapesFromSizeTInt64AndIntWithoutAmbiguity) {
  size_t n = 5;
  int64_t m = 7;
  int k = 3;
  te::Tensor A = te::placeholder({n, m}, DataType::Float(32), "A");
  te::Tensor B =
      te::placeholder(std::vector<size_t>{n, static_cast<size_t>(k)}, DataType::Float(32), "B");
  ASSERT_EQ(A.ndim(), 2);
  EXPECT_EQ(*ir::as_const_int(A.shape()[0]), 5);
  EXPECT_EQ(*ir::as_const_int(A.shape()[1]), 7);
  // Integers that fit become int32 dimensions, as TVM converts Python ints.
  EXPECT_EQ(A.shape()[0].dtype(), DataType::Int(32));
  EXPECT_EQ(A.shape()[1].dtype(), DataType::Int(32));
  te::Tensor C = te::compute(
      {n, m, k}, [&](Var i, Var j, Var l) { return A(i, j) * B(i, l); }, "C");
  te::Schedule s = te::create_schedule({C.op()});
  runtime::Module mod = build(s, {A, B, C}, "llvm", "f");
  auto a = random_vec(n * m, 8), b = random_vec(n * k, 9);
  auto out = runtime::NDArray::empty({5, 7, 3}, DataType::Float(32));
  mod.get_function("f")(runtime::NDArray::from_vector(a, {5, 7}),
                        runtime::NDArray::from_vector(b, {5, 3}), out);
  std::vector<float> ref;
  for (size_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j)
      for (int l = 0; l < k; ++l) ref.push_back(a[i * m + j] * b[i * k + l]);
  expect_close(out.to_vector<float>(), ref);
}

TEST(TeApi, IntegerBeyondInt32BecomesInt64Dimension) {
  size_t big = size_t{1} << 33;
  te::Tensor A = te::placeholder({big}, DataType::Float(32), "A");
  EXPECT_EQ(A.shape()[0].dtype(), DataType::Int(64));
  EXPECT_EQ(*ir::as_const_int(A.shape()[0]), int64_t{1} << 33);
}

TEST(TeApi, NamedComputeAxesAppearInLoweredIr) {
  const int N = 2, K = 3, H = 4, W = 5;
  te::Tensor A = te::placeholder({N, K, H, W}, DataType::Float(32), "A");
  te::Tensor C =
      te::compute({N, K, H, W}, [&](Var n, Var k, Var y, Var x) { return A(n, k, y, x) * 2.0f; },
                  "C", {"n", "k", "y", "x"});
  auto ax = C.op().axis();
  ASSERT_EQ(ax.size(), 4u);
  EXPECT_EQ(ax[0]->var->name_hint, "n");
  EXPECT_EQ(ax[3]->var->name_hint, "x");
  te::Schedule s = te::create_schedule({C.op()});
  auto [xo, xi] = s[C].split(ax[3], 2);
  (void)xo;
  (void)xi;
  std::string ir = ir_text(lower(s, {A, C}, "f"));
  for (const char* loop : {"for (n, 0, 2)", "for (k, 0, 3)", "for (y, 0, 4)", "for (x.outer, 0, 3)",
                           "for (x.inner, 0, 2)"})
    EXPECT_NE(ir.find(loop), std::string::npos) << "missing " << loop << " in\n" << ir;
  EXPECT_EQ(ir.find("i0"), std::string::npos) << ir;
  runtime::Module mod = build(s, {A, C}, "llvm", "f");
  auto a = random_vec(N * K * H * W, 10);
  auto out = runtime::NDArray::empty({N, K, H, W}, DataType::Float(32));
  mod.get_function("f")(runtime::NDArray::from_vector(a, {N, K, H, W}), out);
  std::vector<float> ref(a.size());
  for (size_t i = 0; i < a.size(); ++i) ref[i] = a[i] * 2.0f;
  expect_close(out.to_vector<float>(), ref);
}

TEST(TeApi, NamedAxesInScheduleErrors) {
  te::Tensor A = te::placeholder({8, 8}, DataType::Float(32), "A");
  te::Tensor C = te::compute({8, 8}, [&](Var y, Var x) { return A(y, x); }, "C", {"y", "x"});
  te::Schedule s = te::create_schedule({C.op()});
  IterVar x = C.op().axis()[1];
  s[C].split(x, 4);
  EXPECT_ERROR_HAS(s[C].split(x, 2), "`x`");
}

TEST(TeApi, NamedAxesFromARuntimeVectorAndTheVectorLambda) {
  std::vector<std::string> names{"row", "col"};
  te::Tensor A = te::placeholder({3, 4}, DataType::Float(32), "A");
  te::Tensor C = te::compute(
      {3, 4}, [&](const std::vector<Var>& v) { return A(v[0], v[1]) + 1.0f; }, "C", names);
  EXPECT_EQ(C.op().axis()[0]->var->name_hint, "row");
  EXPECT_EQ(C.op().axis()[1]->var->name_hint, "col");
  // One name: the init list must not be taken for a tag string.
  te::Tensor D = te::compute({4}, [&](Var c) { return A(0, c); }, "D", {"c"});
  EXPECT_EQ(D.op().axis()[0]->var->name_hint, "c");
  EXPECT_EQ(D.op()->tag, "");
  // With a tag after the names.
  te::Tensor E = te::compute(
      {3, 4}, [&](Var r, Var c) { return A(r, c); }, "E", {"r", "c"}, "elemwise");
  EXPECT_EQ(E.op()->tag, "elemwise");
}

TEST(TeApi, BadAxisNamesAreCompileErrors) {
  te::Tensor A = te::placeholder({3, 4}, DataType::Float(32), "A");
  EXPECT_ERROR_HAS(te::compute({3, 4}, [&](Var r, Var c) { return A(r, c); }, "C", {"r", "r"}),
                   "compute C: axes 0 and 1 are both named 'r'");
  EXPECT_ERROR_HAS(
      te::compute({3, 4}, [&](const std::vector<Var>& v) { return A(v[0], v[1]); }, "C", {"r"}),
      "compute C: 1 axis names for a 2-D shape");
  EXPECT_ERROR_HAS(te::compute({3, 4}, [&](Var r, Var c) { return A(r, c); }, "C", {"r", ""}),
                   "compute C: axis name 1 is empty");
  EXPECT_ERROR_HAS(
      te::compute({3, 4, 5}, [&](Var r, Var c) { return A(r, c); }, "C", {"r", "c", "z"}),
      "compute C: the lambda takes 2 index variables but the shape has 3 dimensions");
}

TEST(TeApi, VarMakesSymbolicShapes) {
  Var n = te::var("n");
  EXPECT_EQ(n->name_hint, "n");
  EXPECT_EQ(n.dtype(), DataType::Int(32));
  EXPECT_EQ(te::var("m", DataType::Int(64)).dtype(), DataType::Int(64));
  EXPECT_EQ(te::var()->name_hint, "tindex");
  te::Tensor A = te::placeholder({n}, DataType::Float(32), "A");
  te::Tensor B = te::compute({n}, [&](Var i) { return A(i) + 1.0f; }, "B", {"i"});
  te::Schedule s = te::create_schedule({B.op()});
  std::string ir = ir_text(lower(s, {A, B}, "f"));
  EXPECT_NE(ir.find("for (i, 0, n)"), std::string::npos) << ir;
}

TEST(TeApi, TileResultsBindStructured) {
  const int n = 20, m = 12;
  te::Tensor A = te::placeholder({n, m}, DataType::Float(32), "A");
  te::Tensor C =
      te::compute({n, m}, [&](Var y, Var x) { return A(y, x) * A(y, x); }, "C", {"y", "x"});
  te::Schedule s = te::create_schedule({C.op()});
  auto [yo, xo, yi, xi] = s[C].tile(C.op().axis()[0], C.op().axis()[1], 8, 4);
  EXPECT_EQ(yo->var->name_hint, "y.outer");
  EXPECT_EQ(xo->var->name_hint, "x.outer");
  EXPECT_EQ(yi->var->name_hint, "y.inner");
  EXPECT_EQ(xi->var->name_hint, "x.inner");
  s[C].parallel(yo);
  s[C].vectorize(xi);
  auto leaves = s[C].leaf_iter_vars();
  ASSERT_EQ(leaves.size(), 4u);
  EXPECT_TRUE(leaves[0].same_as(yo) && leaves[1].same_as(xo) && leaves[2].same_as(yi) &&
              leaves[3].same_as(xi));
  runtime::Module mod = build(s, {A, C}, "llvm", "f");
  auto a = random_vec(n * m, 11);
  auto out = runtime::NDArray::empty({n, m}, DataType::Float(32));
  mod.get_function("f")(runtime::NDArray::from_vector(a, {n, m}), out);
  std::vector<float> ref(a.size());
  for (size_t i = 0; i < a.size(); ++i) ref[i] = a[i] * a[i];
  expect_close(out.to_vector<float>(), ref);
  // Still indexable and convertible, as the vector it used to be.
  te::Schedule s2 = te::create_schedule({C.op()});
  auto t = s2[C].tile(C.op().axis()[0], C.op().axis()[1], 4, 4);
  std::vector<IterVar> v = t;
  EXPECT_TRUE(t[2].same_as(v[2]));
  EXPECT_ERROR_HAS(t[4], "tile() returns 4 axes");
}
