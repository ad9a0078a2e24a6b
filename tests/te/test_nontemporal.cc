// Stage::pragma(axis, "nontemporal_store"): the dense vector stores under it bypass the caches
// where their address is aligned to their size (checked at run time), ordinary stores elsewhere,
// with unchanged results, aligned or not; a serial region ends with a fence, a parallel loop's
// task function with one.
#include <dlpack/dlpack.h>

#include <sstream>

#include "runtime/cpu/jit.h"
#include "test_util.h"

using namespace minitvm;
using minitvm::testing::random_vec;

namespace {
const DataType f32 = DataType::Float(32);

// A contiguous n x m float32 array whose element 0 sits `offset` floats into its storage (a view
// a producer might hand over through DLPack), so that its rows are not 64-byte aligned.
struct OffsetStorage {
  std::vector<float> storage;
  int64_t shape[2];
  DLManagedTensor managed{};
};
runtime::NDArray offset_array(int64_t n, int64_t m, int offset) {
  auto* p = new OffsetStorage();
  p->storage.assign(static_cast<size_t>(n * m + offset), -7.f);
  p->shape[0] = n;
  p->shape[1] = m;
  DLTensor& t = p->managed.dl_tensor;
  t.data = p->storage.data();
  t.byte_offset = offset * sizeof(float);
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = {kDLFloat, 32, 1};
  t.shape = p->shape;
  t.strides = nullptr;
  p->managed.manager_ctx = p;
  p->managed.deleter = [](DLManagedTensor* d) {
    delete static_cast<OffsetStorage*>(d->manager_ctx);
  };
  return runtime::NDArray::from_dlpack(&p->managed);
}
}  // namespace

TEST(NontemporalStore, AlignedVectorsStreamAndEveryBufferGetsTheSameResult) {
  const int n = 24, m = 80;  // rows of 80 floats: 5 vectors of 16, the last row ends a vector
  for (bool parallel : {false, true}) {
    SCOPED_TRACE(parallel ? "parallel rows" : "serial");
    auto A = te::placeholder({n, m}, f32, "A");
    auto B = te::compute(
        {n, m}, [&](Var i, Var j) { return A(i, j) * 2.0f + 1.0f; }, "B");
    auto s = te::create_schedule({B.op()});
    auto [jo, ji] = s[B].split(B.op().axis()[1], 16);
    s[B].vectorize(ji);
    s[B].pragma(jo, "nontemporal_store");
    if (parallel) s[B].parallel(B.op().axis()[0]);
    auto mod = build(s, {A, B}, "llvm", "stream");
    std::string ll = mod.get_source("ll");
    EXPECT_NE(ll.find("!nontemporal"), std::string::npos) << ll;
    EXPECT_NE(ll.find("align 64, !nontemporal"), std::string::npos) << ll;
    // one fence: at the end of the serial region, or of the parallel task function
    size_t fence = ll.find("fence seq_cst");
    ASSERT_NE(fence, std::string::npos) << ll;
    EXPECT_EQ(ll.find("fence", fence + 1), std::string::npos) << ll;
    if (parallel) {  // in the task function, after its call of the loop body
      size_t task = ll.find("define internal void @stream_parallel0(");
      ASSERT_NE(task, std::string::npos) << ll;
      EXPECT_GT(fence, ll.find("call void @stream_parallel0_body", task)) << ll;
    }
    EXPECT_NE(runtime::cpu::jit_optimized_ir(ll).find("!nontemporal"), std::string::npos);

    auto a = random_vec(n * m, 9);
    std::vector<float> ref(n * m);
    for (int i = 0; i < n * m; ++i) ref[i] = a[i] * 2.0f + 1.0f;
    auto an = runtime::NDArray::from_vector(a, {n, m});
    auto aligned = runtime::NDArray::empty({n, m}, f32);
    mod.get_function("stream")(an, aligned);
    EXPECT_EQ(aligned.to_vector<float>(), ref);
    for (int offset : {1, 4, 8}) {  // 4, 16 and 32 bytes past a 64-byte boundary or more
      SCOPED_TRACE(offset);
      runtime::NDArray view = offset_array(n, m, offset);
      mod.get_function("stream")(an, view);
      EXPECT_EQ(view.to_vector<float>(), ref);
    }
  }
}

// Other stores under the pragma stay ordinary, with unchanged results: the masked tail of a split
// (70 = 4 x 16 + 6: loop_partition peels the last vector, the four before it stream) and vectors
// of no power-of-two size (7 floats).
TEST(NontemporalStore, MaskedTailsAndOddVectorsStayOrdinaryStores) {
  for (auto [m, lanes] : {std::pair{70, 16}, std::pair{63, 7}}) {
    SCOPED_TRACE(lanes);
    const int n = 6;
    auto A = te::placeholder({n, m}, f32, "A");
    auto B = te::compute(
        {n, m}, [&](Var i, Var j) { return A(i, j) - 3.0f; }, "B");
    auto s = te::create_schedule({B.op()});
    auto [jo, ji] = s[B].split(B.op().axis()[1], lanes);
    s[B].vectorize(ji);
    s[B].pragma(B.op().axis()[0], "nontemporal_store");
    auto mod = build(s, {A, B}, "llvm", "tail");
    std::string ll = mod.get_source("ll");
    const bool tail = m % lanes != 0;
    EXPECT_EQ(ll.find("!nontemporal") != std::string::npos, tail) << ll;
    EXPECT_EQ(ll.find("fence") != std::string::npos, tail) << ll;
    int masked = 0;
    std::istringstream lines(ll);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("call void @llvm.masked.store") == std::string::npos) continue;
      ++masked;
      EXPECT_EQ(line.find("!nontemporal"), std::string::npos) << line;
    }
    if (tail) EXPECT_GT(masked, 0) << ll;
    auto a = random_vec(n * m, 10);
    auto bn = runtime::NDArray::empty({n, m}, f32);
    mod.get_function("tail")(runtime::NDArray::from_vector(a, {n, m}), bn);
    std::vector<float> ref(n * m);
    for (int i = 0; i < n * m; ++i) ref[i] = a[i] - 3.0f;
    EXPECT_EQ(bn.to_vector<float>(), ref);
  }
}
