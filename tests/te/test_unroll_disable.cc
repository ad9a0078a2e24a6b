// Stage::pragma(axis, "unroll_disable"): the axis' loops carry llvm.loop.unroll.disable and stay
// loops through LLVM's O3 pipeline (a register-tile loop: unrolled in full, the tiles' accumulator
// buffer would become values live across every tile), including the main part that
// partition_guarded_tiles splits from a ragged last tile; the results do not change.
#include "runtime/cpu/jit.h"
#include "test_util.h"

using namespace minitvm;
using minitvm::testing::count_occurrences;
using minitvm::testing::random_vec;

namespace {
const DataType f32 = DataType::Float(32);
}  // namespace

TEST(UnrollDisable, TileLoopStaysALoopAndResultsHold) {
  // C = A x B with 8-lane rows: C's accumulator (a cache) computed per row in tiles of 5 columns
  // of B^T-blocks (x), the reduction (k) split in two loops inside the tile loop, as the
  // blocked 1x1 convolution does. 14 columns: two whole tiles and a ragged one; 15: three whole.
  for (int64_t w : {14, 15}) {
    for (bool pragma : {true, false}) {
      SCOPED_TRACE(std::to_string(w) + (pragma ? " with the pragma" : " without"));
      const int64_t rows = 3, K = 32, lanes = 8;
      auto A = te::placeholder({rows, w, K}, f32, "A");
      auto B = te::placeholder({K, lanes}, f32, "B");
      auto k = te::reduce_axis({0, K}, "k");
      auto C = te::compute(
          {rows, w, lanes}, [&](Var r, Var x, Var l) { return te::sum(A(r, x, k) * B(k, l), {k}); },
          "C");
      auto s = te::create_schedule({C.op()});
      te::Tensor CC = s.cache_write(C, "global");
      auto ax = C.op().axis();
      s[C].vectorize(ax[2]);
      s[CC].compute_at(s[C], ax[0]);
      auto cax = CC.op().axis();
      auto [xo, xi] = s[CC].split(cax[1], 5);
      auto [ko, ki] = s[CC].split(CC.op().reduce_axis()[0], 16);
      s[CC].reorder({cax[0], xo, ko, ki, xi, cax[2]});
      s[CC].unroll(xi);
      s[CC].vectorize(cax[2]);
      if (pragma) s[CC].pragma(xo, "unroll_disable");
      auto mod = build(s, {A, B, C}, "llvm", "tiles");
      const std::string ll = mod.get_source("ll");
      // One loop carries the hint: the tile loop, or its main part when the last tile is ragged.
      EXPECT_EQ(count_occurrences(ll, "!{!\"llvm.loop.unroll.disable\"}"), pragma ? 1u : 0u) << ll;
      // ... and keeps it after O3: the loop is still there.
      const std::string opt = runtime::cpu::jit_optimized_ir(ll);
      EXPECT_EQ(opt.find("llvm.loop.unroll.disable") != std::string::npos, pragma) << opt;

      auto a = random_vec(rows * w * K, 3), b = random_vec(K * lanes, 4);
      auto c = runtime::NDArray::empty({rows, w, lanes}, f32);
      mod.get_function("tiles")(runtime::NDArray::from_vector(a, {rows, w, K}),
                                runtime::NDArray::from_vector(b, {K, lanes}), c);
      auto got = c.to_vector<float>();
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t x = 0; x < w; ++x)
          for (int64_t l = 0; l < lanes; ++l) {
            double ref = 0;
            for (int64_t kk = 0; kk < K; ++kk)
              ref += static_cast<double>(a[(r * w + x) * K + kk]) * b[kk * lanes + l];
            ASSERT_NEAR(got[(r * w + x) * lanes + l], ref, 1e-4) << r << " " << x << " " << l;
          }
    }
  }
}
