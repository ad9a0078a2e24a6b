// Golden lowered-IR text for canonical programs, checked as ordered lines.
#include <gtest/gtest.h>

#include <sstream>

#include <minitvm/minitvm.h>

using namespace minitvm;

namespace {
const DataType f32 = DataType::Float(32);

/** Each expected line must appear (trimmed) in order among the printed lines. */
void expect_ordered_lines(const std::string& text, const std::vector<std::string>& expected) {
  std::istringstream is(text);
  std::vector<std::string> lines;
  for (std::string l; std::getline(is, l);) {
    auto b = l.find_first_not_of(' ');
    lines.push_back(b == std::string::npos ? "" : l.substr(b));
  }
  size_t pos = 0;
  for (auto& e : expected) {
    while (pos < lines.size() && lines[pos] != e) ++pos;
    ASSERT_LT(pos, lines.size()) << "missing line (in order): " << e << "\n--- lowered ---\n"
                                 << text;
    ++pos;
  }
}
}  // namespace

TEST(LowerGolden, VectorAddBound) {
  const int n = 1024;
  auto A = te::placeholder({n}, f32, "A"), B = te::placeholder({n}, f32, "B");
  auto C = te::compute(
      {n}, [&](Var i) { return A(i) + B(i); }, "C");
  auto s = te::create_schedule({C.op()});
  auto [bx, tx] = s[C].split(C.op().axis()[0], 64);
  s[C].bind(bx, te::thread_axis("blockIdx.x"));
  s[C].bind(tx, te::thread_axis("threadIdx.x"));
  expect_ordered_lines(
      ir::to_string(lower(s, {A, B, C}, "vadd")),
      {"produce C {", "// attr [iter_var(blockIdx.x, , blockIdx.x)] thread_extent = 16",
       "// attr [iter_var(threadIdx.x, , threadIdx.x)] thread_extent = 64",
       "C[((blockIdx.x*64) + threadIdx.x)] = (A[((blockIdx.x*64) + threadIdx.x)] + "
       "B[((blockIdx.x*64) + threadIdx.x)])",
       "}"});
}

TEST(LowerGolden, VectorAddImperfectHasGuard) {
  const int n = 1000;
  auto A = te::placeholder({n}, f32, "A"), B = te::placeholder({n}, f32, "B");
  auto C = te::compute(
      {n}, [&](Var i) { return A(i) + B(i); }, "C");
  auto s = te::create_schedule({C.op()});
  auto [bx, tx] = s[C].split(C.op().axis()[0], 64);
  s[C].bind(bx, te::thread_axis("blockIdx.x"));
  s[C].bind(tx, te::thread_axis("threadIdx.x"));
  std::string text = ir::to_string(lower(s, {A, B, C}, "vadd"));
  expect_ordered_lines(text, {"// attr [iter_var(blockIdx.x, , blockIdx.x)] thread_extent = 16"});
  EXPECT_NE(text.find("if (likely("), std::string::npos) << text;
  EXPECT_NE(text.find("1000"), std::string::npos) << text;
}

TEST(LowerGolden, MatmulSplitReorder) {
  auto A = te::placeholder({64, 32}, f32, "A"), B = te::placeholder({32, 64}, f32, "B");
  auto k = te::reduce_axis({0, 32}, "k");
  auto C = te::compute(
      {64, 64}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  auto s = te::create_schedule({C.op()});
  auto ax = C.op().axis();
  auto [jo, ji] = s[C].split(ax[1], 16);
  s[C].reorder({ax[0], jo, k, ji});
  expect_ordered_lines(
      ir::to_string(lower(s, {A, B, C}, "mm")),
      {"produce C {", "for (i0, 0, 64) {", "for (i1.outer, 0, 4) {", "for (i1.inner.init, 0, 16) {",
       "C[(((i0*64) + (i1.outer*16)) + i1.inner.init)] = 0f", "for (k, 0, 32) {",
       "for (i1.inner, 0, 16) {",
       "C[(((i0*64) + (i1.outer*16)) + i1.inner)] = (C[(((i0*64) + (i1.outer*16)) + i1.inner)] + "
       "(A[((i0*32) + k)]*B[(((k*64) + (i1.outer*16)) + i1.inner)]))"});
}

TEST(LowerGolden, ComputeAtInferBoundDoc) {
  // TVM's docs/dev/inferbound.rst example: B computed at C's fused outer axis.
  auto A = te::placeholder({4, 4}, f32, "A");
  auto B = te::compute(
      {4, 4}, [&](Var i, Var j) { return A(i, j) + 2.0f; }, "B");
  auto C = te::compute(
      {4, 4}, [&](Var i, Var j) { return B(i, j) * 3.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  auto f = s[C].fuse(C.op().axis()[0], C.op().axis()[1]);
  auto [fo, fi] = s[C].split(f, 4);
  s[B].compute_at(s[C], fo);
  (void)fi;
  std::string text = ir::to_string(lower(s, {A, C}, "f"));
  expect_ordered_lines(
      text, {"produce C {", "for (i0.i1.fused.outer, 0, 4) {",
             "// attr [B] storage_scope = \"global\"", "allocate B[float32 * 4]", "produce B {",
             "for (i1, 0, 4) {", "for (i0.i1.fused.inner, 0, 4) {"});
  EXPECT_NE(text.find("*3f)"), std::string::npos) << text;
}

TEST(LowerGolden, CacheWriteLocal) {
  auto A = te::placeholder({32, 32}, f32, "A"), B = te::placeholder({32, 32}, f32, "B");
  auto k = te::reduce_axis({0, 32}, "k");
  auto C = te::compute(
      {32, 32}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  auto s = te::create_schedule({C.op()});
  auto CL = s.cache_write(C, "local");
  auto t = s[C].tile(C.op().axis()[0], C.op().axis()[1], 8, 8);
  s[CL].compute_at(s[C], t[1]);
  expect_ordered_lines(ir::to_string(lower(s, {A, B, C}, "mm")),
                       {"produce C {", "for (i0.outer, 0, 4) {", "for (i1.outer, 0, 4) {",
                        "// attr [C.local] storage_scope = \"local\"",
                        "allocate C.local[float32 * 64]", "produce C.local {", "for (k, 0, 32) {",
                        "for (i0.inner, 0, 8) {", "for (i1.inner, 0, 8) {"});
}

TEST(LowerGolden, PrintAfterEachPass) {
  auto A = te::placeholder({8}, f32, "A");
  auto C = te::compute(
      {8}, [&](Var i) { return A(i) * 2.0f; }, "C");
  auto s = te::create_schedule({C.op()});
  std::ostringstream log;
  LowerOptions opt;
  opt.print_after_each_pass = &log;
  lower(s, {A, C}, "f", opt);
  for (auto& name : lower_pass_names())
    EXPECT_NE(log.str().find("after " + name), std::string::npos) << name;
}

TEST(LowerGolden, UnscopedStageUnderThreadsIsLocal) {
  // TVM infers the scope of a stage attached inside thread loops: local under threadIdx.
  auto A = te::placeholder({64, 4}, f32, "A");
  auto B = te::compute(
      {64, 4}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "B");
  auto C = te::compute(
      {64}, [&](Var i) { return B(i, 0) * 2.0f + B(i, 3); }, "C");
  auto D = te::compute(
      {64}, [&](Var i) { return C(i) * 3.0f; }, "D");
  auto s = te::create_schedule({D.op()});
  auto [o, in] = s[D].split(D.op().axis()[0], 1);
  s[D].bind(o, te::thread_axis("threadIdx.x"));
  s[C].compute_at(s[D], in);
  s[B].compute_at(s[D], in);
  std::string text = ir::to_string(lower(s, {A, D}, "f"));
  expect_ordered_lines(text, {"// attr [B] storage_scope = \"local\"", "allocate B[float32 * 4]"});
  expect_ordered_lines(text, {"// attr [C] storage_scope = \"local\"", "allocate C[float32 * 1]"});
}
