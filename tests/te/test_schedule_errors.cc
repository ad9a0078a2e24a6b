// Each invalid primitive raises CompileError whose message names the stage and axis.
#include <gtest/gtest.h>

#include <minitvm/minitvm.h>

using namespace minitvm;

namespace {
const DataType f32 = DataType::Float(32);

template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "<no error>";
}
#define EXPECT_ERROR_HAS(stmt, ...)                                   \
  do {                                                                \
    std::string msg = error_of([&] { stmt; });                        \
    for (const char* part : {__VA_ARGS__})                            \
      EXPECT_NE(msg.find(part), std::string::npos) << "message: " << msg << "\nmissing: " << part; \
  } while (0)

struct Graph {
  te::Tensor A, B, C;
  te::IterVar k;
  Graph() {
    A = te::placeholder({16, 16}, f32, "A");
    k = te::reduce_axis({0, 16}, "k");
    B = te::compute({16}, [&](Var i) { return te::sum(A(i, k), {k}); }, "B");
    C = te::compute({16}, [&](Var i) { return B(i) * 2.0f; }, "C");
  }
};
}  // namespace

TEST(ScheduleErrors, SplitNonLeaf) {
  Graph g;
  auto s = te::create_schedule({g.C.op()});
  auto x = g.C.op().axis()[0];
  s[g.C].split(x, 4);
  EXPECT_ERROR_HAS(s[g.C].split(x, 2), "In schedule for C", "`i0`", "already split");
}

TEST(ScheduleErrors, SplitBadFactor) {
  Graph g;
  auto s = te::create_schedule({g.C.op()});
  EXPECT_ERROR_HAS(s[g.C].split(g.C.op().axis()[0], 0), "In schedule for C", "must be positive");
}

TEST(ScheduleErrors, AxisOfAnotherStage) {
  Graph g;
  auto s = te::create_schedule({g.C.op()});
  EXPECT_ERROR_HAS(s[g.C].vectorize(g.B.op().axis()[0]), "In schedule for C", "does not belong");
}

TEST(ScheduleErrors, ReorderDuplicates) {
  Graph g;
  auto s = te::create_schedule({g.C.op()});
  auto [o, i] = s[g.C].split(g.C.op().axis()[0], 4);
  EXPECT_ERROR_HAS(s[g.C].reorder({o, i, o}), "In schedule for C", "twice", "i0.outer");
}

TEST(ScheduleErrors, BindSameThreadTwice) {
  Graph g;
  auto s = te::create_schedule({g.C.op()});
  auto [o, i] = s[g.C].split(g.C.op().axis()[0], 4);
  s[g.C].bind(o, te::thread_axis("threadIdx.x"));
  EXPECT_ERROR_HAS(s[g.C].bind(i, te::thread_axis("threadIdx.x")), "In schedule for C", "threadIdx.x", "already bound");
}

TEST(ScheduleErrors, ComputeAtNonConsumer) {
  Graph g;
  auto D = te::compute({16}, [&](Var i) { return g.C(i) + 1.0f; }, "D");
  auto s = te::create_schedule({D.op()});
  EXPECT_ERROR_HAS(s[g.B].compute_at(s[D], D.op().axis()[0]), "In schedule for B", "D does not read B");
}

TEST(ScheduleErrors, InlineOutputOrReduction) {
  Graph g;
  auto s = te::create_schedule({g.C.op()});
  EXPECT_ERROR_HAS(s[g.C].compute_inline(), "In schedule for C", "output");
  EXPECT_ERROR_HAS(s[g.B].compute_inline(), "In schedule for B", "reduction", "`k`");
}

TEST(ScheduleErrors, FuseNonAdjacentAndMixed) {
  auto A = te::placeholder({4, 4, 4}, f32, "A");
  auto k = te::reduce_axis({0, 4}, "k");
  auto C = te::compute({4, 4}, [&](Var i, Var j) { return te::sum(A(i, j, k), {k}); }, "C");
  auto s = te::create_schedule({C.op()});
  auto ax = C.op().axis();
  s[C].reorder({ax[1], ax[0]});
  EXPECT_ERROR_HAS(s[C].fuse(ax[0], ax[1]), "In schedule for C", "adjacent");
  EXPECT_ERROR_HAS(s[C].fuse(ax[0], k), "In schedule for C", "reduction axis `k`");
}

TEST(ScheduleErrors, MissingArgumentAndBadTarget) {
  Graph g;
  auto s = te::create_schedule({g.C.op()});
  EXPECT_ERROR_HAS(lower(s, {g.C}, "f"), "tensor A", "argument");
  EXPECT_ERROR_HAS(lower(s, {g.A}, "f"), "output C is missing");
  EXPECT_ERROR_HAS(build(s, {g.A, g.C}, "opencl", "f"), "unknown target");
}

TEST(ScheduleErrors, ThreadBindingOnCpuTarget) {
  Graph g;
  auto s = te::create_schedule({g.C.op()});
  auto ax = s[g.C].leaf_iter_vars();
  s[g.C].bind(ax[0], te::thread_axis("blockIdx.x"));
  EXPECT_ERROR_HAS(build(s, {g.A, g.C}, "llvm", "f"), "function f binds an axis to 'blockIdx.x'", "target 'llvm'",
                   "GPU target");
  EXPECT_NO_THROW(build(s, {g.A, g.C}, "cuda -emulate", "f"));
}

TEST(ScheduleErrors, TensorIndexArity) {
  Graph g;
  EXPECT_ERROR_HAS(g.A(1), "tensor A has 2 dimensions");
  EXPECT_ERROR_HAS(te::thread_axis("threadIdx.w"), "unknown thread tag");
}
