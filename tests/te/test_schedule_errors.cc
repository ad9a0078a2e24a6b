// Each invalid primitive raises CompileError whose message names the stage and axis.
#include <gtest/gtest.h>

#include <sstream>

#include <minitvm/minitvm.h>

#include "test_util.h"

using namespace minitvm;

namespace {
const DataType f32 = DataType::Float(32);

struct Graph {
  te::Tensor A, B, C;
  te::IterVar k;
  Graph() {
    A = te::placeholder({16, 16}, f32, "A");
    k = te::reduce_axis({0, 16}, "k");
    B = te::compute(
        {16}, [&](Var i) { return te::sum(A(i, k), {k}); }, "B");
    C = te::compute(
        {16}, [&](Var i) { return B(i) * 2.0f; }, "C");
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
  EXPECT_ERROR_HAS(s[g.C].bind(i, te::thread_axis("threadIdx.x")), "In schedule for C",
                   "threadIdx.x", "already bound");
}

TEST(ScheduleErrors, ComputeAtNonConsumer) {
  Graph g;
  auto D = te::compute(
      {16}, [&](Var i) { return g.C(i) + 1.0f; }, "D");
  auto s = te::create_schedule({D.op()});
  EXPECT_ERROR_HAS(s[g.B].compute_at(s[D], D.op().axis()[0]), "In schedule for B",
                   "D does not read B");
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
  auto C = te::compute(
      {4, 4}, [&](Var i, Var j) { return te::sum(A(i, j, k), {k}); }, "C");
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
  EXPECT_ERROR_HAS(build(s, {g.A, g.C}, "llvm", "f"), "function f binds an axis to 'blockIdx.x'",
                   "target 'llvm'", "GPU target");
  // On a GPU target the binding is fine, but the root stage B left on the host is not (TVM: "did
  // you forget to bind?"); once B is bound too, the schedule builds.
  EXPECT_ERROR_HAS(build(s, {g.A, g.C}, "cuda -emulate", "f"), "stage 'B'",
                   "Did you forget to bind");
  s[g.B].bind(s[g.B].leaf_iter_vars()[0], te::thread_axis("blockIdx.x"));
  EXPECT_NO_THROW(build(s, {g.A, g.C}, "cuda -emulate", "f"));
}

TEST(ScheduleErrors, TensorIndexArity) {
  Graph g;
  EXPECT_ERROR_HAS(g.A(1), "tensor A has 2 dimensions");
  EXPECT_ERROR_HAS(te::thread_axis("threadIdx.w"), "unknown thread tag");
}

TEST(ScheduleErrors, DoubleBufferNeedsABufferInsideALoop) {
  Graph g;
  {
    auto s = te::create_schedule({g.C.op()});
    EXPECT_ERROR_HAS(s[g.C].double_buffer(), "In schedule for C", "output stage");
    EXPECT_ERROR_HAS(s[g.A].double_buffer(), "In schedule for A", "placeholder");
  }
  {
    // Computed at the root: nothing to alternate over.
    auto s = te::create_schedule({g.C.op()});
    s[g.B].double_buffer();
    EXPECT_ERROR_HAS(lower(s, {g.A, g.C}, "f"), "In schedule for B", "inside a loop", "compute_at");
  }
  {
    // Inlined after being marked.
    Graph h;
    auto D = te::compute(
        {16}, [&](Var i) { return h.A(i, 0) + 1.0f; }, "D");
    auto E = te::compute(
        {16}, [&](Var i) { return D(i) * 2.0f; }, "E");
    auto s = te::create_schedule({E.op()});
    s[D].double_buffer();
    s[D].compute_inline();
    EXPECT_ERROR_HAS(lower(s, {h.A, E}, "f"), "In schedule for D", "inlined");
    auto s2 = te::create_schedule({E.op()});
    s2[D].compute_inline();
    EXPECT_ERROR_HAS(s2[D].double_buffer(), "In schedule for D", "inlined");
  }
  {
    // Computed at a loop: lowers, with the buffer doubled.
    auto s = te::create_schedule({g.C.op()});
    s[g.B].compute_at(s[g.C], s[g.C].leaf_iter_vars()[0]);
    s[g.B].double_buffer();
    std::ostringstream os;
    os << lower(s, {g.A, g.C}, "f")->body;
    EXPECT_NE(os.str().find("allocate B[float32 * 2]"), std::string::npos) << os.str();
  }
}
