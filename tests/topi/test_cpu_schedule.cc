// CPU schedules of topi ops, built for llvm and compared with naive references.
#include "ref.h"

#include <minitvm/topi/cpu_schedule.h>
#include <minitvm/topi/nn.h>

using namespace minitvm;
using namespace topi_test;
namespace nn = minitvm::topi::nn;
namespace cpu = minitvm::topi::cpu;

namespace {
const DataType f32 = DataType::Float(32);

void check(const ConvShape& s, int mult, bool relu, bool winograd = false) {
  SCOPED_TRACE(testing::Message() << "conv " << s.n << "x" << s.ci << "x" << s.h << "x" << s.w
                                  << " co " << s.co << " k " << s.kh << "x" << s.kw << " mult "
                                  << mult << " relu " << relu);
  int co = mult > 0 ? s.ci * mult : s.co;
  auto data = te::placeholder({s.n, s.ci, s.h, s.w}, f32, "data");
  auto kernel = mult > 0 ? te::placeholder({s.ci, mult, s.kh, s.kw}, f32, "placeholder")
                         : te::placeholder({s.co, s.ci, s.kh, s.kw}, f32, "placeholder");
  std::vector<int64_t> pad{s.pad[0], s.pad[1], s.pad[2], s.pad[3]};
  te::Tensor conv;
  nn::WinogradTensors wt;
  if (winograd) {
    wt = nn::conv2d_winograd_nchw(data, kernel, pad);
    conv = wt.output;
  } else {
    conv = mult > 0 ? nn::depthwise_conv2d_nchw(data, kernel, {s.sh, s.sw}, pad, {s.dh, s.dw})
                    : nn::conv2d_nchw(data, kernel, {s.sh, s.sw}, pad, {s.dh, s.dw});
  }
  te::Tensor out = relu ? nn::relu(conv) : conv;
  te::Schedule sch = winograd   ? cpu::schedule_conv2d_winograd(wt, {out})
                     : mult > 0 ? cpu::schedule_depthwise_conv2d_nchw({out})
                                : cpu::schedule_conv2d_nchw({out});
  auto mod = build(sch, {data, kernel, out}, "llvm", "conv");
  auto x = rnd(size_t(s.n) * s.ci * s.h * s.w, 21);
  auto k = rnd(size_t(co) * (mult > 0 ? 1 : s.ci) * s.kh * s.kw, 22);
  auto on = runtime::NDArray::empty(nn::const_shape(out), f32);
  mod.get_function("conv")(runtime::NDArray::from_vector(x, nn::const_shape(data)),
                           runtime::NDArray::from_vector(k, nn::const_shape(kernel)), on);
  auto ref = conv_ref(s, x, k, mult);
  if (relu)
    for (auto& v : ref) v = std::max(v, 0.f);
  expect_close(on.to_vector<float>(), ref, 1e-4f);
}
}  // namespace

TEST(TopiCpu, Conv2dShapes) {
  check({1, 8, 14, 14, 16, 3, 3, 1, 1, {1, 1, 1, 1}}, 0, false);
  check({1, 16, 7, 7, 12, 1, 1}, 0, true);
  check({2, 3, 15, 13, 5, 3, 3, 2, 2, {1, 0, 1, 2}}, 0, false);
  check({1, 4, 12, 12, 8, 3, 3, 1, 1, {2, 2, 2, 2}, 2, 2}, 0, true);
  check({1, 3, 23, 23, 8, 7, 7, 2, 2, {3, 3, 3, 3}}, 0, false);
  // Weights larger than the input (channel blocks outside the rows), with a two-row register
  // tile (6 rows), and with none (13 rows: twice the channels per tile instead).
  check({1, 64, 6, 6, 200, 1, 1}, 0, true);
  check({1, 64, 13, 13, 250, 1, 1}, 0, false);
  check({1, 32, 5, 5, 48, 3, 3, 1, 1, {1, 1, 1, 1}}, 0, true);
  check({2, 58, 14, 14, 116, 1, 1}, 0, true);  // ShuffleNet's 1x1 layers stay NCHW
}

TEST(TopiCpu, DepthwiseShapes) {
  check({1, 8, 14, 14, 0, 3, 3, 1, 1, {1, 1, 1, 1}}, 1, true);
  check({2, 3, 11, 9, 0, 3, 3, 2, 2, {1, 1, 1, 1}}, 2, false);
}

namespace {
// schedule_group_conv2d_nchw with a bias + relu epilogue (or none) on llvm.
void check_group(const ConvShape& s, int groups, bool epilogue) {
  SCOPED_TRACE(testing::Message() << "group conv " << s.ci << "->" << s.co << " groups " << groups
                                  << " stride " << s.sh << " dil " << s.dh << " epilogue "
                                  << epilogue);
  auto data = te::placeholder({s.n, s.ci, s.h, s.w}, f32, "data");
  auto kernel = te::placeholder({s.co, s.ci / groups, s.kh, s.kw}, f32, "placeholder");
  auto bias = te::placeholder({s.co}, f32, "bias");
  std::vector<int64_t> pad{s.pad[0], s.pad[1], s.pad[2], s.pad[3]};
  auto conv = nn::group_conv2d_nchw(data, kernel, {s.sh, s.sw}, pad, {s.dh, s.dw}, groups);
  te::Tensor out = epilogue ? nn::relu(nn::bias_add(conv, bias)) : conv;
  auto sch = cpu::schedule_group_conv2d_nchw({out});
  std::vector<te::Tensor> args{data, kernel, out};
  if (epilogue) args.insert(args.begin() + 2, bias);
  auto mod = build(sch, args, "llvm", "gconv");
  auto x = rnd(size_t(s.n) * s.ci * s.h * s.w, 31),
       k = rnd(size_t(s.co) * (s.ci / groups) * s.kh * s.kw, 32);
  auto b = rnd(size_t(s.co), 33);
  auto on = runtime::NDArray::empty(nn::const_shape(out), f32);
  std::vector<runtime::ArgValue> call{runtime::NDArray::from_vector(x, nn::const_shape(data)),
                                      runtime::NDArray::from_vector(k, nn::const_shape(kernel))};
  if (epilogue) call.push_back(runtime::NDArray::from_vector(b, {s.co}));
  call.push_back(on);
  mod.get_function("gconv").call(call);
  auto ref = group_conv_ref(s, groups, x, k);
  if (epilogue) {
    size_t plane = size_t(s.oh()) * s.ow();
    for (size_t i = 0; i < ref.size(); ++i) ref[i] = std::max(ref[i] + b[(i / plane) % s.co], 0.f);
  }
  expect_close(on.to_vector<float>(), ref, 1e-4f);
}
}  // namespace

TEST(TopiCpu, GroupConv2dShapes) {
  check_group({1, 8, 14, 14, 16, 3, 3, 1, 1, {1, 1, 1, 1}}, 2, true);
  check_group({2, 16, 13, 11, 16, 3, 3, 2, 2, {1, 1, 1, 1}}, 4, false);     // stride 2
  check_group({1, 8, 12, 12, 8, 3, 3, 1, 1, {2, 2, 2, 2}, 2, 2}, 4, true);  // dilation 2
  check_group({1, 64, 9, 9, 64, 3, 3, 2, 2, {1, 0, 1, 1}}, 32, true);     // ResNeXt 32x2d, stride 2
  check_group({1, 128, 7, 7, 256, 3, 3, 1, 1, {1, 1, 1, 1}}, 32, false);  // 4 in, 8 out per group
  check_group({1, 12, 10, 10, 24, 1, 1, 1, 1}, 3, true);  // grouped 1x1 (ShuffleNet)
  check_group({1, 32, 5, 56, 32, 3, 3, 1, 1, {1, 1, 1, 1}}, 8, true);  // ResNeXt's 4 per group
}

// Rows of 56 (ResNeXt-50's first stage) on 8 lanes (AVX2): the row tile is a whole vector, not
// 14 lanes (a vector and a part), and the 4-channel group tile takes two rows.
TEST(TopiCpu, GroupConv2dRowTileIsWholeVectors) {
  auto data = te::placeholder({1, 32, 6, 56}, f32, "data");
  auto kernel = te::placeholder({32, 4, 3, 3}, f32, "kernel");
  auto conv = nn::group_conv2d_nchw(data, kernel, {1, 1}, {1, 1, 1, 1}, {1, 1}, 8);
  const std::string ir =
      to_string(lower(cpu::schedule_group_conv2d_nchw({conv}), {data, kernel, conv}, "g"));
  const int64_t lanes = cpu::fp32_lanes();
  if (56 % lanes != 0) GTEST_SKIP() << lanes << " lanes: no whole-vector tile divides 56";
  EXPECT_EQ(ir.find(", 1, 14)"), std::string::npos) << ir;
  EXPECT_NE(ir.find(", 1, " + std::to_string(lanes) + ")"), std::string::npos) << ir;
  EXPECT_NE(ir.find("(yy.inner, 0, 2)"), std::string::npos) << ir;  // two rows
}

TEST(TopiCpu, WinogradShapes) {
  check({1, 8, 8, 8, 8, 3, 3, 1, 1, {1, 1, 1, 1}}, 0, false, true);
  check({1, 4, 7, 7, 6, 3, 3, 1, 1, {1, 1, 1, 1}}, 0, true, true);
}

// Small batches take the row-dot-product schedule (rfactor over in_dim lanes), larger ones or an
// in_dim without a divisor >= 4 the column-vector one; both with and without an epilogue.
TEST(TopiCpu, DenseShapes) {
  for (auto [B, K, N] : std::vector<std::array<int, 3>>{{1, 64, 40},
                                                        {4, 30, 17},
                                                        {3, 128, 64},
                                                        {1, 1280, 1000},
                                                        {2, 13, 5},
                                                        {1, 2, 3},
                                                        {32, 64, 24}}) {
    SCOPED_TRACE(testing::Message() << B << "x" << K << "x" << N);
    auto x = te::placeholder({B, K}, f32, "x"), w = te::placeholder({N, K}, f32, "w");
    auto b = te::placeholder({N}, f32, "b");
    auto out = nn::relu(nn::dense(x, w, b));
    // Weights of 1 MiB and more (here 1280 x 1000) are prefetched ahead of the row loads.
    const bool big = int64_t(N) * K * 4 >= (int64_t{1} << 20) && B <= 16;
    EXPECT_EQ(
        to_string(lower(cpu::schedule_dense({out}), {x, w, b, out}, "dense")).find("prefetch(") !=
            std::string::npos,
        big);
    auto mod = build(cpu::schedule_dense({out}), {x, w, b, out}, "llvm", "dense");
    auto xv = rnd(B * K, 1), wv = rnd(N * K, 2), bv = rnd(N, 3);
    auto on = runtime::NDArray::empty({B, N}, f32);
    mod.get_function("dense")(runtime::NDArray::from_vector(xv, {B, K}),
                              runtime::NDArray::from_vector(wv, {N, K}),
                              runtime::NDArray::from_vector(bv, {N}), on);
    auto ref = dense_ref(B, K, N, xv, wv, &bv);
    for (auto& v : ref) v = std::max(v, 0.f);
    expect_close(on.to_vector<float>(), ref);
    // The dense op alone as the output (no epilogue stage).
    auto plain = nn::dense(x, w);
    auto mod2 = build(cpu::schedule_dense({plain}), {x, w, plain}, "llvm", "dense_plain");
    auto on2 = runtime::NDArray::empty({B, N}, f32);
    mod2.get_function("dense_plain")(runtime::NDArray::from_vector(xv, {B, K}),
                                     runtime::NDArray::from_vector(wv, {N, K}), on2);
    expect_close(on2.to_vector<float>(), dense_ref(B, K, N, xv, wv, nullptr));
  }
}

// A dense whose weight is computed in the same kernel (here scaled by 2, inlined) gets no weight
// prefetch (the loop does not read a weight tensor) and still matches the reference.
TEST(TopiCpu, DenseOfAComputedBigWeight) {
  const int B = 1, K = 1024, N = 300;  // 1.2 MB of weights
  auto x = te::placeholder({B, K}, f32, "x"), w = te::placeholder({N, K}, f32, "w");
  auto w2 = te::compute(
      {Expr(N), Expr(K)}, [&](const std::vector<Var>& v) { return w(v[0], v[1]) * Expr(2.0f); },
      "w2", "elemwise");
  auto out = nn::dense(x, w2);
  auto mod = build(cpu::schedule_dense({out}), {x, w, out}, "llvm", "dense2");
  auto xv = rnd(B * K, 4), wv = rnd(N * K, 5);
  auto on = runtime::NDArray::empty({B, N}, f32);
  mod.get_function("dense2")(runtime::NDArray::from_vector(xv, {B, K}),
                             runtime::NDArray::from_vector(wv, {N, K}), on);
  std::vector<float> w2v(wv);
  for (auto& v : w2v) v *= 2.0f;
  expect_close(on.to_vector<float>(), dense_ref(B, K, N, xv, w2v, nullptr));
}

TEST(TopiCpu, InjectiveAndSoftmax) {
  const int N = 3, C = 37;
  auto x = te::placeholder({N, C}, f32, "x"), y = te::placeholder({N, C}, f32, "y");
  auto a = nn::relu(nn::add(x, y));
  auto mod = build(cpu::schedule_injective({a}), {x, y, a}, "llvm", "f");
  auto xv = rnd(N * C, 1), yv = rnd(N * C, 2);
  auto on = runtime::NDArray::empty({N, C}, f32);
  mod.get_function("f")(runtime::NDArray::from_vector(xv, {N, C}),
                        runtime::NDArray::from_vector(yv, {N, C}), on);
  std::vector<float> ref(N * C);
  for (int i = 0; i < N * C; ++i) ref[i] = std::max(xv[i] + yv[i], 0.f);
  expect_close(on.to_vector<float>(), ref, 0);

  auto sm = nn::softmax(x);
  auto mod2 = build(cpu::schedule_softmax({sm}), {x, sm}, "llvm", "sm");
  mod2.get_function("sm")(runtime::NDArray::from_vector(xv, {N, C}), on);
  for (int n = 0; n < N; ++n) {
    float mx = *std::max_element(xv.begin() + n * C, xv.begin() + (n + 1) * C);
    double s = 0;
    for (int j = 0; j < C; ++j) s += std::exp(xv[n * C + j] - mx);
    for (int j = 0; j < C; ++j) ref[n * C + j] = float(std::exp(xv[n * C + j] - mx) / s);
  }
  expect_close(on.to_vector<float>(), ref, 1e-5f);
}

// softmax_last_axis (max and sum first in lanes partials) under schedule_softmax_last_axis, against
// a loop nest in double: rows shorter than two vectors (direct), a whole number of vectors, ViT's
// 197 (a tail), 3-D x; large values so a wrong max would overflow exp. 1-D x (no rows) is refused
// with a clear error.
TEST(TopiCpu, SoftmaxLastAxisInLanesMatchesNaiveLoops) {
  const int64_t lanes = cpu::fp32_lanes();
  struct Case {
    std::vector<int64_t> shape;
  };
  for (Case c : std::vector<Case>{
           {{3, 5}}, {{2, 2 * lanes - 1}}, {{4, 2 * lanes}}, {{2, 3, 197}}, {{1, 4 * lanes + 3}}}) {
    SCOPED_TRACE(testing::Message() << c.shape.size() << "-D, row " << c.shape.back());
    std::vector<Expr> es;
    int64_t total = 1;
    for (int64_t d : c.shape) es.push_back(Expr(d)), total *= d;
    const int64_t n = c.shape.back(), rows = total / n;
    auto x = te::placeholder(es, f32, "x");
    auto sm = nn::softmax_last_axis(x, lanes);
    auto mod = build(cpu::schedule_softmax_last_axis({sm}), {x, sm}, "llvm", "sm");
    auto xv = rnd(total, 7);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = xv[i] * 40.f + (i % 11 == 3 ? 60.f : 0.f);
    auto on = runtime::NDArray::empty(c.shape, f32);
    mod.get_function("sm")(runtime::NDArray::from_vector(xv, c.shape), on);
    std::vector<float> ref(total);
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = xv.data() + r * n;
      const float mx = *std::max_element(row, row + n);
      double s = 0;
      for (int64_t j = 0; j < n; ++j) s += std::exp(double(row[j]) - mx);
      for (int64_t j = 0; j < n; ++j) ref[r * n + j] = float(std::exp(double(row[j]) - mx) / s);
    }
    expect_close(on.to_vector<float>(), ref, 1e-5f);
  }
  auto x1 = te::placeholder({Expr(77)}, f32, "x");
  EXPECT_THROW(cpu::schedule_softmax_last_axis({nn::softmax_last_axis(x1, lanes)}), CompileError);
}

// An NCHW[b]c -> NCHW unpack (a layout_transform's compute) gets the tiled schedule: b channels x
// 16 columns; widths that 16 does not divide and a batch of 2 run the guarded tails.
TEST(TopiCpu, InjectiveUnpackOfBlockedLayoutMatchesNaiveLoops) {
  struct Case {
    int n, cb, h, w, b;
  };
  for (Case c : std::vector<Case>{{1, 2, 5, 32, 16}, {2, 3, 4, 7, 8}, {1, 2, 3, 37, 32}}) {
    SCOPED_TRACE(testing::Message()
                 << c.n << "x" << c.cb << "x" << c.h << "x" << c.w << "x" << c.b);
    const int C = c.cb * c.b;
    auto x = te::placeholder({c.n, c.cb, c.h, c.w, c.b}, f32, "x");
    auto y = te::compute(
        {Expr(c.n), Expr(C), Expr(c.h), Expr(c.w)},
        [&](const std::vector<Var>& v) {
          return x(v[0], ir::floordiv(v[1], Expr(c.b)), v[2], v[3], ir::floormod(v[1], Expr(c.b)));
        },
        "unpack");
    te::Schedule s = cpu::schedule_injective({y});
    // the tiled schedule: (batch, channel block, row) fused and parallel, 16 columns vectorized
    auto leaves = s[y].leaf_iter_vars();
    ASSERT_EQ(leaves.size(), 4u);
    const auto& attrs = s[y].node()->iter_var_attrs;
    ASSERT_TRUE(attrs.count(leaves[0].get()) && attrs.count(leaves[3].get()));
    EXPECT_EQ(attrs.at(leaves[0].get()).for_kind, ir::ForKind::Parallel);
    EXPECT_EQ(attrs.at(leaves[3].get()).for_kind, ir::ForKind::Vectorized);
    auto mod = build(s, {x, y}, "llvm", "unpack");
    auto xv = rnd(size_t(c.n) * C * c.h * c.w, 3);
    auto yn = runtime::NDArray::empty({c.n, C, c.h, c.w}, f32);
    mod.get_function("unpack")(runtime::NDArray::from_vector(xv, {c.n, c.cb, c.h, c.w, c.b}), yn);
    std::vector<float> ref(xv.size());
    for (int n = 0; n < c.n; ++n)
      for (int ch = 0; ch < C; ++ch)
        for (int h = 0; h < c.h; ++h)
          for (int w = 0; w < c.w; ++w)
            ref[((size_t(n) * C + ch) * c.h + h) * c.w + w] =
                xv[((((size_t(n) * c.cb + ch / c.b) * c.h + h) * c.w + w) * c.b) + ch % c.b];
    expect_close(yn.to_vector<float>(), ref, 0);
  }
}

namespace {
// The blocked depthwise convolution with its padding inlined into the kernel (bounds checks instead
// of a padded copy): padded, strided and dilated cases, one- and two-vector blocks, 3x3, 5x5 and
// 7x7 kernels on widths whose register tiles take a whole row, part of one, or one column (17),
// against a naive loop over the blocked layout; alone, and with a bias + relu epilogue computed at
// the register tile (the network's fused form).
TEST(TopiCpu, DepthwiseNCHWcPaddingInlinedMatchesNaiveLoops) {
  struct Case {
    int cb, h, w, bn, k, stride, pad, dil;
  };
  for (Case c : std::vector<Case>{{2, 9, 11, 8, 3, 1, 1, 1},
                                  {3, 12, 10, 4, 3, 2, 1, 1},
                                  {1, 7, 7, 16, 5, 2, 2, 1},
                                  {2, 8, 8, 8, 3, 1, 2, 2},
                                  {2, 14, 30, 32, 3, 1, 1, 1},  // a 32-block (Intel's)
                                  {2, 28, 28, 16, 5, 1, 2, 1},
                                  {2, 14, 14, 32, 3, 1, 1, 1},
                                  {1, 14, 14, 32, 7, 1, 3, 1},
                                  {1, 7, 7, 32, 5, 1, 2, 1},
                                  {1, 6, 112, 16, 3, 1, 1, 1},
                                  {1, 9, 56, 32, 3, 2, 1, 1},
                                  {2, 5, 17, 16, 3, 1, 1, 1}})
    for (bool epilogue : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << c.cb << "x" << c.h << "x" << c.w << "x" << c.bn << " k" << c.k << " s"
                   << c.stride << " p" << c.pad << " d" << c.dil << " epilogue " << epilogue);
      auto x = te::placeholder({1, c.cb, c.h, c.w, c.bn}, f32, "x");
      auto wt = te::placeholder({c.cb, 1, c.k, c.k, 1, c.bn}, f32, "w");
      auto bias = te::placeholder({c.cb, c.bn}, f32, "bias");
      nn::Conv2dAttrs a;
      a.stride = {c.stride, c.stride};
      a.padding = {c.pad, c.pad};
      a.dilation = {c.dil, c.dil};
      auto r = cpu::depthwise_conv2d_nchwc(x, wt, a);
      te::Tensor out = r.output;
      if (epilogue) {
        te::Tensor biased = te::compute(
            nn::const_shape(r.output),
            [&](const std::vector<Var>& v) {
              return r.output.read(std::vector<Expr>(v.begin(), v.end())) + bias(v[1], v[4]);
            },
            "T_add", "broadcast");
        out = nn::relu(biased);
      }
      std::vector<te::Tensor> args{x, wt};
      if (epilogue) args.push_back(bias);
      args.push_back(out);
      auto mod = build(cpu::schedule_depthwise_conv2d_nchwc({out}), args, "llvm", "dw");
      const int ek = (c.k - 1) * c.dil + 1;
      const int oh = (c.h + 2 * c.pad - ek) / c.stride + 1,
                ow = (c.w + 2 * c.pad - ek) / c.stride + 1;
      auto xv = rnd(c.cb * c.h * c.w * c.bn, 31), wv = rnd(c.cb * c.k * c.k * c.bn, 32),
           bv = rnd(c.cb * c.bn, 33);
      auto on = runtime::NDArray::empty({1, c.cb, oh, ow, c.bn}, f32);
      auto xa = runtime::NDArray::from_vector(xv, {1, c.cb, c.h, c.w, c.bn});
      auto wa = runtime::NDArray::from_vector(wv, {c.cb, 1, c.k, c.k, 1, c.bn});
      if (epilogue)
        mod.get_function("dw")(xa, wa, runtime::NDArray::from_vector(bv, {c.cb, c.bn}), on);
      else
        mod.get_function("dw")(xa, wa, on);
      std::vector<float> ref(static_cast<size_t>(c.cb * oh * ow * c.bn), 0.f);
      for (int cb = 0; cb < c.cb; ++cb)
        for (int y = 0; y < oh; ++y)
          for (int xo = 0; xo < ow; ++xo)
            for (int b = 0; b < c.bn; ++b) {
              float acc = 0.f;
              for (int i = 0; i < c.k; ++i)
                for (int j = 0; j < c.k; ++j) {
                  int iy = y * c.stride - c.pad + i * c.dil, ix = xo * c.stride - c.pad + j * c.dil;
                  if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                  acc += xv[((cb * c.h + iy) * c.w + ix) * c.bn + b] *
                         wv[((cb * c.k + i) * c.k + j) * c.bn + b];
                }
              ref[((cb * oh + y) * ow + xo) * c.bn + b] =
                  epilogue ? std::max(acc + bv[cb * c.bn + b], 0.f) : acc;
            }
      expect_close(on.to_vector<float>(), ref);
    }
}

// The depthwise register tile: a divisor of the width; unrolled, the accumulators, the kernel
// row's weight vectors, an input vector and a spare fit in the vector registers, and the tile
// is the widest that does (up to the conv's register columns); a kernel row too wide to leave
// 4 columns stays rolled.
TEST(TopiCpu, DepthwiseRegisterTileFitsTheRegisters) {
  const int64_t lanes = cpu::fp32_lanes(), regs = lanes >= 16 ? 32 : 16;
  for (int64_t block : {lanes, 2 * lanes})
    for (int64_t kw : {3, 5, 7, 11})
      for (int64_t w : {7, 14, 17, 28, 56, 112}) {
        SCOPED_TRACE(::testing::Message() << "block " << block << " kw " << kw << " w " << w);
        const int64_t vecs = block / lanes;
        cpu::DepthwiseTile t = cpu::depthwise_register_tile(w, kw, block);
        ASSERT_GE(t.columns, 1);
        EXPECT_EQ(w % t.columns, 0);
        const int64_t budget = regs - kw * vecs - 2;
        EXPECT_EQ(t.unroll_kw, budget >= 4 * vecs);
        int64_t cap = cpu::register_columns_for_block(block);
        if (t.unroll_kw) {
          EXPECT_LE((t.columns + kw) * vecs + 2, regs);
          cap = std::min(cap, budget / vecs);
        }
        for (int64_t d = t.columns + 1; d <= cap; ++d) EXPECT_NE(w % d, 0) << d;
      }
}
}  // namespace
