// topi computes with default schedules on llvm against naive references; shape errors.
#include "ref.h"

#include <functional>

#include <minitvm/topi/nn.h>

using namespace minitvm;
using namespace topi_test;
namespace nn = minitvm::topi::nn;

namespace {
const DataType f32 = DataType::Float(32);

std::vector<float> run_conv(const ConvShape& s, const std::vector<float>& x,
                            const std::vector<float>& k, int mult, bool winograd = false) {
  auto data = te::placeholder({s.n, s.ci, s.h, s.w}, f32, "data");
  te::Tensor kernel, out;
  std::vector<int64_t> pad{s.pad[0], s.pad[1], s.pad[2], s.pad[3]};
  if (mult > 0) {
    kernel = te::placeholder({s.ci, mult, s.kh, s.kw}, f32, "placeholder");
    out = nn::depthwise_conv2d_nchw(data, kernel, {s.sh, s.sw}, pad, {s.dh, s.dw});
  } else if (winograd) {
    kernel = te::placeholder({s.co, s.ci, s.kh, s.kw}, f32, "placeholder");
    out = nn::conv2d_winograd_nchw(data, kernel, pad).output;
  } else {
    kernel = te::placeholder({s.co, s.ci, s.kh, s.kw}, f32, "placeholder");
    out = nn::conv2d_nchw(data, kernel, {s.sh, s.sw}, pad, {s.dh, s.dw});
  }
  auto sch = te::create_schedule({out.op()});
  auto mod = build(sch, {data, kernel, out}, "llvm", "conv");
  auto os = nn::const_shape(out);
  auto on = runtime::NDArray::empty(os, f32);
  mod.get_function("conv")(runtime::NDArray::from_vector(x, nn::const_shape(data)),
                           runtime::NDArray::from_vector(k, nn::const_shape(kernel)), on);
  return on.to_vector<float>();
}

void check_conv(const ConvShape& s, int mult = 0, bool winograd = false, float tol = 1e-4f) {
  int co = mult > 0 ? s.ci * mult : s.co;
  auto x = rnd(size_t(s.n) * s.ci * s.h * s.w, 11);
  auto k = rnd(size_t(co) * (mult > 0 ? 1 : s.ci) * s.kh * s.kw, 12);
  expect_close(run_conv(s, x, k, mult, winograd), conv_ref(s, x, k, mult), tol);
}
}  // namespace

TEST(TopiCompute, Conv2dNames) {
  auto data = te::placeholder({1, 4, 8, 8}, f32, "data");
  auto kernel = te::placeholder({8, 4, 3, 3}, f32, "placeholder");
  auto out = nn::conv2d_nchw(data, kernel, {1, 1}, {1, 1}, {1, 1});
  EXPECT_EQ(out.name(), "compute");
  EXPECT_EQ(out.op()->tag, "conv2d_nchw");
  EXPECT_EQ(out.op().input_tensors()[0].name(), "pad_temp");
  std::vector<std::string> names;
  for (auto& iv : out.op().axis()) names.push_back(iv->var.name());
  for (auto& iv : out.op().reduce_axis()) names.push_back(iv->var.name());
  EXPECT_EQ(names, (std::vector<std::string>{"nn", "ff", "yy", "xx", "rc", "ry", "rx"}));
  EXPECT_EQ(nn::const_shape(out), (std::vector<int64_t>{1, 8, 8, 8}));
}

TEST(TopiCompute, Conv2dBasic) {
  check_conv({1, 3, 9, 9, 4, 3, 3, 1, 1, {1, 1, 1, 1}});
}
TEST(TopiCompute, Conv2dStrideAsymmetricPad) {
  check_conv({2, 3, 10, 11, 5, 3, 2, 2, 3, {1, 0, 2, 1}});
}
TEST(TopiCompute, Conv2dDilation) {
  check_conv({1, 2, 12, 12, 3, 3, 3, 1, 1, {2, 2, 2, 2}, 2, 2});
}
TEST(TopiCompute, Conv2d1x1) {
  check_conv({1, 8, 5, 5, 6, 1, 1});
}
TEST(TopiCompute, DepthwiseMultiplier) {
  check_conv({1, 3, 9, 8, 0, 3, 3, 1, 1, {1, 1, 1, 1}}, 2);
}
TEST(TopiCompute, DepthwiseStrideDilation) {
  check_conv({2, 4, 11, 11, 0, 3, 3, 2, 2, {1, 2, 1, 0}, 2, 1}, 1);
}
TEST(TopiCompute, WinogradM2) {
  check_conv({1, 3, 7, 7, 4, 3, 3, 1, 1, {1, 1, 1, 1}}, 0, true, 1e-4f);
}
TEST(TopiCompute, WinogradM4) {
  check_conv({2, 4, 8, 8, 3, 3, 3, 1, 1, {1, 1, 1, 1}}, 0, true, 1e-4f);
}
TEST(TopiCompute, WinogradNoPad) {
  check_conv({1, 2, 10, 9, 2, 3, 3, 1, 1, {0, 0, 0, 0}}, 0, true, 1e-4f);
}

TEST(TopiCompute, WinogradTileSizeRule) {
  auto data8 = te::placeholder({1, 2, 16, 16}, f32), data7 = te::placeholder({1, 2, 14, 14}, f32);
  auto k = te::placeholder({2, 2, 3, 3}, f32);
  EXPECT_EQ(nn::conv2d_winograd_nchw(data8, k, {1, 1}).m, 4);
  EXPECT_EQ(nn::conv2d_winograd_nchw(data7, k, {1, 1}).m, 2);
}

TEST(TopiCompute, WinogradMatricesMatchSpec) {
  auto w2 = nn::winograd_transform_matrices(2, 3);
  std::vector<std::vector<double>> A2{{1, 0}, {1, -1}, {1, 1}, {0, 1}};
  std::vector<std::vector<double>> B2{{1, 0, 0, 0}, {0, -1, 1, -1}, {-1, 1, 1, 0}, {0, 0, 0, 1}};
  std::vector<std::vector<double>> G2{{1, 0, 0}, {0.5, -0.5, 0.5}, {0.5, 0.5, 0.5}, {0, 0, 1}};
  EXPECT_EQ(w2.A, A2);
  EXPECT_EQ(w2.B, B2);
  EXPECT_EQ(w2.G, G2);
  auto w4 = nn::winograd_transform_matrices(4, 3);
  std::vector<std::vector<double>> B4{
      {1, 0, 0, 0, 0, 0},           {-1.5, 1, -1, -2, 0.5, 1}, {-2, -2.5, 0.5, -1, -1, -1.5},
      {1.5, 0.5, 2.5, 2, -0.5, -2}, {1, 1, 1, 1, 1, 1.5},      {0, 0, 0, 0, 0, 1}};
  std::vector<std::vector<double>> G4{{1, 0, 0},
                                      {-1.0 / 3, 1.0 / 3, -1.0 / 3},
                                      {1.0 / 3, 1.0 / 3, 1.0 / 3},
                                      {-16.0 / 15, -8.0 / 15, -4.0 / 15},
                                      {1.0 / 15, -2.0 / 15, 4.0 / 15},
                                      {0, 0, 1}};
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_NEAR(w4.B[i][j], B4[i][j], 1e-12) << i << "," << j;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(w4.G[i][j], G4[i][j], 1e-12) << i << "," << j;
  EXPECT_EQ(w4.A[4], (std::vector<double>{1, -2, 4, -8}));
  EXPECT_THROW(nn::winograd_transform_matrices(9, 3), CompileError);
}

TEST(TopiCompute, DenseWithBias) {
  const int B = 3, K = 17, N = 10;
  auto x = te::placeholder({B, K}, f32, "x"), w = te::placeholder({N, K}, f32, "w"),
       b = te::placeholder({N}, f32, "b");
  auto out = nn::dense(x, w, b);
  EXPECT_EQ(out.op().input_tensors()[0].name(), "T_dense");
  auto mod = build(te::create_schedule({out.op()}), {x, w, b, out}, "llvm", "dense");
  auto xv = rnd(B * K, 1), wv = rnd(N * K, 2), bv = rnd(N, 3);
  auto on = runtime::NDArray::empty({B, N}, f32);
  mod.get_function("dense")(runtime::NDArray::from_vector(xv, {B, K}),
                            runtime::NDArray::from_vector(wv, {N, K}),
                            runtime::NDArray::from_vector(bv, {N}), on);
  expect_close(on.to_vector<float>(), dense_ref(B, K, N, xv, wv, &bv));
}

TEST(TopiCompute, ElementwiseChain) {
  // relu(batch_norm(bias_add(x, b)) + y), then flatten and softmax.
  const int N = 2, C = 3, H = 2, W = 2;
  auto x = te::placeholder({N, C, H, W}, f32, "x"), y = te::placeholder({N, C, H, W}, f32, "y");
  auto b = te::placeholder({C}, f32, "b"), g = te::placeholder({C}, f32, "g"),
       be = te::placeholder({C}, f32, "be");
  auto mu = te::placeholder({C}, f32, "mu"), var = te::placeholder({C}, f32, "var");
  auto t = nn::relu(nn::add(nn::batch_norm_inference(nn::bias_add(x, b), g, be, mu, var, 1e-3), y));
  auto sm = nn::softmax(nn::flatten(t));
  auto mod = build(te::create_schedule({sm.op()}), {x, y, b, g, be, mu, var, sm}, "llvm", "f");
  auto xv = rnd(N * C * H * W, 1), yv = rnd(N * C * H * W, 2), bv = rnd(C, 3), gv = rnd(C, 4),
       bev = rnd(C, 5), muv = rnd(C, 6), vv = rnd(C, 7);
  for (auto& v : vv) v = std::fabs(v) + 0.1f;
  auto on = runtime::NDArray::empty({N, C * H * W}, f32);
  auto nd4 = [&](const std::vector<float>& v) {
    return runtime::NDArray::from_vector(v, {N, C, H, W});
  };
  auto nd1 = [&](const std::vector<float>& v) { return runtime::NDArray::from_vector(v, {C}); };
  mod.get_function("f")(nd4(xv), nd4(yv), nd1(bv), nd1(gv), nd1(bev), nd1(muv), nd1(vv), on);
  std::vector<float> ref(N * C * H * W);
  for (int i = 0; i < N * C * H * W; ++i) {
    int c = (i / (H * W)) % C;
    float v = (xv[i] + bv[c] - muv[c]) / std::sqrt(vv[c] + 1e-3f) * gv[c] + bev[c] + yv[i];
    ref[i] = std::max(v, 0.f);
  }
  for (int n = 0; n < N; ++n) {
    int L = C * H * W;
    float mx = *std::max_element(ref.begin() + n * L, ref.begin() + (n + 1) * L);
    double s = 0;
    for (int j = 0; j < L; ++j) s += std::exp(ref[n * L + j] - mx);
    for (int j = 0; j < L; ++j) ref[n * L + j] = float(std::exp(ref[n * L + j] - mx) / s);
  }
  expect_close(on.to_vector<float>(), ref, 1e-5f);
}

namespace {
// group_conv2d_nchw under a default schedule on llvm against the naive grouped loops.
void check_group_conv(const ConvShape& s, int groups) {
  SCOPED_TRACE(testing::Message() << "groups " << groups << " ci " << s.ci << " co " << s.co);
  auto data = te::placeholder({s.n, s.ci, s.h, s.w}, f32, "data");
  auto kernel = te::placeholder({s.co, s.ci / groups, s.kh, s.kw}, f32, "placeholder");
  std::vector<int64_t> pad{s.pad[0], s.pad[1], s.pad[2], s.pad[3]};
  auto out = nn::group_conv2d_nchw(data, kernel, {s.sh, s.sw}, pad, {s.dh, s.dw}, groups);
  auto mod = build(te::create_schedule({out.op()}), {data, kernel, out}, "llvm", "gconv");
  auto x = rnd(size_t(s.n) * s.ci * s.h * s.w, 13),
       k = rnd(size_t(s.co) * (s.ci / groups) * s.kh * s.kw, 14);
  auto on = runtime::NDArray::empty(nn::const_shape(out), f32);
  mod.get_function("gconv")(runtime::NDArray::from_vector(x, nn::const_shape(data)),
                            runtime::NDArray::from_vector(k, nn::const_shape(kernel)), on);
  expect_close(on.to_vector<float>(), group_conv_ref(s, groups, x, k), 1e-4f);
}
}  // namespace

TEST(TopiCompute, GroupConv2dNames) {
  auto data = te::placeholder({1, 8, 8, 8}, f32, "data");
  auto kernel = te::placeholder({12, 2, 3, 3}, f32, "placeholder");
  auto out = nn::group_conv2d_nchw(data, kernel, {1, 1}, {1, 1}, {1, 1}, 4);
  EXPECT_EQ(out.name(), "compute");
  EXPECT_EQ(out.op()->tag, "group_conv2d_nchw");
  EXPECT_EQ(out.op().input_tensors()[0].name(), "pad_temp");
  std::vector<std::string> names;
  for (auto& iv : out.op().axis()) names.push_back(iv->var.name());
  for (auto& iv : out.op().reduce_axis()) names.push_back(iv->var.name());
  EXPECT_EQ(names, (std::vector<std::string>{"nn", "ff", "yy", "xx", "rc", "ry", "rx"}));
  EXPECT_EQ(nn::const_shape(out), (std::vector<int64_t>{1, 12, 8, 8}));
  const int64_t* rc = ir::as_const_int(out.op().reduce_axis()[0]->dom.extent());
  ASSERT_TRUE(rc);
  EXPECT_EQ(*rc, 2);  // one group's input channels
}

TEST(TopiCompute, GroupConv2dValues) {
  check_group_conv({1, 4, 9, 9, 6, 3, 3, 1, 1, {1, 1, 1, 1}}, 2);
  check_group_conv({2, 8, 11, 10, 8, 3, 3, 2, 2, {1, 0, 2, 1}}, 4);  // stride 2, asymmetric pad
  check_group_conv({1, 8, 12, 12, 12, 3, 3, 1, 1, {2, 2, 2, 2}, 2, 2}, 4);  // dilation 2
  check_group_conv({1, 64, 8, 8, 64, 3, 3, 2, 2, {1, 1, 1, 1}}, 32);  // ResNeXt 32x2d, stride 2
  check_group_conv({1, 6, 7, 7, 6, 1, 1}, 1);                         // groups 1 = conv2d
  check_group_conv({1, 4, 7, 7, 8, 3, 3, 1, 1, {1, 1, 1, 1}}, 4);     // depthwise, multiplier 2
}

TEST(TopiCompute, GroupConv2dInvalidGroups) {
  auto d = te::placeholder({1, 8, 8, 8}, f32);
  auto expect_error = [](const std::function<void()>& f, const std::string& what) {
    try {
      f();
      FAIL() << "expected CompileError mentioning " << what;
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_error(
      [&] {
        nn::group_conv2d_nchw(d, te::placeholder({8, 8, 3, 3}, f32), {1, 1}, {1, 1}, {1, 1}, 0);
      },
      "groups must be >= 1, got 0");
  expect_error(
      [&] {
        nn::group_conv2d_nchw(d, te::placeholder({8, 8, 3, 3}, f32), {1, 1}, {1, 1}, {1, 1}, -2);
      },
      "got -2");
  expect_error(
      [&] {
        nn::group_conv2d_nchw(d, te::placeholder({9, 3, 3, 3}, f32), {1, 1}, {1, 1}, {1, 1}, 3);
      },
      "groups=3 does not divide the 8 input channels");
  expect_error(
      [&] {
        nn::group_conv2d_nchw(d, te::placeholder({6, 2, 3, 3}, f32), {1, 1}, {1, 1}, {1, 1}, 4);
      },
      "groups=4 does not divide the 6 output channels");
  expect_error(
      [&] {
        nn::group_conv2d_nchw(d, te::placeholder({8, 4, 3, 3}, f32), {1, 1}, {1, 1}, {1, 1}, 4);
      },
      "kernel has 4 input channels per group");
}

TEST(TopiCompute, ShapeErrorsAreClear) {
  auto d = te::placeholder({1, 4, 8, 8}, f32), k = te::placeholder({8, 3, 3, 3}, f32);
  try {
    nn::conv2d_nchw(d, k, {1, 1}, {1, 1}, {1, 1});
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("input channels"), std::string::npos) << e.what();
  }
  auto k2 = te::placeholder({8, 4, 9, 9}, f32);
  EXPECT_THROW(nn::conv2d_nchw(d, k2, {1, 1}, {0, 0}, {1, 1}), CompileError);
  EXPECT_THROW(nn::conv2d_nchw(d, te::placeholder({8, 4, 3}, f32), {1, 1}, {0, 0}, {1, 1}),
               CompileError);
  EXPECT_THROW(nn::conv2d_nchw(d, te::placeholder({8, 4, 3, 3}, f32), {0, 1}, {0, 0}, {1, 1}),
               CompileError);
  EXPECT_THROW(nn::conv2d_nchw(d, te::placeholder({8, 4, 3, 3}, f32), {1, 1}, {0, 0, 1}, {1, 1}),
               CompileError);
  EXPECT_THROW(
      nn::depthwise_conv2d_nchw(d, te::placeholder({3, 1, 3, 3}, f32), {1, 1}, {1, 1}, {1, 1}),
      CompileError);
  EXPECT_THROW(nn::dense(te::placeholder({2, 5}, f32), te::placeholder({3, 4}, f32)), CompileError);
  EXPECT_THROW(nn::dense(te::placeholder({2, 4}, f32), te::placeholder({3, 4}, f32),
                         te::placeholder({4}, f32)),
               CompileError);
  EXPECT_THROW(nn::add(te::placeholder({2, 4}, f32), te::placeholder({4, 2}, f32)), CompileError);
  EXPECT_THROW(nn::bias_add(te::placeholder({2, 4}, f32), te::placeholder({2}, f32)), CompileError);
  EXPECT_THROW(nn::conv2d_winograd_nchw(d, te::placeholder({8, 4, 3, 3}, f32), {1, 0, 0, 0}),
               CompileError);
}
