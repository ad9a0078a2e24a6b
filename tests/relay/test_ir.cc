// Graph IR: type inference, errors, text form, the reference executor.
#include <gtest/gtest.h>

#include <cmath>

#include "minitvm/relay/relay.h"
#include "minitvm/support/error.h"
#include "relay/relay_test_util.h"

using namespace minitvm;
using namespace minitvm::relay;

namespace {

using relay_test::T;

using relay_test::error_of;

runtime::NDArray arr(std::vector<float> v, std::vector<int64_t> s) {
  return runtime::NDArray::from_vector(v, s);
}

}  // namespace

TEST(RelayIR, ConvTypeInference) {
  auto x = var("data", T({1, 3, 224, 224}));
  auto w = var("w", T({64, 3, 7, 7}));
  auto y = nn::conv2d(x, w, {.strides = {2, 2}, .padding = {3}});
  EXPECT_EQ(y->type().shape, (std::vector<int64_t>{1, 64, 112, 112}));
  EXPECT_EQ(y->attrs["padding"], Json({3, 3, 3, 3}));
  auto dw = nn::conv2d(var("a", T({1, 32, 112, 112})), var("k", T({32, 1, 3, 3})),
                       {.strides = {2, 2}, .padding = {1, 1}, .groups = 32});
  EXPECT_EQ(dw->type().shape, (std::vector<int64_t>{1, 32, 56, 56}));
  auto p = nn::max_pool2d(var("b", T({1, 64, 112, 112})),
                          {.pool_size = {3, 3}, .strides = {2, 2}, .padding = {1}});
  EXPECT_EQ(p->type().shape, (std::vector<int64_t>{1, 64, 56, 56}));
  // ceil_mode (TVM): (6 - 3 + 1) / 2 + 1 = 3, floor: 2.
  auto pc = nn::max_pool2d(var("c", T({1, 1, 6, 6})),
                           {.pool_size = {3, 3}, .strides = {2, 2}, .ceil_mode = true});
  EXPECT_EQ(pc->type().shape, (std::vector<int64_t>{1, 1, 3, 3}));
}

TEST(RelayIR, TypeErrorsNameOpInputAndMismatch) {
  auto x = var("data", T({1, 3, 32, 32}));
  std::string e = error_of([&] { nn::conv2d(x, var("w", T({16, 4, 3, 3}))); });
  EXPECT_NE(e.find("nn.conv2d"), std::string::npos) << e;
  EXPECT_NE(e.find("%w"), std::string::npos) << e;
  EXPECT_NE(e.find("4 input channels"), std::string::npos) << e;
  EXPECT_NE(e.find("%data"), std::string::npos) << e;
  e = error_of([&] { add(var("a", T({2, 3})), var("b", T({4, 3}))); });
  EXPECT_NE(e.find("add: shapes do not broadcast at output axis 0 (2 vs 4)"), std::string::npos)
      << e;
  e = error_of([&] { nn::dense(var("a", T({2, 8})), var("b", T({10, 9}))); });
  EXPECT_NE(e.find("nn.dense: data %a Tensor[(2, 8), float32] has 8 features but weight %b"),
            std::string::npos)
      << e;
  e = error_of([&] { reshape(x, {5, -1}); });
  EXPECT_NE(e.find("reshape: cannot infer -1"), std::string::npos) << e;
  e = error_of([&] {
    nn::relu(
        nn::batch_norm(x, var("g", T({3})), var("b", T({3})), var("m", T({3})), var("v", T({3}))));
  });
  EXPECT_NE(e.find("nn.relu: argument 'data' is a tuple"), std::string::npos) << e;
  e = error_of([&] {
    nn::batch_norm(x, var("g", T({4})), var("b", T({3})), var("m", T({3})), var("v", T({3})));
  });
  EXPECT_NE(e.find("gamma must be Tensor[(3,), float32]"), std::string::npos) << e;
  e = error_of([&] { call("nn.relu", {x}, {{"alpha", 1}}); });
  EXPECT_NE(e.find("nn.relu: unknown attribute 'alpha'"), std::string::npos) << e;
  e = error_of([&] { call("nn.frobnicate", {x}); });
  EXPECT_NE(e.find("unknown operator 'nn.frobnicate'"), std::string::npos) << e;
  e = error_of([&] { concatenate({x, var("y", T({1, 3, 31, 32}))}, 1); });
  EXPECT_NE(e.find("concatenate: input 1 %y"), std::string::npos) << e;
  e = error_of([&] { strided_slice(x, {0, 0, 4, 0}, {1, 3, 40, 32}, {1, 1, 2, 1}); });
  EXPECT_NE(e.find("strided_slice: axis 2 [4, 40) step 2 is not a non-empty range with a "
                   "positive step within %data"),
            std::string::npos)
      << e;
  e = error_of([&] { strided_slice(x, {0}, {1}, {1}); });
  EXPECT_NE(e.find("need one value per axis"), std::string::npos) << e;
}

TEST(RelayIR, ShapeOps) {
  auto x = var("x", T({2, 3, 4, 5}));
  EXPECT_EQ(reshape(x, {0, -1})->type().shape, (std::vector<int64_t>{2, 60}));
  EXPECT_EQ(transpose(x, {0, 2, 3, 1})->type().shape, (std::vector<int64_t>{2, 4, 5, 3}));
  EXPECT_EQ(transpose(x)->type().shape, (std::vector<int64_t>{5, 4, 3, 2}));
  auto s = split(x, 2, 0);
  ASSERT_TRUE(s->tuple_typed);
  EXPECT_EQ(s->types.size(), 2u);
  EXPECT_EQ(tuple_get_item(split_at(x, {1, 3}, 2), 1)->type().shape,
            (std::vector<int64_t>{2, 3, 2, 5}));
  EXPECT_EQ(strided_slice(x, {1, 0, 1, 0}, {2, 3, 4, 5}, {1, 2, 2, 4})->type().shape,
            (std::vector<int64_t>{1, 2, 2, 2}));
  EXPECT_EQ(expand_dims(var("c", T({3})), 1, 2)->type().shape, (std::vector<int64_t>{3, 1, 1}));
  EXPECT_EQ(squeeze(var("q", T({1, 3, 1})))->type().shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(mean(x, {2, 3}, true)->type().shape, (std::vector<int64_t>{2, 3, 1, 1}));
  EXPECT_EQ(mean(x, {1}, false, true)->type().shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(nn::pad(x, {{0, 0}, {0, 0}, {1, 2}, {3, 0}})->type().shape,
            (std::vector<int64_t>{2, 3, 7, 8}));
  EXPECT_EQ(nn::batch_flatten(x)->type().shape, (std::vector<int64_t>{2, 60}));
}

TEST(RelayIR, TextForm) {
  auto x = var("data", T({1, 3, 8, 8}));
  auto w = var("w", T({4, 3, 3, 3}));
  Function f({x, w}, nn::relu(nn::conv2d(x, w, {.strides = {2, 2}, .padding = {1}})));
  std::string s = to_text(f);
  EXPECT_NE(
      s.find("fn (%data: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {"),
      std::string::npos)
      << s;
  EXPECT_NE(s.find("%0 = nn.conv2d(%data, %w, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, "
                   "1], groups=1, "
                   "channels=4, kernel_size=[3, 3], data_layout=\"NCHW\", kernel_layout=\"OIHW\") "
                   "/* ty=Tensor[(1, 4, 4, 4), float32] */;"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("%1 = nn.relu(%0) /* ty=Tensor[(1, 4, 4, 4), float32] */;\n  %1\n}"),
            std::string::npos)
      << s;
}

// Reference executor against values worked out by hand.
TEST(RelayReference, ConvPoolDenseByHand) {
  // 1x1x3x3 input 1..9, 2x2 kernel of ones, stride 1, pad 0 -> sums of 2x2 windows.
  auto x = var("x", T({1, 1, 3, 3}));
  auto w = var("w", T({1, 1, 2, 2}));
  Function f({x, w}, nn::conv2d(x, w));
  auto out = reference_run(f, {{"x", arr({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3})},
                               {"w", arr({1, 1, 1, 1}, {1, 1, 2, 2})}});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{12, 16, 24, 28}));
  // avg pool 2x2 stride 2 pad 1, count_include_pad false vs true.
  auto xin = arr({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3});
  Function a({x}, nn::avg_pool2d(x, {.pool_size = {2, 2}, .strides = {2, 2}, .padding = {1}}));
  EXPECT_EQ(reference_run(a, {{"x", xin}})[0].to_vector<float>(),
            (std::vector<float>{1, 2.5, 5.5, 7}));
  Function ai(
      {x},
      nn::avg_pool2d(
          x, {.pool_size = {2, 2}, .strides = {2, 2}, .padding = {1}, .count_include_pad = true}));
  EXPECT_EQ(reference_run(ai, {{"x", xin}})[0].to_vector<float>(),
            (std::vector<float>{0.25, 1.25, 2.75, 7}));
  Function m({x}, nn::max_pool2d(x, {.pool_size = {2, 2}, .strides = {2, 2}, .padding = {1}}));
  EXPECT_EQ(reference_run(m, {{"x", xin}})[0].to_vector<float>(), (std::vector<float>{1, 3, 7, 9}));
  // dense + bias_add + softmax.
  auto d = var("d", T({1, 2}));
  auto dw = var("dw", T({2, 2}));
  Function g({d, dw}, nn::softmax(nn::bias_add(nn::dense(d, dw), constant(arr({0, 1}, {2})))));
  auto o = reference_run(g, {{"d", arr({1, 2}, {1, 2})}, {"dw", arr({1, 0, 0, 1}, {2, 2})}})[0]
               .to_vector<float>();
  // logits (1, 3): softmax = (1/(1+e^2), e^2/(1+e^2)).
  EXPECT_NEAR(o[0], 1.0 / (1.0 + std::exp(2.0)), 1e-6);
  EXPECT_NEAR(o[1], std::exp(2.0) / (1.0 + std::exp(2.0)), 1e-6);
  // concatenate / transpose / split.
  auto p = var("p", T({2, 2}));
  Function c({p}, tuple({concatenate({p, transpose(p)}, 1), tuple_get_item(split(p, 2, 0), 1)}));
  auto r = reference_run(c, {{"p", arr({1, 2, 3, 4}, {2, 2})}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{1, 2, 1, 3, 3, 4, 2, 4}));
  EXPECT_EQ(r[1].to_vector<float>(), (std::vector<float>{3, 4}));
}

TEST(RelayReference, MissingInputIsAnError) {
  auto x = var("x", T({2}));
  Function f({x}, nn::relu(x));
  std::string e = error_of([&] { reference_run(f, {}); });
  EXPECT_NE(e.find("no value for input %x"), std::string::npos) << e;
  e = error_of([&] { reference_run(f, {{"x", arr({1, 2, 3}, {3})}}); });
  EXPECT_NE(e.find("input %x must be Tensor[(2,), float32], got Tensor[(3,), float32]"),
            std::string::npos)
      << e;
}
