// Winograd F(m, 3) on the blocked layouts (src/topi/cpu/winograd_nchwc.cc) against a naive direct
// convolution in double (ref.h): both tile sizes, maps that are and are not multiples of the tile,
// symmetric and asymmetric padding, batch 2, input and output blocks that differ, a fused
// bias + relu epilogue, grouped convolutions (against a naive grouped one); and the weight
// transform against U = G g G^T computed here.
#include "ref.h"

#include "minitvm/codegen/build.h"
#include "minitvm/topi/cpu_schedule.h"
#include "minitvm/topi/nn.h"

using namespace minitvm;
using namespace topi_test;

namespace {

std::vector<Expr> exprs(const std::vector<int64_t>& s) {
  std::vector<Expr> r;
  for (int64_t v : s) r.push_back(Expr(static_cast<int>(v)));
  return r;
}

std::vector<int64_t> shape_of(const te::Tensor& t) {
  std::vector<int64_t> r;
  for (auto& e : t.shape()) r.push_back(*ir::as_const_int(e));
  return r;
}

struct Case {
  int n, ci, h, w, co;
  std::array<int, 4> pad;  // top, left, bottom, right
  int64_t m, ib, ob;
  bool epilogue;
  int groups = 1;
};

// x NCHW -> NCHW[b]c
std::vector<float> block_data(const std::vector<float>& x, int n, int c, int h, int w, int64_t b) {
  std::vector<float> r(x.size());
  for (int i = 0; i < n; ++i)
    for (int ch = 0; ch < c; ++ch)
      for (int y = 0; y < h * w; ++y)
        r[((size_t(i) * (c / b) + ch / b) * h * w + y) * b + ch % b] =
            x[(size_t(i) * c + ch) * h * w + y];
  return r;
}

void check(const Case& c, unsigned seed) {
  SCOPED_TRACE("F(" + std::to_string(c.m) + ",3) " + std::to_string(c.ci) + "x" +
               std::to_string(c.h) + "x" + std::to_string(c.w) + " -> " + std::to_string(c.co) +
               " groups " + std::to_string(c.groups));
  const int cig = c.ci / c.groups;  // a group's input channels: the weight's second axis
  ConvShape s{c.n, c.ci, c.h, c.w, c.co, 3, 3};
  s.pad = c.pad;
  const int OH = s.oh(), OW = s.ow();
  auto x = rnd(size_t(c.n) * c.ci * c.h * c.w, seed);
  auto k = rnd(size_t(c.co) * cig * 9, seed + 1);
  auto bias = rnd(size_t(c.co), seed + 2);
  // The weight transform, built and run.
  te::Tensor kt = te::placeholder(exprs({c.co, cig, 3, 3}), DataType::Float(32), "kernel");
  te::Tensor ut = topi::cpu::conv2d_winograd_nchwc_weight_transform(kt, c.m, c.ib, c.ob);
  const std::vector<int64_t> us = shape_of(ut);
  const int64_t alpha = c.m + 2;
  ASSERT_EQ(us, (std::vector<int64_t>{alpha, alpha, c.co / c.ob, cig / c.ib, c.ib, c.ob}));
  runtime::Module umod = build(te::create_schedule({ut.op()}), {kt, ut}, "llvm", "wt");
  auto un = runtime::NDArray::empty(us, DataType::Float(32));
  umod.get_function("wt")(runtime::NDArray::from_vector(k, {c.co, cig, 3, 3}), un);
  // U = G g G^T, here in double.
  const topi::nn::WinogradMatrices wm = topi::nn::winograd_transform_matrices(int(c.m), 3);
  const std::vector<float> u = un.to_vector<float>();
  for (int64_t e = 0; e < alpha; ++e)
    for (int64_t f = 0; f < alpha; ++f)
      for (int o = 0; o < c.co; ++o)
        for (int i = 0; i < cig; ++i) {
          double want = 0;
          for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
              want += wm.G[e][a] * k[(size_t(o) * cig + i) * 9 + a * 3 + b] * wm.G[f][b];
          float got =
              u[(((((e * alpha + f) * (c.co / c.ob) + o / c.ob) * (cig / c.ib) + i / c.ib) * c.ib +
                  i % c.ib) *
                 c.ob) +
                o % c.ob];
          ASSERT_NEAR(got, want, 1e-5 * std::max(1.0, std::fabs(want)));
        }
  // The convolution, alone or with bias + relu fused.
  te::Tensor dt =
      te::placeholder(exprs({c.n, c.ci / c.ib, c.h, c.w, c.ib}), DataType::Float(32), "data");
  te::Tensor up = te::placeholder(exprs(us), DataType::Float(32), "u");
  te::Tensor bt = te::placeholder(exprs({1, c.co / c.ob, 1, 1, c.ob}), DataType::Float(32), "b");
  topi::cpu::WinogradNCHWc t = topi::cpu::conv2d_winograd_nchwc(
      dt, up, {c.pad[0], c.pad[1], c.pad[2], c.pad[3]}, c.m, c.groups);
  ASSERT_EQ(shape_of(t.output), (std::vector<int64_t>{c.n, c.co / c.ob, OH, OW, c.ob}));
  // relu(conv + bias), the bias broadcast along the blocked channels (relay's fused epilogue).
  te::Tensor conv = t.output;
  te::Tensor biased = te::compute(
      conv.shape(),
      [&](Var n, Var o, Var h, Var w, Var b) {
        return conv(n, o, h, w, b) + bt(Expr(0), o, Expr(0), Expr(0), b);
      },
      "T_add", "broadcast");
  te::Tensor out = c.epilogue ? topi::nn::relu(biased) : conv;
  te::Schedule sch = c.epilogue ? topi::cpu::schedule_conv2d_winograd_nchwc_fused({out})
                                : topi::cpu::schedule_conv2d_winograd_nchwc(t);
  std::vector<te::Tensor> args{dt, up};
  if (c.epilogue) args.push_back(bt);
  args.push_back(out);
  runtime::Module mod = build(sch, args, "llvm", "wino");
  auto yn = runtime::NDArray::empty(shape_of(out), DataType::Float(32));
  auto xn = runtime::NDArray::from_vector(block_data(x, c.n, c.ci, c.h, c.w, c.ib),
                                          {c.n, c.ci / c.ib, c.h, c.w, c.ib});
  if (c.epilogue) {
    auto bn = runtime::NDArray::from_vector(block_data(bias, 1, c.co, 1, 1, c.ob),
                                            {1, c.co / c.ob, 1, 1, c.ob});
    mod.get_function("wino")(xn, un, bn, yn);
  } else {
    mod.get_function("wino")(xn, un, yn);
  }
  std::vector<float> want = c.groups == 1 ? conv_ref(s, x, k) : group_conv_ref(s, c.groups, x, k);
  if (c.epilogue)
    for (size_t i = 0; i < want.size(); ++i)
      want[i] = std::max(0.0f, want[i] + bias[(i / (size_t(OH) * OW)) % c.co]);
  // Winograd's rounding (F(4, 3)'s transforms scale by up to 8) against a double reference:
  // 1e-4 of the output's magnitude.
  float scale = 0;
  for (float v : want) scale = std::max(scale, std::fabs(v));
  expect_close(yn.to_vector<float>(), block_data(want, c.n, c.co, OH, OW, c.ob), 1e-4f * scale);
}

}  // namespace

TEST(WinogradNCHWc, MatchesTheDirectConvolution) {
  const std::vector<Case> cases = {
      {1, 32, 16, 16, 32, {1, 1, 1, 1}, 4, 16, 16, false},  // exact 4x4 tiles
      {1, 64, 9, 11, 32, {1, 1, 1, 1}, 4, 32, 16, false},   // overhanging tiles, blocks differ
      {1, 64, 9, 11, 32, {1, 1, 1, 1}, 2, 16, 32, true},    // F(2, 3), odd map, epilogue
      {2, 32, 10, 7, 48, {0, 1, 2, 0}, 4, 8, 16, true},     // batch 2, asymmetric padding
      {1, 48, 14, 14, 64, {1, 1, 1, 1}, 2, 16, 32, false},  // ResNet's 14x14 shape, smaller
      {1, 16, 24, 24, 16, {0, 0, 0, 0}, 4, 16, 16, false},  // no padding
      // Grouped: RegNet's and ResNeXt's layers, smaller (groups of one to three blocks).
      {1, 96, 14, 14, 96, {1, 1, 1, 1}, 4, 16, 16, true, 2},  // 48-channel groups, F(4, 3)
      {1, 64, 7, 7, 64, {1, 1, 1, 1}, 2, 16, 16, false, 4},   // 16-channel groups, 7x7
      {2, 64, 9, 10, 128, {1, 1, 1, 1}, 4, 16, 16, true, 2},  // a group's 32 -> 64 channels
      {1, 64, 12, 12, 64, {0, 1, 2, 1}, 2, 8, 8, false, 4},   // two 8-lane blocks per group
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 40 + 3 * unsigned(i));
}

TEST(WinogradNCHWc, BadOperandsAreUserErrors) {
  te::Tensor d = te::placeholder(exprs({1, 2, 8, 8, 16}), DataType::Float(32), "data");
  te::Tensor u = te::placeholder(exprs({4, 4, 2, 2, 16, 16}), DataType::Float(32), "u");
  // F(4, 3) needs a 6x6 transformed weight.
  EXPECT_THROW(topi::cpu::conv2d_winograd_nchwc(d, u, {1, 1}, 4), CompileError);
  te::Tensor k5 = te::placeholder(exprs({32, 32, 5, 5}), DataType::Float(32), "k");
  EXPECT_THROW(topi::cpu::conv2d_winograd_nchwc_weight_transform(k5, 2, 16, 16), CompileError);
  te::Tensor k3 = te::placeholder(exprs({32, 24, 3, 3}), DataType::Float(32), "k");
  EXPECT_THROW(topi::cpu::conv2d_winograd_nchwc_weight_transform(k3, 2, 16, 16), CompileError);
  // Groups must divide the channel blocks, and the weight must hold one group's input blocks.
  te::Tensor u4 = te::placeholder(exprs({4, 4, 2, 1, 16, 16}), DataType::Float(32), "u4");
  EXPECT_NO_THROW(topi::cpu::conv2d_winograd_nchwc(d, u4, {1, 1}, 2, 2));
  EXPECT_THROW(topi::cpu::conv2d_winograd_nchwc(d, u4, {1, 1}, 2, 1), CompileError);
  EXPECT_THROW(topi::cpu::conv2d_winograd_nchwc(d, u4, {1, 1}, 2, 3), CompileError);
  EXPECT_THROW(topi::cpu::conv2d_winograd_nchwc(d, u, {1, 1}, 2, 2), CompileError);
  EXPECT_THROW(topi::cpu::conv2d_winograd_nchwc(d, u4, {1, 1}, 2, 0), CompileError);
}
