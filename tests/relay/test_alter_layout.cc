// Blocked layouts: layout_transform against explicit index formulas, the blocked ops' type rules,
// alter_op_layout before/after (structure and values through the reference executor), and
// relay::build on llvm running the blocked kernels against the NCHW reference.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <sstream>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/record.h"
#include "minitvm/autotune/target.h"
#include "minitvm/autotune/task.h"
#include "minitvm/relay/relay.h"
#include "minitvm/runtime/thread_pool.h"
#include "minitvm/topi/cpu_schedule.h"
#include "minitvm/topi/dispatch.h"
#include "relay/graph_runner.h"
#include "relay/one_record.h"
#include "relay/relay_test_util.h"
#include "runtime/cpu/guarded_memory.h"

using namespace minitvm;
using namespace minitvm::relay;

namespace {

using relay_test::T;

relay::Expr rand_const(std::vector<int64_t> s, uint64_t seed, float lo = -1, float hi = 1) {
  return constant(relay::testing::random_uniform(s, lo, hi, seed));
}

using relay_test::count_op;

using relay_test::expect_close;

using relay_test::error_of;

runtime::NDArray eval1(const relay::Expr& call_expr, const std::vector<runtime::NDArray>& args) {
  return reference_eval(*call_expr, args).at(0);
}

// Blocks fixed by the test (the pass's callback), not by a dispatch context.
relay::transform::AlterLayoutOptions fixed_blocks(int64_t ic, int64_t oc, int64_t dw = 4) {
  relay::transform::AlterLayoutOptions o;
  o.conv_blocks = [=](const ExprNode& c) -> std::optional<relay::transform::ConvBlocks> {
    int64_t C = c.args[0]->types[0].shape[1], O = c.args[1]->types[0].shape[0];
    return relay::transform::ConvBlocks{C % ic == 0 ? ic : 1, O % oc == 0 ? oc : 1};
  };
  o.depthwise_block = dw;
  return o;
}

}  // namespace

TEST(LayoutTransform, BlocksAndUnblocksAsTheIndexFormulaSays) {
  const int64_t N = 2, C = 16, H = 3, W = 5;
  auto xv = relay::testing::random_uniform({N, C, H, W}, -1, 1, 1);
  auto x = var("x", T({N, C, H, W}));
  auto to8 = layout_transform(x, "NCHW", "NCHW8c");
  EXPECT_EQ(to8->type().shape, (std::vector<int64_t>{N, 2, H, W, 8}));
  auto y = eval1(to8, {xv}).to_vector<float>();
  auto xs = xv.to_vector<float>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w)
          ASSERT_EQ(y[(((n * 2 + c / 8) * H + h) * W + w) * 8 + c % 8],
                    xs[((n * C + c) * H + h) * W + w]);
  // 8c -> 4c -> NCHW is the identity on the values.
  auto y8 = eval1(to8, {xv});
  auto to4 = layout_transform(to8, "NCHW8c", "NCHW4c");
  EXPECT_EQ(to4->type().shape, (std::vector<int64_t>{N, 4, H, W, 4}));
  auto y4 = eval1(to4, {y8});
  auto back = layout_transform(to4, "NCHW4c", "NCHW");
  EXPECT_EQ(eval1(back, {y4}).to_vector<float>(), xs);
  // Weights: OIHW -> OIHW2i4o, out[o/4][i/2][h][w][i%2][o%4] = k[o][i][h][w].
  auto kv = relay::testing::random_uniform({8, 6, 3, 1}, -1, 1, 2);
  auto k = var("k", T({8, 6, 3, 1}));
  auto kt = layout_transform(k, "OIHW", "OIHW2i4o");
  EXPECT_EQ(kt->type().shape, (std::vector<int64_t>{2, 3, 3, 1, 2, 4}));
  auto kb = eval1(kt, {kv}).to_vector<float>();
  auto ks = kv.to_vector<float>();
  for (int64_t o = 0; o < 8; ++o)
    for (int64_t i = 0; i < 6; ++i)
      for (int64_t h = 0; h < 3; ++h)
        ASSERT_EQ(kb[((((o / 4) * 3 + i / 2) * 3 + h) * 2 + i % 2) * 4 + o % 4],
                  ks[(o * 6 + i) * 3 + h]);
}

TEST(LayoutTransform, BadLayoutsAreCompileErrors) {
  auto x = var("x", T({1, 12, 4, 4}));
  std::string m = error_of([&] { layout_transform(x, "NCHW", "NCHW8c"); });
  EXPECT_NE(m.find("does not split by 8"), std::string::npos) << m;
  m = error_of([&] { layout_transform(x, "NCHW", "NCH8"); });
  EXPECT_NE(m.find("lower-case"), std::string::npos) << m;
  m = error_of([&] { layout_transform(x, "NCHW", "NCHWD"); });
  EXPECT_NE(m.find("axis D"), std::string::npos) << m;
  m = error_of([&] { layout_transform(x, "NCHW8c", "NCHW"); });
  EXPECT_NE(m.find("has 5 axes"), std::string::npos) << m;
  m = error_of([&] { layout_transform(x, "NCHW", "NCHW0c"); });
  EXPECT_NE(m.find(">= 1"), std::string::npos) << m;
  m = error_of([&] { layout_transform(x, "NCCW", "NCHW"); });
  EXPECT_NE(m.find("twice"), std::string::npos) << m;
}

TEST(BlockedOps, TypeRulesCheckTheLayouts) {
  auto d = var("d", T({1, 2, 6, 6, 4}));
  auto w = var("w", T({3, 2, 3, 3, 4, 8}));
  auto c = call("nn.contrib_conv2d_NCHWc", {d, w}, {{"padding", {1, 1}}});
  EXPECT_EQ(c->type().shape, (std::vector<int64_t>{1, 3, 6, 6, 8}));
  EXPECT_EQ(c->attrs.at("out_layout"), "NCHW8c");
  EXPECT_EQ(c->attrs.at("kernel_layout"), "OIHW4i8o");
  std::string m = error_of([&] {
    call("nn.contrib_conv2d_NCHWc", {d, var("w2", T({3, 2, 3, 3, 2, 8}))});
  });
  EXPECT_NE(m.find("blocks of 2"), std::string::npos) << m;
  m = error_of([&] { call("nn.contrib_conv2d_NCHWc", {d, w}, {{"out_layout", "NCHW4c"}}); });
  EXPECT_NE(m.find("out_layout"), std::string::npos) << m;
  auto dw = call("nn.contrib_depthwise_conv2d_NCHWc", {d, var("k", T({2, 1, 3, 3, 1, 4}))},
                 {{"strides", {2, 2}}});
  EXPECT_EQ(dw->type().shape, (std::vector<int64_t>{1, 2, 2, 2, 4}));
  auto p = nn::max_pool2d(d, {.pool_size = {2, 2}, .strides = {2, 2}, .layout = "NCHW4c"});
  EXPECT_EQ(p->type().shape, (std::vector<int64_t>{1, 2, 3, 3, 4}));
  m = error_of([&] { nn::max_pool2d(d, {.pool_size = {2, 2}, .layout = "NCHW8c"}); });
  EXPECT_NE(m.find("does not have layout NCHW8c"), std::string::npos) << m;
}

// The blocked ops' reference is the NCHW op between transforms; check one conv by a direct loop.
TEST(BlockedOps, ReferenceConvMatchesTheUnblockedConv) {
  auto xv = relay::testing::random_uniform({1, 8, 7, 7}, -1, 1, 3);
  auto wv = relay::testing::random_uniform({8, 8, 3, 3}, -1, 1, 4);
  auto x = var("x", T({1, 8, 7, 7}));
  Function plain({x}, nn::conv2d(x, constant(wv), {.strides = {2, 2}, .padding = {1, 0, 1, 2}}));
  Function blocked =
      relay::transform::fold_constant(relay::transform::alter_op_layout(plain, fixed_blocks(4, 2)));
  EXPECT_EQ(count_op(blocked, "nn.contrib_conv2d_NCHWc"), 1);
  expect_close(reference_run(blocked, {{"x", xv}})[0], reference_run(plain, {{"x", xv}})[0], 1e-6);
}

// A blocked conv whose input block is partly zero padding (data_channels: alter_op_layout pads
// 24 channels to one block of 32, 40 to three of 16) leaves the padding out of its reduction:
// NaN in the padding channels, whose weights are zero, does not reach the output (0 * NaN would
// carry it), and the values are a direct loop's over the real channels. Built for llvm, 1x1 and
// 3x3 kernels; the type rule rejects a count outside the data's channels.
TEST(BlockedOps, DataChannelsLeaveThePaddingOutOfTheReduction) {
  struct Case {
    int64_t chunks, ib, real, k;
  };
  uint64_t seed = 970;
  for (const Case& c :
       {Case{1, 32, 24, 1}, Case{3, 16, 40, 1}, Case{1, 32, 24, 3}, Case{3, 16, 40, 3}}) {
    SCOPED_TRACE(std::to_string(c.real) + " of " + std::to_string(c.chunks * c.ib) +
                 " channels, kernel " + std::to_string(c.k));
    const int64_t H = 7, OCC = 2, OB = 16, pad = c.k / 2;
    auto xv = relay::testing::random_uniform({1, c.chunks, H, H, c.ib}, -1, 1, seed++);
    auto wv =
        relay::testing::random_uniform({OCC, c.chunks, c.k, c.k, c.ib, OB}, -0.3, 0.3, seed++);
    float* xp = static_cast<float*>(xv.data());
    float* wp = static_cast<float*>(wv.data());
    for (int64_t i = 0; i < xv.size(); ++i)
      if ((i / c.ib / H / H % c.chunks) * c.ib + i % c.ib >= c.real) xp[i] = NAN;
    for (int64_t i = 0; i < wv.size(); ++i)
      if ((i / OB / c.ib / c.k / c.k % c.chunks) * c.ib + i / OB % c.ib >= c.real) wp[i] = 0;
    auto x = var("x", T({1, c.chunks, H, H, c.ib}));
    auto y = call("nn.contrib_conv2d_NCHWc", {x, constant(wv)},
                  {{"padding", {pad, pad}}, {"data_channels", c.real}});
    Built b = build(Function({x}, y), "llvm");
    auto got = relay_test::run_graph(b, {{"x", xv}}).at(0).to_vector<float>();
    ASSERT_EQ(got.size(), size_t(OCC * H * H * OB));
    auto xat = [&](int64_t ch, int64_t h, int64_t w) {
      return xp[((ch / c.ib * H + h) * H + w) * c.ib + ch % c.ib];
    };
    double worst = 0;
    for (int64_t o = 0; o < OCC * OB; ++o)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < H; ++w) {
          double want = 0;
          for (int64_t ch = 0; ch < c.real; ++ch)
            for (int64_t kh = 0; kh < c.k; ++kh)
              for (int64_t kw = 0; kw < c.k; ++kw) {
                const int64_t ih = h + kh - pad, iw = w + kw - pad;
                if (ih < 0 || ih >= H || iw < 0 || iw >= H) continue;
                want += double(xat(ch, ih, iw)) *
                        wp[((((o / OB * c.chunks + ch / c.ib) * c.k + kh) * c.k + kw) * c.ib +
                            ch % c.ib) *
                               OB +
                           o % OB];
              }
          const float g = got[((o / OB * H + h) * H + w) * OB + o % OB];
          ASSERT_TRUE(std::isfinite(g)) << "output channel " << o << " at " << h << ", " << w;
          worst = std::max(worst, std::abs(g - want));
        }
    EXPECT_LT(worst, 1e-4);
  }
  auto d = var("d", T({1, 1, 4, 4, 32}));
  auto w = var("w", T({1, 1, 1, 1, 32, 16}));
  for (int64_t bad : {-1, 33}) {
    std::string m = error_of([&] {
      call("nn.contrib_conv2d_NCHWc", {d, w}, {{"data_channels", bad}});
    });
    EXPECT_NE(m.find("data_channels must be an integer from 0 to the data's 32"), std::string::npos)
        << m;
  }
}

// conv -> bias -> relu -> conv -> residual add -> max pool -> global pool -> dense: one transform
// in, one out; everything between stays NCHW4c/8c (with one re-blocking between the two convs'
// blocks), weights and biases become blocked constants.
TEST(AlterOpLayout, ChainStaysBlockedBetweenConvs) {
  auto x = var("data", T({1, 4, 8, 8}));
  auto y = nn::relu(nn::bias_add(nn::conv2d(x, rand_const({8, 4, 3, 3}, 1), {.padding = {1}}),
                                 rand_const({8}, 2)));
  auto z = add(nn::conv2d(y, rand_const({8, 8, 1, 1}, 3)), y);
  z = nn::max_pool2d(clip(z, -0.5, 1.5), {.pool_size = {2, 2}, .strides = {2, 2}});
  auto g = nn::batch_flatten(nn::global_avg_pool2d(z));
  Function f({x}, nn::dense(g, rand_const({3, 8}, 4)));
  Function a = relay::transform::alter_op_layout(f, fixed_blocks(4, 8));
  EXPECT_EQ(count_op(a, "nn.conv2d"), 0);
  EXPECT_EQ(count_op(a, "nn.contrib_conv2d_NCHWc"), 2);
  Function folded = relay::transform::fold_constant(a);
  // data NCHW -> NCHW4c; the global pool back to NCHW. The second conv, a short reduction, reads
  // y as it is (NCHW8c) rather than its callback's 4-blocks.
  EXPECT_EQ(count_op(folded, "layout_transform"), 2) << folded;
  EXPECT_EQ(count_op(folded, "nn.bias_add"), 0);  // an add of a blocked bias
  for (auto& e : post_order(folded.body)) {
    if (e->is_call("nn.max_pool2d")) EXPECT_EQ(e->attrs.at("layout"), "NCHW8c");
    if (e->is_call("nn.global_avg_pool2d"))
      EXPECT_EQ(e->type().shape, (std::vector<int64_t>{1, 1, 1, 1, 8}));
  }
  auto xv = relay::testing::random_uniform({1, 4, 8, 8}, -1, 1, 5);
  expect_close(reference_run(folded, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0], 1e-5);
  // Nothing to do without a conv.
  Function plain({x}, nn::relu(x));
  EXPECT_EQ(relay::transform::alter_op_layout(plain, fixed_blocks(4, 8)).body, plain.body);
}

// Squeeze-and-excitation, channel concat, depthwise with the input's block, a broadcast constant
// along W, avg pool: every op keeps the block or falls back to NCHW with a transform, and the
// values stay those of the NCHW graph.
TEST(AlterOpLayout, BroadcastsConcatDepthwiseAndFallbacks) {
  auto x = var("data", T({1, 8, 6, 6}));
  auto y = nn::relu(nn::conv2d(x, rand_const({16, 8, 3, 3}, 1, -0.3, 0.3), {.padding = {1}}));
  auto se = sigmoid(
      nn::conv2d(nn::relu(nn::conv2d(nn::global_avg_pool2d(y), rand_const({4, 16, 1, 1}, 2))),
                 rand_const({16, 4, 1, 1}, 3)));
  auto s = multiply(y, se);  // (1,16,6,6) * (1,16,1,1)
  auto dw = clip(nn::conv2d(s, rand_const({16, 1, 3, 3}, 4), {.padding = {1}, .groups = 16}), 0, 6);
  auto cat = concatenate({dw, s}, 1);          // 32 channels
  auto w = multiply(cat, rand_const({6}, 5));  // along W: reshaped
  auto p = nn::avg_pool2d(w, {.pool_size = {3, 3}, .strides = {1, 1}, .padding = {1}});
  auto att = sigmoid(nn::conv2d(p, rand_const({1, 32, 1, 1}, 7)));  // 1-channel map
  p = multiply(p, att);                                             // spatial attention
  auto t = transpose(p, {0, 2, 3, 1});                              // needs NCHW
  Function f({x}, tuple({t, nn::softmax(nn::batch_flatten(nn::global_avg_pool2d(p)))}));
  Function a =
      relay::transform::fold_constant(relay::transform::alter_op_layout(f, fixed_blocks(8, 8, 4)));
  EXPECT_EQ(count_op(a, "nn.contrib_depthwise_conv2d_NCHWc"), 1);
  EXPECT_EQ(count_op(a, "nn.contrib_conv2d_NCHWc"), 4);
  for (auto& e : post_order(a.body)) {
    if (e->is_call("nn.contrib_depthwise_conv2d_NCHWc"))
      EXPECT_EQ(e->attrs.at("data_layout"), "NCHW8c");
    if (e->is_call("concatenate"))
      EXPECT_EQ(e->type().shape, (std::vector<int64_t>{1, 4, 6, 6, 8}));
    if (e->is_call("transpose"))
      EXPECT_EQ(e->args[0]->type().shape, (std::vector<int64_t>{1, 32, 6, 6}));
  }
  auto xv = relay::testing::random_uniform({1, 8, 6, 6}, -1, 1, 6);
  auto want = reference_run(f, {{"data", xv}});
  auto got = reference_run(a, {{"data", xv}});
  ASSERT_EQ(got.size(), 2u);
  expect_close(got[0], want[0], 1e-5);
  expect_close(got[1], want[1], 1e-5);
  // Built for llvm (blocks from the dispatch context's fallback) and run: the same values.
  Built b = build(f, "llvm");
  auto run = relay_test::run_graph(b, {{"data", xv}});
  ASSERT_EQ(run.size(), 2u);
  expect_close(run[0], want[0], 1e-4);
  expect_close(run[1], want[1], 1e-4);
  bool nchwc_kernel = false;
  for (auto& k : b.kernels) nchwc_kernel |= k.template_key == "conv2d_NCHWc.x86";
  EXPECT_TRUE(nchwc_kernel) << b.report();
}

// A depthwise conv on NCHW data whose channels take a block of at most half the depthwise block
// (ShuffleNet's 116 channels: 4 of 16) stays NCHW; one whose channels take the whole block, or
// whose input is blocked already, is blocked. Values as the NCHW graph's.
TEST(AlterOpLayout, DepthwiseOfFewChannelBlocksStaysNchw) {
  for (int64_t C : {116, 48}) {
    SCOPED_TRACE("channels " + std::to_string(C));
    auto x = var("data", T({1, C, 9, 9}));
    auto dw = nn::conv2d(x, rand_const({C, 1, 3, 3}, 1), {.padding = {1}, .groups = C});
    Function f({x}, nn::relu(dw));
    Function a = relay::transform::alter_op_layout(f, fixed_blocks(4, 4, 16));
    EXPECT_EQ(count_op(a, "nn.contrib_depthwise_conv2d_NCHWc"), C == 116 ? 0 : 1) << a;
    // data in, weights (folded at build time), result out
    EXPECT_EQ(count_op(a, "layout_transform"), C == 116 ? 0 : 3) << a;
    auto xv = relay::testing::random_uniform({1, C, 9, 9}, -1, 1, 9);
    auto want = reference_run(f, {{"data", xv}});
    expect_close(reference_run(a, {{"data", xv}})[0], want[0], 1e-5);
    Built b = build(f, "llvm");
    expect_close(relay_test::run_graph(b, {{"data", xv}})[0], want[0], 1e-5);
  }
  // After a conv that blocks its output by 4, the depthwise conv takes that block.
  auto x = var("data", T({1, 8, 9, 9}));
  auto y = nn::conv2d(x, rand_const({116, 8, 3, 3}, 2), {.padding = {1}});
  auto dw = nn::conv2d(y, rand_const({116, 1, 3, 3}, 3), {.padding = {1}, .groups = 116});
  Function f({x}, dw);
  Function a = relay::transform::alter_op_layout(f, fixed_blocks(4, 4, 16));
  EXPECT_EQ(count_op(a, "nn.contrib_depthwise_conv2d_NCHWc"), 1) << a;
}

namespace {

// 58 channels (ShuffleNet's) through a conv + bias + relu, a depthwise conv + clip, a gate
// (multiply by its sigmoid), a 1x1 conv with a residual add, two divisions (by a value with the
// channels: unpadded, and by a scalar: padded), a sqrt (unpadded), and a 1000-class 1x1
// classifier (SqueezeNet's) with a global pool; y leaves the blocked layout for a transpose.
Function padded_net() {
  auto x = var("data", T({1, 16, 10, 10}));
  auto y = nn::relu(
      nn::bias_add(nn::conv2d(x, rand_const({58, 16, 3, 3}, 1, -0.3, 0.3), {.padding = {1}}),
                   rand_const({58}, 2)));
  auto d = clip(nn::conv2d(y, rand_const({58, 1, 3, 3}, 3), {.padding = {1}, .groups = 58}), 0, 6);
  auto m = multiply(d, sigmoid(d));
  auto z = add(nn::conv2d(m, rand_const({58, 58, 1, 1}, 4, -0.2, 0.2)), y);
  auto q = add(divide(z, add(sigmoid(z), scalar(0.5))), divide(z, scalar(6.0)));
  // A sqrt whose argument is at least 0.5 in the value's channels and would be -0.5 in padding
  // channels (a channel-wise constant adds nothing there): a NaN the classifier's zero weights
  // would not cancel.
  auto r = sqrt(subtract(add(nn::relu(z), rand_const({58, 1, 1}, 6, 1.0, 1.5)), scalar(0.5)));
  auto cls = nn::relu(nn::conv2d(add(z, r), rand_const({1000, 58, 1, 1}, 5, -0.2, 0.2)));
  auto p = nn::softmax(nn::batch_flatten(nn::global_avg_pool2d(cls)));
  return Function({x}, tuple({q, p, transpose(y, {0, 2, 3, 1})}));
}

relay::transform::AlterLayoutOptions padding_blocks(bool from_log) {
  relay::transform::AlterLayoutOptions o = fixed_blocks(16, 32, 32);
  o.conv_blocks = [=](const ExprNode& c) -> std::optional<relay::transform::ConvBlocks> {
    int64_t C = c.args[0]->types[0].shape[1], O = c.args[1]->types[0].shape[0];
    return relay::transform::ConvBlocks{C % 16 == 0 ? 16 : 2, O % 32 == 0 ? 32 : 2, from_log};
  };
  o.pad_channels = {32, 16};
  return o;
}

}  // namespace

// ONNX Runtime's NCHWc padding: output channels that are no multiple of a vector (58, 1000) are
// padded with zero channels (58 -> 64: at most an eighth more; 1000 -> 1024: at most a sixteenth);
// the padding rides through the element-wise ops, the depthwise conv and the pool in the blocked
// layout, meets zero weights in the next conv, and is cut off where a value leaves the layout.
// The values are those of the NCHW graph, through the reference executor and built for llvm.
TEST(AlterOpLayout, ChannelsWithoutAVectorBlockArePadded) {
  Function f = padded_net();
  Function a =
      relay::transform::fold_constant(relay::transform::alter_op_layout(f, padding_blocks(false)));
  std::vector<std::vector<int64_t>> convs;
  for (auto& e : post_order(a.body)) {
    if (e->is_call("nn.contrib_conv2d_NCHWc")) convs.push_back(e->type().shape);
    if (e->is_call("nn.contrib_depthwise_conv2d_NCHWc"))
      EXPECT_EQ(e->type().shape, (std::vector<int64_t>{1, 2, 10, 10, 32}));
    if (e->is_call("transpose"))
      EXPECT_EQ(e->args[0]->type().shape, (std::vector<int64_t>{1, 58, 10, 10}));
  }
  EXPECT_EQ(convs, (std::vector<std::vector<int64_t>>{
                       {1, 2, 10, 10, 32}, {1, 2, 10, 10, 32}, {1, 32, 10, 10, 32}}))
      << a;
  // The weights' padding is folded at build time; the pads left are the NCHW quotient's and the
  // NCHW sqrt's, padded to join blocked values in the adds.
  EXPECT_EQ(count_op(a, "nn.pad"), 2) << a;
  auto xv = relay::testing::random_uniform({1, 16, 10, 10}, -1, 1, 11);
  auto want = reference_run(f, {{"data", xv}});
  auto got = reference_run(a, {{"data", xv}});
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < 3; ++i) expect_close(got[i], want[i], 1e-5);
  Built b = build(f, "llvm");
  auto run = relay_test::run_graph(b, {{"data", xv}});
  ASSERT_EQ(run.size(), 3u);
  for (size_t i = 0; i < 3; ++i) expect_close(run[i], want[i], 1e-4);
  // Blocks from a log are for the layer as it is: no padding.
  Function t = relay::transform::alter_op_layout(f, padding_blocks(true));
  for (auto& e : post_order(t.body))
    if (e->is_call("nn.contrib_conv2d_NCHWc")) EXPECT_EQ(e->type().shape[4], 2);
  expect_close(reference_run(t, {{"data", xv}})[1], want[1], 1e-5);
  // Without pad_channels (the default), the 58 channels take their own blocks.
  Function u = relay::transform::alter_op_layout(f, fixed_blocks(16, 32, 32));
  EXPECT_EQ(count_op(u, "nn.pad"), 0);
}

// The element-wise functions the ONNX importer maps (nn.leaky_relu, tanh, exp, log, erf, abs,
// floor, ceil, maximum, minimum) stay in the blocked layout between convolutions, padding channels
// included (58 -> 64), but log, which takes the value's own channels (a zero padding channel would
// give -inf, which zero weights do not cancel); values as the NCHW graph's, through the reference
// executor and built for llvm.
TEST(AlterOpLayout, ElementwiseFunctionsStayBlocked) {
  auto x = var("data", T({1, 16, 10, 10}));
  auto y = nn::leaky_relu(
      nn::conv2d(x, rand_const({58, 16, 3, 3}, 41, -0.3, 0.3), {.padding = {1}}), 0.1);
  auto t = tanh(nn::conv2d(y, rand_const({58, 58, 1, 1}, 42, -0.2, 0.2)));
  auto m = maximum(t, minimum(y, scalar(0.25)));
  auto e = add(erf(m), multiply(abs(floor(multiply(m, scalar(3.0)))), ceil(exp(m))));
  auto l = log(add(exp(e), scalar(1.0)));
  auto z = nn::conv2d(add(e, l), rand_const({32, 58, 1, 1}, 43, -0.2, 0.2));
  Function f({x}, z);
  Function a =
      relay::transform::fold_constant(relay::transform::alter_op_layout(f, padding_blocks(false)));
  int blocked = 0;
  for (auto& n : post_order(a.body)) {
    for (const char* op :
         {"nn.leaky_relu", "tanh", "maximum", "minimum", "erf", "abs", "floor", "ceil", "exp"})
      if (n->is_call(op)) {
        EXPECT_EQ(n->type().shape, (std::vector<int64_t>{1, 2, 10, 10, 32})) << op << "\n" << a;
        ++blocked;
      }
    if (n->is_call("log")) EXPECT_EQ(n->type().shape.size(), 4u) << a;
  }
  EXPECT_EQ(blocked, 10);  // exp twice
  auto xv = relay::testing::random_uniform({1, 16, 10, 10}, -1, 1, 44);
  auto want = reference_run(f, {{"data", xv}});
  expect_close(reference_run(a, {{"data", xv}})[0], want[0], 1e-5);
  relay_test::expect_llvm_matches_reference(f, {{"data", xv}}, 1e-4);
}

// Channel counts near and far from vector multiples (padded or not, by 16 or 32 lanes) through
// conv chains built for llvm: 1x1 and 3x3 convs, a strided one, a depthwise conv, a residual add
// with a channel-wise scale, a max pool and a concat, a global pool; values as the reference's.
TEST(AlterOpLayout, PaddedChannelCountsMatchTheReferenceBuiltForLlvm) {
  uint64_t seed = 300;
  for (int64_t c1 : {30, 58, 100, 250}) {
    for (int64_t c2 : {34, 116, 120}) {
      SCOPED_TRACE("channels " + std::to_string(c1) + ", " + std::to_string(c2));
      auto x = var("data", T({1, 8, 9, 10}));
      auto y = nn::relu(nn::conv2d(x, rand_const({c1, 8, 3, 3}, seed++, -0.3, 0.3),
                                   {.strides = {2, 2}, .padding = {1}}));
      auto d = nn::conv2d(y, rand_const({c1, 1, 3, 3}, seed++), {.padding = {1}, .groups = c1});
      auto z = add(multiply(d, rand_const({c1, 1, 1}, seed++)), y);
      auto p = nn::max_pool2d(z, {.pool_size = {2, 2}, .strides = {1, 1}});
      auto u = nn::conv2d(p, rand_const({c2, c1, 1, 1}, seed++, -0.2, 0.2));
      auto cat = concatenate({u, nn::relu(p)}, 1);
      Function f({x}, tuple({nn::global_avg_pool2d(cat), u}));
      auto xv = relay::testing::random_uniform({1, 8, 9, 10}, -1, 1, seed++);
      relay_test::expect_llvm_matches_reference(f, {{"data", xv}}, 1e-4);
    }
  }
}

// Channel counts a vector does not divide are padded up by as much as a half of them (MNASNet's
// 24 -> 32, 40 -> 48: whole vectors instead of 12 or 10 lanes of 16), and the convs reading the
// padded value carry the real count (data_channels), by which they leave the padding out of their
// reduction; values as the reference's, through the reference executor and built for llvm.
TEST(AlterOpLayout, ConvsReadingPaddedChannelsCarryTheRealCount) {
  auto x = var("data", T({1, 16, 8, 8}));
  auto a1 = nn::relu(nn::conv2d(x, rand_const({24, 16, 3, 3}, 61, -0.3, 0.3), {.padding = {1}}));
  auto a2 = nn::relu(nn::conv2d(a1, rand_const({64, 24, 1, 1}, 62, -0.3, 0.3)));
  auto a3 = nn::conv2d(a2, rand_const({40, 64, 1, 1}, 63, -0.2, 0.2));
  auto a4 = nn::conv2d(a3, rand_const({32, 40, 3, 3}, 64, -0.2, 0.2), {.padding = {1}});
  Function f({x}, a4);
  relay::transform::AlterLayoutOptions o = fixed_blocks(16, 32, 32);
  o.conv_blocks = [](const ExprNode& c) -> std::optional<relay::transform::ConvBlocks> {
    auto block = [](int64_t n) -> int64_t { return n % 32 == 0 ? 32 : n % 16 == 0 ? 16 : 2; };
    return relay::transform::ConvBlocks{block(c.args[0]->types[0].shape[1]),
                                        block(c.args[1]->types[0].shape[0])};
  };
  o.pad_channels = {32, 16};
  Function a = relay::transform::fold_constant(relay::transform::alter_op_layout(f, o));
  std::vector<std::pair<std::vector<int64_t>, int64_t>> convs;  // input shape, data_channels
  for (auto& e : post_order(a.body))
    if (e->is_call("nn.contrib_conv2d_NCHWc"))
      convs.push_back({e->args[0]->type().shape, e->attrs.value("data_channels", int64_t{0})});
  EXPECT_EQ(convs, (std::vector<std::pair<std::vector<int64_t>, int64_t>>{{{1, 1, 8, 8, 16}, 0},
                                                                          {{1, 1, 8, 8, 32}, 24},
                                                                          {{1, 2, 8, 8, 32}, 0},
                                                                          {{1, 3, 8, 8, 16}, 40}}))
      << a;
  auto xv = relay::testing::random_uniform({1, 16, 8, 8}, -1, 1, 65);
  auto want = reference_run(f, {{"data", xv}});
  expect_close(reference_run(a, {{"data", xv}})[0], want[0], 1e-5);
  relay_test::expect_llvm_matches_reference(f, {{"data", xv}}, 1e-4);
}

// Squeeze-and-excitation as torch.onnx exports it: mean over (2, 3) (axes counted from either
// end, keepdims) of a blocked value becomes a blocked global_avg_pool2d, so the value does not go
// back to NCHW; the classifier's mean without keepdims gives (N, C) from the pooled blocked value;
// a mean over other axes stays a mean. Channel counts with and without padding; values as the
// reference executor's, built for llvm.
TEST(AlterOpLayout, SpatialMeansPoolTheBlockedValue) {
  uint64_t seed = 350;
  for (int64_t c : {32, 58}) {
    for (bool negative_axes : {false, true}) {
      SCOPED_TRACE("channels " + std::to_string(c) + (negative_axes ? ", axes -1 -2" : ""));
      const std::vector<int64_t> hw =
          negative_axes ? std::vector<int64_t>{-1, -2} : std::vector<int64_t>{2, 3};
      auto x = var("data", T({1, 16, 9, 7}));
      auto y = nn::conv2d(x, rand_const({c, 16, 3, 3}, seed++, -0.3, 0.3), {.padding = {1}});
      auto s = sigmoid(
          nn::conv2d(nn::relu(nn::conv2d(mean(y, hw, true), rand_const({8, c, 1, 1}, seed++))),
                     rand_const({c, 8, 1, 1}, seed++)));
      auto z = nn::conv2d(multiply(y, s), rand_const({32, c, 1, 1}, seed++, -0.2, 0.2));
      auto logits = nn::dense(mean(z, hw, false), rand_const({10, 32}, seed++));
      auto other = mean(z, {1}, true);  // over the channels: not a pool
      Function f({x}, tuple({logits, other}));
      Function a = relay::transform::fold_constant(
          relay::transform::alter_op_layout(f, padding_blocks(false)));
      EXPECT_EQ(count_op(a, "mean"), 1) << a;
      int pools = 0;
      for (auto& n : post_order(a.body))
        if (n->is_call("nn.global_avg_pool2d")) {
          EXPECT_EQ(n->type().shape.size(), 5u) << a;
          EXPECT_EQ(n->args[0]->type().shape.size(), 5u) << a;
          ++pools;
        }
      EXPECT_EQ(pools, 2) << a;
      auto xv = relay::testing::random_uniform({1, 16, 9, 7}, -1, 1, seed++);
      auto want = reference_run(f, {{"data", xv}});
      auto got = reference_run(a, {{"data", xv}});
      expect_close(got[0], want[0], 1e-5);
      expect_close(got[1], want[1], 1e-5);
      relay_test::expect_llvm_matches_reference(f, {{"data", xv}}, 1e-4);
    }
  }
}

// A dense block as torchvision's DenseNet exports it: each layer concatenates the block's input
// with every layer output so far, then BN, relu, 1x1 conv, BN, relu, 3x3 conv. Inputs of
// different blocks (the block input's wider one, the layers' narrower one) join on the largest
// block that divides every input's channels, where that is a multiple of a vector; otherwise the
// concat stays NCHW. Values as the reference executor's, and built for llvm (the real blocks:
// DenseNet-161's 96 + 48k channels, up to 9 inputs per concat).
TEST(AlterOpLayout, DenseBlockConcatsJoinOnACommonBlock) {
  uint64_t seed = 500;
  auto block_of = [](int64_t c) -> int64_t { return c % 8 == 0 ? 8 : c % 4 == 0 ? 4 : 1; };
  relay::transform::AlterLayoutOptions o;
  o.conv_blocks = [&](const ExprNode& c) -> std::optional<relay::transform::ConvBlocks> {
    return relay::transform::ConvBlocks{block_of(c.args[0]->types[0].shape[1]),
                                        block_of(c.args[1]->types[0].shape[0])};
  };
  o.depthwise_block = 4;
  auto dense_block = [&](int64_t c0, int64_t growth, int layers, int64_t hw) {
    auto x = var("data", T({1, c0, hw, hw}));
    auto first = nn::relu(nn::conv2d(x, rand_const({c0, c0, 1, 1}, seed++, -0.3, 0.3)));
    std::vector<relay::Expr> feats{first};
    int64_t c = c0;
    for (int i = 0; i < layers; ++i) {
      auto cat = concatenate(feats, 1);
      auto bn = nn::relu(add(multiply(cat, rand_const({c, 1, 1}, seed++, 0.5, 1.5)),
                             rand_const({c, 1, 1}, seed++, -0.1, 0.1)));
      auto y = nn::relu(nn::conv2d(bn, rand_const({2 * growth, c, 1, 1}, seed++, -0.2, 0.2)));
      feats.push_back(nn::conv2d(y, rand_const({growth, 2 * growth, 3, 3}, seed++, -0.2, 0.2),
                                 {.padding = {1}}));
      c += growth;
    }
    return Function({x}, nn::relu(concatenate(feats, 1)));
  };
  struct Case {
    int64_t c0, growth;
    int64_t block;  // of the concats; 0: NCHW
  };
  for (Case k : {Case{16, 12, 4}, Case{16, 8, 8}, Case{16, 6, 0}}) {
    SCOPED_TRACE("channels " + std::to_string(k.c0) + " + " + std::to_string(k.growth) + "k");
    Function f = dense_block(k.c0, k.growth, 4, 6);
    Function a = relay::transform::fold_constant(relay::transform::alter_op_layout(f, o));
    int concats = 0;
    for (auto& e : post_order(a.body)) {
      if (!e->is_call("concatenate") || e->args.size() < 2) continue;  // not the first layer's
      ++concats;
      const auto& s = e->type().shape;
      if (k.block) {
        ASSERT_EQ(s.size(), 5u) << a;
        EXPECT_EQ(s[4], k.block);
      } else {
        EXPECT_EQ(s.size(), 4u) << a;
      }
    }
    EXPECT_EQ(concats, 4);
    auto xv = relay::testing::random_uniform({1, k.c0, 6, 6}, -1, 1, seed++);
    expect_close(reference_run(a, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0], 1e-5);
  }
  // The dispatch context's blocks: 96 channels on 32- (AVX-512) or 8-channel blocks, 48 on 16 or
  // 8; 8 layers, and the 14x14 maps' 2x2 tail.
  Function f = dense_block(96, 48, 8, 14);
  auto xv = relay::testing::random_uniform({1, 96, 14, 14}, -1, 1, seed++);
  relay_test::expect_llvm_matches_reference(f, {{"data", xv}}, 1e-4);
}

// ShuffleNet V2's unit: torch's chunk(2) as two equal splits (one after
// eliminate_common_subexpr), a blocked branch of padded channel counts unpacked to NCHW through a
// split that drops the padding (the unpack schedule's channel tiles need not divide the block or
// the count, its column tiles the width), concat and the channel shuffle.
TEST(AlterOpLayout, ShuffleUnitMatchesTheReferenceBuiltForLlvm) {
  uint64_t seed = 400;
  for (int64_t c : {48, 116, 232}) {
    for (int64_t hw : {7, 14, 17, 28}) {
      SCOPED_TRACE("channels " + std::to_string(c) + ", " + std::to_string(hw) + "x" +
                   std::to_string(hw));
      const int64_t h = c / 2;
      auto x = var("data", T({1, c, hw, hw}));
      relay::Expr a0 = tuple_get_item(split_at(x, {h}, 1), 0);
      relay::Expr a1 = tuple_get_item(split_at(x, {h}, 1), 1);
      auto b = nn::relu(nn::conv2d(a1, rand_const({h, h, 1, 1}, seed++, -0.3, 0.3)));
      b = nn::conv2d(b, rand_const({h, 1, 3, 3}, seed++), {.padding = {1}, .groups = h});
      b = nn::relu(nn::conv2d(b, rand_const({h, h, 1, 1}, seed++, -0.3, 0.3)));
      auto cat = concatenate({a0, b}, 1);
      auto y = reshape(transpose(reshape(cat, {1, 2, h, hw, hw}), {0, 2, 1, 3, 4}), {1, c, hw, hw});
      Function f({x}, y);
      auto xv = relay::testing::random_uniform({1, c, hw, hw}, -1, 1, seed++);
      relay_test::expect_llvm_matches_reference(f, {{"data", xv}}, 1e-4);
    }
  }
}

// Fallback blocks bend to their neighbours where a conv's reduction is short (at most 256
// products per output): a 1x1 conv feeding 16-channel groups writes 16-blocks, the 1x1 conv after
// them reads 16-blocks, so the only layout_transforms are the graph's input and output (blocks of
// 32 from the callback); 32-channel groups take the 32-blocks as they are; a long reduction keeps
// its blocks and the value is re-blocked. Values as the reference executor's.
TEST(AlterOpLayout, ShortConvsTakeTheirNeighboursBlocks) {
  uint64_t seed = 450;
  struct Case {
    int64_t cin, groups, transforms;
  };
  for (Case k : {Case{32, 4, 2}, Case{32, 2, 2}, Case{288, 4, 3}}) {
    SCOPED_TRACE("input channels " + std::to_string(k.cin) + ", groups " +
                 std::to_string(k.groups));
    relay::transform::AlterLayoutOptions o = fixed_blocks(32, 32, 16);
    o.group_block = 16;
    auto x = var("data", T({1, k.cin, 10, 10}));
    auto y = nn::relu(nn::bias_add(nn::conv2d(x, rand_const({64, k.cin, 1, 1}, seed++, -0.2, 0.2)),
                                   rand_const({64}, seed++)));
    auto g = nn::relu(nn::conv2d(y, rand_const({64, 64 / k.groups, 3, 3}, seed++, -0.2, 0.2),
                                 {.padding = {1}, .groups = k.groups}));
    Function f({x}, nn::conv2d(g, rand_const({64, 64, 1, 1}, seed++, -0.2, 0.2)));
    Function a = relay::transform::fold_constant(relay::transform::alter_op_layout(f, o));
    EXPECT_EQ(count_op(a, "nn.contrib_conv2d_NCHWc"), 3) << a;
    EXPECT_EQ(count_op(a, "layout_transform"), k.transforms) << a;
    auto xv = relay::testing::random_uniform({1, k.cin, 10, 10}, -1, 1, seed++);
    expect_close(reference_run(a, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0], 1e-5);
  }
}

// A 1x1 conv whose fallback output block bends to the groups after it (one vector, where its own
// fallback block is the preferred one: two vectors with AVX2 and on Intel's AVX-512 cores) runs
// with the fallback tiles of the blocks it got, not of the ones it had: the register columns and
// the output-channel chunks per tile (tile_oc_group) are those conv2d_nchwc_fallback picks for
// the graph's blocks. Values as the reference executor's.
TEST(AlterOpLayout, FallbackTilesAreThoseOfTheBlocksTheGraphGives) {
  const int64_t lanes = topi::cpu::fp32_lanes();
  uint64_t seed = 480;
  for (int64_t hw : {14, 9}) {
    SCOPED_TRACE("map " + std::to_string(hw));
    const std::vector<int64_t> ds{1, 64, hw, hw}, ks{64, 64, 1, 1};
    auto x = var("data", T(ds));
    auto y = nn::relu(nn::conv2d(x, rand_const(ks, seed++, -0.2, 0.2)));
    auto g = nn::relu(nn::conv2d(y, rand_const({64, lanes, 3, 3}, seed++, -0.2, 0.2),
                                 {.padding = {1}, .groups = 64 / lanes}));
    Function f({x}, g);
    Built b = build(f, "llvm", {}, {.winograd = false});
    const relay::KernelInfo* one = nullptr;
    for (auto& k : b.kernels)
      if (k.template_key == "conv2d_NCHWc.x86" && !one) one = &k;
    ASSERT_NE(one, nullptr) << b.report();
    // The blocks the graph gave it (decide_op writes them into the config).
    autotune::FallbackConfigEntity mine;
    topi::cpu::conv2d_nchwc_fallback(mine, ds, ks, {});
    const int64_t ib = mine.split("tile_ic").size.back();
    int64_t ob = 0;
    for (const auto& e : post_order(b.optimized.body))
      if (e->is_call("nn.contrib_conv2d_NCHWc") && e->attrs.at("groups").get<int64_t>() == 1)
        ob = e->args[1]->types[0].shape[5];
    ASSERT_GT(ob, 0);
    if (topi::cpu::preferred_channel_block() > lanes) EXPECT_EQ(ob, lanes);
    autotune::FallbackConfigEntity expected;
    const topi::cpu::GroupedBlocks blocks{1, ib, ob};
    topi::cpu::conv2d_nchwc_fallback(expected, ds, ks, {}, &blocks);
    EXPECT_EQ(one->config, expected.str());
    EXPECT_TRUE(one->is_fallback);
    auto xv = relay::testing::random_uniform(ds, -1, 1, seed++);
    expect_close(relay_test::run_graph(b, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0],
                 1e-4);
  }
}

namespace {
// The grouped convolutions of `f` that run blocked (nn.contrib_conv2d_NCHWc with groups), or with
// `winograd` those that run as nn.contrib_conv2d_winograd_NCHWc with groups.
int blocked_grouped_convs(const Function& f, bool winograd = false) {
  const char* op = winograd ? "nn.contrib_conv2d_winograd_NCHWc" : "nn.contrib_conv2d_NCHWc";
  int n = 0;
  for (const auto& e : post_order(f.body))
    n += e->is_call(op) && e->attrs.at("groups").get<int64_t>() > 1;
  return n;
}
}  // namespace

// Grouped convolutions built for llvm: groups of 16 or 32 channels run blocked
// (nn.contrib_conv2d_NCHWc with groups, on the input's block or a vector), narrower ones and
// those of 24 stay NCHW; strided, padded and dilated, after a blocked 1x1 conv and into a residual
// add; values as the reference executor's grouped loop nest. Here Winograd is off (the blocked
// stride-1 ones would take it: the next test).
TEST(AlterOpLayout, GroupedConvsMatchTheReferenceBuiltForLlvm) {
  const int64_t lanes = topi::cpu::fp32_lanes();
  uint64_t seed = 500;
  struct Case {
    int64_t c, groups, stride, dilation;
  };
  for (Case k : {Case{64, 4, 1, 1}, Case{64, 2, 2, 1}, Case{128, 4, 1, 2}, Case{96, 4, 1, 1},
                 Case{64, 8, 1, 1}, Case{64, 16, 2, 1}}) {
    const int64_t cg = k.c / k.groups;
    SCOPED_TRACE("channels " + std::to_string(k.c) + ", groups " + std::to_string(k.groups) +
                 ", stride " + std::to_string(k.stride) + ", dilation " +
                 std::to_string(k.dilation));
    auto x = var("data", T({1, 24, 9, 9}));
    auto y = nn::relu(nn::conv2d(x, rand_const({k.c, 24, 1, 1}, seed++, -0.3, 0.3)));
    auto g = nn::conv2d(y, rand_const({k.c, cg, 3, 3}, seed++, -0.2, 0.2),
                        {.strides = {k.stride, k.stride},
                         .padding = {k.dilation},
                         .dilation = {k.dilation, k.dilation},
                         .groups = k.groups});
    g = nn::relu(nn::bias_add(g, rand_const({k.c}, seed++)));
    auto z = nn::conv2d(g, rand_const({k.c, k.c, 1, 1}, seed++, -0.2, 0.2));
    if (k.stride == 1) z = add(z, y);
    Function f({x}, z);
    Built b = build(f, "llvm", {}, {.winograd = false});
    EXPECT_EQ(blocked_grouped_convs(b.optimized), cg % lanes == 0 ? 1 : 0);
    auto xv = relay::testing::random_uniform({1, 24, 9, 9}, -1, 1, seed++);
    expect_close(relay_test::run_graph(b, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0],
                 1e-4);
  }
}

// The block alter_op_layout gives a grouped conv of whole-vector groups whose input a conv of `c`
// channels makes: that conv's preferred block where it divides the groups' input and output
// channels (16 with AVX2, 32 on Intel's AVX-512 cores), else a vector.
static int64_t whole_vector_group_block(int64_t c, int64_t cg, int64_t og) {
  const int64_t p = topi::cpu::preferred_channel_block();
  return c % p == 0 && cg % p == 0 && og % p == 0 ? p : topi::cpu::fp32_lanes();
}

// Blocked grouped 3x3 stride-1 convolutions run as Winograd on the blocked layouts, each group's
// product over its own channel blocks: F(4, 3) on maps of 24 and more, and on AMD's cores from 12
// with groups of 48 channels; F(2, 3) on smaller maps down to 8, and on 7x7 with groups of 64;
// direct below (winograd_nchwc_group_tile). Groups of one and of several vectors, more output than
// input channels per group, odd maps; groups of three or more half vectors (RegNet's 24, 56 and 120
// channels) on half-vector blocks, narrower ones NCHW, and after a conv whose channels are not a
// multiple of a vector; the bias, relu and residual add fused into the Winograd kernel;
// values as the reference executor's grouped loop nest. The type rule takes the groups from the
// transformed weight's input blocks and names a mismatch.
TEST(AlterOpLayout, GroupedWinogradMatchesTheReference) {
  const int64_t lanes = topi::cpu::fp32_lanes();
  uint64_t seed = 640;
  using topi::cpu::winograd_nchwc_group_tile;
  EXPECT_EQ(winograd_nchwc_group_tile(25, 27, 16), 4);
  EXPECT_EQ(winograd_nchwc_group_tile(14, 14, 48, /*amd=*/true), 4);
  EXPECT_EQ(winograd_nchwc_group_tile(14, 14, 48, /*amd=*/false), 2);
  EXPECT_EQ(winograd_nchwc_group_tile(28, 28, 48, /*amd=*/false), 4);
  EXPECT_EQ(winograd_nchwc_group_tile(14, 14, 32), 2);
  EXPECT_EQ(winograd_nchwc_group_tile(9, 13, 128), 2);
  EXPECT_EQ(winograd_nchwc_group_tile(7, 7, 64), 2);
  EXPECT_EQ(winograd_nchwc_group_tile(7, 7, 32), 0);
  EXPECT_EQ(winograd_nchwc_group_tile(6, 6, 128), 0);
  struct Case {
    int64_t cg_chunks, og_chunks, groups, h, w;
    bool half = false;  // chunks of half a vector
  };
  for (Case k :
       {Case{3, 3, 2, 14, 14}, Case{1, 1, 4, 14, 14}, Case{2, 4, 2, 25, 27}, Case{4, 4, 2, 7, 7},
        Case{1, 1, 6, 7, 7}, Case{2, 2, 3, 9, 13}, Case{3, 3, 2, 6, 6}, Case{3, 3, 4, 14, 14, true},
        Case{5, 5, 2, 10, 11, true}, Case{1, 1, 4, 28, 28, true}, Case{3, 3, 2, 7, 7, true}}) {
    const int64_t chunk = k.half ? lanes / 2 : lanes;
    const int64_t cg = k.cg_chunks * chunk, og = k.og_chunks * chunk;
    const int64_t c = cg * k.groups, o = og * k.groups;
    const int64_t block = k.half ? chunk : whole_vector_group_block(c, cg, og);
    SCOPED_TRACE(std::to_string(k.groups) + " groups of " + std::to_string(cg) + " -> " +
                 std::to_string(og) + " channels, " + std::to_string(k.h) + "x" +
                 std::to_string(k.w));
    const int64_t tile = winograd_nchwc_group_tile(k.h, k.w, cg);
    // Half-vector chunks run blocked only as Winograd, and only three or more per group.
    const bool blocked = !k.half || (tile > 0 && k.cg_chunks >= 3);
    auto x = var("data", T({1, 8, k.h, k.w}));
    auto y = nn::relu(nn::conv2d(x, rand_const({c, 8, 1, 1}, seed++, -0.3, 0.3)));
    auto g = nn::conv2d(y, rand_const({o, cg, 3, 3}, seed++, -0.1, 0.1),
                        {.padding = {1}, .groups = k.groups});
    g = nn::bias_add(g, rand_const({o}, seed++));
    if (o == c) g = add(g, y);
    g = nn::relu(g);
    Function f({x}, nn::conv2d(g, rand_const({16, o, 1, 1}, seed++, -0.2, 0.2)));
    Built b = build(f, "llvm");
    EXPECT_EQ(blocked_grouped_convs(b.optimized, /*winograd=*/true), blocked && tile > 0);
    EXPECT_EQ(blocked_grouped_convs(b.optimized), blocked && tile == 0);
    for (auto& e : post_order(b.optimized.body))
      if (e->is_call("nn.contrib_conv2d_winograd_NCHWc")) {
        EXPECT_EQ(e->attrs.at("tile_size").get<int64_t>(), tile);
        EXPECT_EQ(e->args[1]->types[0].shape,
                  (std::vector<int64_t>{tile + 2, tile + 2, o / block, cg / block, block, block}));
      }
    if (blocked && tile > 0) {
      const std::vector<std::string> want =
          o == c ? std::vector<std::string>{"nn.contrib_conv2d_winograd_NCHWc", "add", "add",
                                            "nn.relu"}
                 : std::vector<std::string>{"nn.contrib_conv2d_winograd_NCHWc", "add", "nn.relu"};
      int fused = 0;
      for (auto& kn : b.kernels) fused += kn.ops == want;
      EXPECT_EQ(fused, 1) << b.report();
    }
    auto xv = relay::testing::random_uniform({1, 8, k.h, k.w}, -1, 1, seed++);
    expect_close(relay_test::run_graph(b, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0],
                 1e-4);
  }
  {
    // RegNetX-1.6GF's 408 channels in 24-channel groups: the 1x1 conv before keeps its 408
    // channels (not padded to a multiple of the vector), so the groups run blocked as Winograd.
    SCOPED_TRACE("17 groups of 24 channels");
    auto x = var("data", T({1, 16, 14, 14}));
    auto y = nn::relu(nn::conv2d(x, rand_const({408, 16, 1, 1}, seed++, -0.3, 0.3)));
    auto g = nn::conv2d(y, rand_const({408, 24, 3, 3}, seed++, -0.1, 0.1),
                        {.padding = {1}, .groups = 17});
    g = nn::relu(add(nn::bias_add(g, rand_const({408}, seed++)), y));
    Function f({x}, nn::conv2d(g, rand_const({16, 408, 1, 1}, seed++, -0.2, 0.2)));
    Built b = build(f, "llvm");
    EXPECT_EQ(blocked_grouped_convs(b.optimized, /*winograd=*/true), 1) << b.optimized;
    EXPECT_EQ(count_op(b.optimized, "nn.conv2d"), 0) << b.optimized;
    auto xv = relay::testing::random_uniform({1, 16, 14, 14}, -1, 1, seed++);
    expect_close(relay_test::run_graph(b, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0],
                 1e-4);
  }
  // The type rule: 4 input blocks in 2 groups take a weight of 2 input blocks.
  auto d = var("d", T({1, 4, 8, 8, 16}));
  auto u = var("u", T({4, 4, 6, 2, 16, 16}));
  const std::string op = "nn.contrib_conv2d_winograd_NCHWc";
  EXPECT_EQ(call(op, {d, u}, {{"tile_size", 2}, {"padding", {1, 1}}, {"groups", 2}})->type().shape,
            (std::vector<int64_t>{1, 6, 8, 8, 16}));
  EXPECT_NE(error_of([&] {
              call(op, {d, u}, {{"tile_size", 2}, {"padding", {1, 1}}, {"groups", 1}});
            }).find("groups=1 (expected (4, 4, O/ob, 4, 16, ob))"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              call(op, {d, u}, {{"tile_size", 2}, {"padding", {1, 1}}, {"groups", 4}});
            }).find("groups=4 must divide"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              call(op, {d, u}, {{"tile_size", 2}, {"padding", {1, 1}}, {"groups", 0}});
            }).find("groups must be a positive integer"),
            std::string::npos);
}

// Strided grouped convolutions over padded inputs of 1 MiB or more pad each task's rows in the
// kernel (conv2d_NCHWc's per-row padding) instead of in one copy before it: the top, bottom and
// side padding, a bottom edge the last window does not reach (an odd height), a map wider than
// high and the reverse, stride 3; with 32-channel groups on 16-lane blocks (two chunks per group)
// the single copy. Values as the reference executor's grouped loop nest.
TEST(AlterOpLayout, StridedGroupedConvsOnLargeMapsMatchTheReference) {
  uint64_t seed = 560;
  struct Case {
    int64_t c, groups, h, w, stride;
  };
  for (Case k : {Case{64, 4, 65, 65, 2}, Case{128, 8, 66, 40, 2}, Case{64, 2, 36, 120, 2},
                 Case{64, 4, 67, 67, 3}}) {
    const int64_t cg = k.c / k.groups;
    SCOPED_TRACE("channels " + std::to_string(k.c) + ", groups " + std::to_string(k.groups) + ", " +
                 std::to_string(k.h) + "x" + std::to_string(k.w) + ", stride " +
                 std::to_string(k.stride));
    auto x = var("data", T({1, 8, k.h, k.w}));
    auto y = nn::relu(nn::conv2d(x, rand_const({k.c, 8, 1, 1}, seed++, -0.3, 0.3)));
    auto g = nn::conv2d(y, rand_const({k.c, cg, 3, 3}, seed++, -0.2, 0.2),
                        {.strides = {k.stride, k.stride}, .padding = {1}, .groups = k.groups});
    g = nn::relu(nn::bias_add(g, rand_const({k.c}, seed++)));
    auto z = nn::conv2d(g, rand_const({16, k.c, 1, 1}, seed++, -0.2, 0.2));
    Function f({x}, z);
    Built b = build(f, "llvm");
    auto xv = relay::testing::random_uniform({1, 8, k.h, k.w}, -1, 1, seed++);
    expect_close(relay_test::run_graph(b, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0],
                 1e-4);
  }
}

// Grouped convolutions tile several vector-wide chunks of a group together
// (conv2d_nchwc_group_tile; on AMD's cores strided ones whose groups' inputs are larger than half
// an L2): 3 and 8 chunks per group over 112x112 and 56x56 maps (row blocks), the per-task padding
// of an input of 4 MiB or more, stride 3, small maps (one chunk per tile on AMD's cores), a 7x7
// stride-1 layer that stays direct, groups of 7 chunks (one tile of 7 but on AMD's cores). The
// chunk loop of the group's register tile is in the lowered IR where the rule says so; values as
// the reference executor's grouped loop nest.
TEST(AlterOpLayout, GroupedConvsTilingSeveralChunksMatchTheReference) {
  const int64_t lanes = topi::cpu::fp32_lanes();
  uint64_t seed = 600;
  struct Case {
    int64_t group_chunks, groups, h, stride;
  };
  int several = 0;  // cases with several chunks per tile
  for (Case k : {Case{3, 2, 112, 2}, Case{8, 2, 56, 2}, Case{4, 4, 66, 2}, Case{4, 2, 64, 3},
                 Case{2, 8, 14, 2}, Case{3, 6, 13, 2}, Case{3, 6, 7, 1}, Case{7, 4, 14, 2}}) {
    const int64_t cg = k.group_chunks * lanes, c = cg * k.groups;
    SCOPED_TRACE("channels " + std::to_string(c) + ", groups " + std::to_string(k.groups) + ", " +
                 std::to_string(k.h) + "x" + std::to_string(k.h) + ", stride " +
                 std::to_string(k.stride));
    auto x = var("data", T({1, 8, k.h, k.h}));
    auto y = nn::relu(nn::conv2d(x, rand_const({c, 8, 1, 1}, seed++, -0.3, 0.3)));
    auto g = nn::conv2d(y, rand_const({c, cg, 3, 3}, seed++, -0.1, 0.1),
                        {.strides = {k.stride, k.stride}, .padding = {1}, .groups = k.groups});
    g = nn::relu(nn::bias_add(g, rand_const({c}, seed++)));
    Function f({x}, nn::conv2d(g, rand_const({16, c, 1, 1}, seed++, -0.2, 0.2)));
    std::ostringstream ir;
    Built b = build(f, "llvm", {}, {.print_after_each_pass = &ir});
    EXPECT_EQ(blocked_grouped_convs(b.optimized), 1);
    // The group's chunks in one register tile (the unrolled chunk loop of the accumulator).
    const int64_t oh = (k.h - 1) / k.stride + 1, threads = runtime::configured_thread_count();
    const int64_t padded = cg * (k.h + 2) * (k.h + 2) * 4;
    const int64_t block = whole_vector_group_block(c, cg, cg);
    const int64_t tile = topi::cpu::conv2d_nchwc_group_tile(
        c / block, cg / block, k.stride, padded, topi::cpu::l2_cache_bytes(), block, lanes, threads,
        cg * k.h * k.h > c * cg * 9 ? oh : 1);
    if (k.h < 16 && topi::cpu::host_cpu_is_amd()) EXPECT_EQ(tile, 1);
    EXPECT_EQ(ir.str().find("unrolled (oc_chunk.c, 0, " + std::to_string(tile) + ")") !=
                  std::string::npos,
              tile > 1);
    several += tile > 1;
    auto xv = relay::testing::random_uniform({1, 8, k.h, k.h}, -1, 1, seed++);
    expect_close(relay_test::run_graph(b, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0],
                 1e-4);
  }
  // (Groups on two-vector blocks keep one chunk per tile; some case has one-vector blocks.)
  EXPECT_GT(several, 0);
}

// Dense layers of many rows (transformer tokens) run as nn.contrib_dense_pack on llvm, with the
// weight packed at build time: rows that the register tile divides, rows that need padding (197 =
// ViT's tokens, 3136 = ConvNeXt's first stage), units of a full, a half and a quarter block, a
// bias + relu epilogue, a reshape after it; fewer rows and units of no block stay nn.dense. Each
// against the reference executor.
TEST(AlterOpLayout, DenseOfManyRowsIsPackedAndMatchesTheReference) {
  const int64_t b = topi::cpu::dense_pack_block();
  EXPECT_EQ(b % topi::cpu::fp32_lanes(), 0);
  // The accumulators of one register tile fit in the vector registers with room for the weights.
  const int64_t vregs = topi::cpu::fp32_lanes() >= 16 ? 32 : 16;
  const int64_t mt = topi::cpu::dense_pack_row_tile(b);
  EXPECT_GE(mt, 4);
  EXPECT_LE(mt * (b / topi::cpu::fp32_lanes()) + b / topi::cpu::fp32_lanes() + 1, vregs);
  uint64_t seed = 700;
  struct Case {
    int64_t m, k, n;
    bool reshape;
  };
  for (Case c :
       {Case{6 * mt * 7, 40, 2 * b, false}, Case{197, 64, 3 * b, true}, Case{49, 24, b / 2, false},
        Case{3136, 8, b / 4, true}, Case{3, 32, b, false}, Case{40, 16, b / 4 + 1, false}}) {
    SCOPED_TRACE("M " + std::to_string(c.m) + " K " + std::to_string(c.k) + " N " +
                 std::to_string(c.n));
    auto x = var("data", T({c.m, c.k}));
    auto y = nn::dense(x, rand_const({c.n, c.k}, seed++, -0.5, 0.5));
    y = nn::relu(nn::bias_add(y, rand_const({c.n}, seed++), 1));
    if (c.reshape) y = add(reshape(y, {1, c.m, c.n}), rand_const({1, 1, c.n}, seed++));
    Function f({x}, y);
    Built bt = build(f, "llvm");
    const bool packed = c.m > 16 && c.n % (b / 4) == 0;
    EXPECT_EQ(count_op(bt.optimized, "nn.contrib_dense_pack"), packed ? 1 : 0);
    EXPECT_EQ(count_op(bt.optimized, "nn.dense"), packed ? 0 : 1);
    // The packing (reshape + transpose of the weight) was folded at build time.
    EXPECT_EQ(count_op(bt.optimized, "transpose"), 0);
    auto xv = relay::testing::random_uniform({c.m, c.k}, -1, 1, seed++);
    expect_close(relay_test::run_graph(bt, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0],
                 1e-4);
  }
}

// nn.batch_matmul on llvm runs packed (y transposed per call, rows and columns padded to the
// register tile where they need it): ViT's 197-token attention shapes (QK^T: columns padded to two
// vectors; AV: four vectors of columns), a batch of 1 broadcast on either side, an epilogue; each
// against the reference executor.
TEST(AlterOpLayout, BatchMatmulPackedForLlvmMatchesTheReference) {
  uint64_t seed = 800;
  struct Case {
    int64_t bx, by, m, n, k;
  };
  for (Case c : {Case{3, 3, 197, 197, 16}, Case{3, 3, 197, 16, 197}, Case{2, 1, 24, 32, 8},
                 Case{1, 2, 5, 7, 3}, Case{2, 2, 197, 64, 40}, Case{1, 1, 30, 130, 5}}) {
    SCOPED_TRACE("x (" + std::to_string(c.bx) + ", " + std::to_string(c.m) + ", " +
                 std::to_string(c.k) + ") y (" + std::to_string(c.by) + ", " + std::to_string(c.n) +
                 ", " + std::to_string(c.k) + ")");
    auto x = var("x", T({c.bx, c.m, c.k}));
    auto y = var("y", T({c.by, c.n, c.k}));
    auto z = multiply(nn::batch_matmul(x, y), rand_const({1, 1, c.n}, seed++));
    Function f({x, y}, z);
    Built bt = build(f, "llvm");
    auto xv = relay::testing::random_uniform({c.bx, c.m, c.k}, -1, 1, seed++);
    auto yv = relay::testing::random_uniform({c.by, c.n, c.k}, -1, 1, seed++);
    auto want = reference_run(f, {{"x", xv}, {"y", yv}})[0];
    expect_close(relay_test::run_graph(bt, {{"x", xv}, {"y", yv}})[0], want, 1e-4);
    // The padded rows and columns of the packs are not read from x and y: with every array
    // against an inaccessible page after it, a read past the end faults.
    runtime::NDArray got;
    {
      runtime::ScopedGuardPages guard(runtime::GuardPages::After);
      auto xg = relay::testing::random_uniform({c.bx, c.m, c.k}, -1, 1, seed - 2);
      auto yg = relay::testing::random_uniform({c.by, c.n, c.k}, -1, 1, seed - 1);
      got = relay_test::run_graph(bt, {{"x", xg}, {"y", yg}})[0];
    }
    expect_close(got, want, 1e-4);
  }
}

// The blocked conv's type rule with groups: the weight's input blocks times the groups must be
// the data's channels, and the groups must divide the output channel blocks.
TEST(BlockedOps, GroupedConvTypeRule) {
  auto x = var("x", T({1, 4, 5, 5, 16}));  // 64 channels
  Json at = {{"strides", {1, 1}},        {"padding", {1, 1}},
             {"dilation", {1, 1}},       {"groups", 2},
             {"channels", 64},           {"kernel_size", {3, 3}},
             {"data_layout", "NCHW16c"}, {"kernel_layout", "OIHW16i16o"},
             {"out_layout", "NCHW16c"},  {"out_dtype", ""}};
  auto ok = call("nn.contrib_conv2d_NCHWc", {x, var("w", T({4, 2, 3, 3, 16, 16}))}, at);
  EXPECT_EQ(ok->types[0].shape, (std::vector<int64_t>{1, 4, 5, 5, 16}));
  auto bad_in = [&] {
    call("nn.contrib_conv2d_NCHWc", {x, var("w", T({4, 4, 3, 3, 16, 16}))}, at);
  };
  EXPECT_THROW(bad_in(), CompileError);
  Json at3 = at;
  at3["groups"] = 4;
  auto bad_out = [&] {
    call("nn.contrib_conv2d_NCHWc", {x, var("w", T({2, 1, 3, 3, 16, 16}))}, at3);
  };
  try {
    bad_out();
    FAIL() << "3 output chunks into 4 groups accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("do not divide into 4 groups"), std::string::npos)
        << e.what();
  }
}

// relay::build on llvm takes the blocks from the config the dispatch context answers for the
// layer's conv2d_NCHWc.x86 workload (TVM's _alter_conv2d_layout), and applies the rest of it.
TEST(AlterOpLayout, BlocksComeFromTheDispatchContext) {
  auto x = var("data", T({1, 8, 10, 10}));
  auto f = Function({x}, nn::relu(nn::conv2d(x, rand_const({12, 8, 3, 3}, 1), {.padding = {1}})));
  topi::nn::Conv2dAttrs at;
  at.padding = {1, 1, 1, 1};
  // A tuning record of the layer's conv2d_NCHWc.x86 task (as `minitvm tune` writes them) whose
  // config has blocks 2 / 4.
  Json wl = topi::cpu::conv2d_nchwc_workload({1, 8, 10, 10}, {12, 8, 3, 3}, at);
  autotune::Task task("conv2d_NCHWc.x86", Json(wl.begin() + 1, wl.end()), "llvm");
  const int64_t pick = relay_test::find_config(task, [](const autotune::ConfigEntity& c) {
    return c.split("tile_ic").size.back() == 2 && c.split("tile_oc").size.back() == 4 &&
           c.split("tile_ow").size.back() == 5 && c.knob_int("unroll_kw") == 1;
  });
  ASSERT_GE(pick, 0);
  autotune::ApplyHistoryBest best = relay_test::one_record(task, pick);
  autotune::DispatchScope scope(best);
  Built b = build(f, "llvm");
  bool found = false;
  for (auto& e : post_order(b.optimized.body))
    if (e->is_call("nn.contrib_conv2d_NCHWc")) {
      found = true;
      EXPECT_EQ(e->attrs.at("data_layout"), "NCHW2c");
      EXPECT_EQ(e->attrs.at("out_layout"), "NCHW4c");
    }
  EXPECT_TRUE(found) << b.optimized;
  int tuned = 0;
  for (auto& k : b.kernels)
    if (k.template_key == "conv2d_NCHWc.x86") {
      EXPECT_FALSE(k.is_fallback);
      EXPECT_EQ(k.config_index, pick);
      ++tuned;
    }
  EXPECT_EQ(tuned, 1) << b.report();
  auto xv = relay::testing::random_uniform({1, 8, 10, 10}, -1, 1, 2);
  expect_close(relay_test::run_graph(b, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0],
               1e-5);
}

namespace {

// The config of a ci -> co 1x1 layer on a hw x hw map with 16-channel blocks and a register tile
// of ow_tile columns of one row (a point of the template's space, as a tuning record would give).
std::optional<autotune::ConfigEntity> one_by_one_config(int64_t ci, int64_t co, int64_t hw,
                                                        int64_t ow_tile) {
  topi::nn::Conv2dAttrs at;
  Json wl = topi::cpu::conv2d_nchwc_workload({1, ci, hw, hw}, {co, ci, 1, 1}, at);
  autotune::Task task("conv2d_NCHWc.x86", Json(wl.begin() + 1, wl.end()), "llvm");
  const int64_t pick = relay_test::find_config(task, [&](const autotune::ConfigEntity& c) {
    return c.split("tile_ic").size.back() == 16 && c.split("tile_oc").size.back() == 16 &&
           c.split("tile_ow").size.back() == ow_tile && c.knob_int("tile_oh") == 1;
  });
  if (pick < 0) return std::nullopt;
  return task.config(pick);
}

}  // namespace

// A config that groups output-channel chunks per register tile (tile_oc_group, which fallbacks
// set for 1x1 layers on one-vector blocks) drives the fused kernel: the conv's bias and
// relu run in the blocked epilogue, on 7x7 (weights larger than the input) and 14x14 maps (the
// input larger), and the values are the reference executor's.
TEST(AlterOpLayout, GroupedChunkConfigsBuildTheFusedKernel) {
  struct GroupCase {
    int64_t ci, co, hw, group, ow_tile;
  };
  uint64_t seed = 700;
  for (const GroupCase& g : {GroupCase{32, 96, 7, 3, 7}, GroupCase{48, 96, 14, 2, 7}}) {
    SCOPED_TRACE("map " + std::to_string(g.hw));
    auto x = var("data", T({1, g.ci, g.hw, g.hw}));
    auto conv = nn::conv2d(x, rand_const({g.co, g.ci, 1, 1}, seed++, -0.3, 0.3));
    auto f = Function({x}, nn::relu(add(conv, rand_const({g.co, 1, 1}, seed++))));
    std::optional<autotune::ConfigEntity> found = one_by_one_config(g.ci, g.co, g.hw, g.ow_tile);
    ASSERT_TRUE(found.has_value());
    autotune::ConfigEntity cfg = *found;
    cfg.set("tile_oc_group", autotune::OtherOptionEntity{g.group});
    // (Tuning records cannot carry the knob: the template's space does not define it.)
    autotune::ApplyConfig one(cfg);
    autotune::DispatchScope scope(one);
    Built b = build(f, "llvm");
    int tuned = 0;
    for (auto& k : b.kernels)
      if (k.template_key == "conv2d_NCHWc.x86") {
        EXPECT_FALSE(k.is_fallback);
        EXPECT_EQ(k.ops, (std::vector<std::string>{"nn.contrib_conv2d_NCHWc", "add", "nn.relu"}));
        ++tuned;
      }
    EXPECT_EQ(tuned, 1) << b.report();
    auto xv = relay::testing::random_uniform({1, g.ci, g.hw, g.hw}, -1, 1, seed++);
    expect_close(relay_test::run_graph(b, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0],
                 1e-5);
  }
}

// A 1x1 with a blocked epilogue (bias, relu, a residual add) outside the reduction order
// computes its accumulators, the convolution and the epilogue at the register tile: the
// accumulator buffer is one tile (chunks x columns x block), not a row. A chunk group that does
// not divide the chunks keeps the row buffers. Rows outer without a group, with groups of 2 and 3,
// and a ragged group of 2 over 5 chunks: each against the reference executor.
TEST(AlterOpLayout, OneByOneEpiloguesRunAtTheRegisterTile) {
  struct Case {
    int64_t ci, co, hw, group, ow_tile;
  };
  uint64_t seed = 900;
  for (const Case& k : {Case{48, 96, 14, 1, 7}, Case{48, 96, 14, 2, 7}, Case{16, 48, 28, 3, 4},
                        Case{48, 80, 14, 2, 7}}) {
    SCOPED_TRACE(std::to_string(k.ci) + " -> " + std::to_string(k.co) + " at " +
                 std::to_string(k.hw) + ", group " + std::to_string(k.group));
    auto x = var("data", T({1, k.ci, k.hw, k.hw}));
    auto conv = nn::conv2d(x, rand_const({k.co, k.ci, 1, 1}, seed++, -0.3, 0.3));
    auto y = nn::relu(add(conv, rand_const({k.co, 1, 1}, seed++)));
    auto f = Function({x}, add(y, rand_const({1, k.co, k.hw, k.hw}, seed++)));
    std::optional<autotune::ConfigEntity> found = one_by_one_config(k.ci, k.co, k.hw, k.ow_tile);
    ASSERT_TRUE(found.has_value());
    autotune::ConfigEntity cfg = *found;
    if (k.group > 1) cfg.set("tile_oc_group", autotune::OtherOptionEntity{k.group});
    autotune::ApplyConfig one(cfg);
    autotune::DispatchScope scope(one);
    std::ostringstream ir;
    Built b = build(f, "llvm", {}, {.print_after_each_pass = &ir});
    int convs = 0;
    for (auto& kern : b.kernels)
      if (kern.template_key == "conv2d_NCHWc.x86") {
        EXPECT_FALSE(kern.is_fallback);
        EXPECT_GE(kern.ops.size(), 3u);  // the conv and its epilogue in one kernel
        ++convs;
      }
    EXPECT_EQ(convs, 1) << b.report();
    const bool whole = (k.co / 16) % k.group == 0;
    const int64_t tile = k.group * k.ow_tile * 16, row = k.group * k.hw * 16;
    const std::string text = ir.str();
    auto allocates = [&](int64_t n) {
      return text.find("allocate conv2d_NCHWc.global[float32 * " + std::to_string(n) + "]") !=
             std::string::npos;
    };
    EXPECT_EQ(allocates(tile), whole) << text.substr(text.rfind("// ---- after schedule_ops"));
    EXPECT_EQ(allocates(row), !whole);
    auto xv = relay::testing::random_uniform({1, k.ci, k.hw, k.hw}, -1, 1, seed++);
    expect_close(relay_test::run_graph(b, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0],
                 1e-5);
  }
}

// opt_level 2 keeps NCHW (TVM runs AlterOpLayout at level 3); cuda never blocks.
TEST(AlterOpLayout, OnlyLlvmAtOptLevel3) {
  auto x = var("data", T({1, 8, 6, 6}));
  auto f = Function({x}, nn::relu(nn::conv2d(x, rand_const({8, 8, 3, 3}, 1), {.padding = {1}})));
  BuildOptions o2;
  o2.opt_level = 2;
  o2.workloads_only = true;
  EXPECT_EQ(count_op(build(f, "llvm", {}, o2).optimized, "nn.contrib_conv2d_NCHWc"), 0);
  BuildOptions o3;
  o3.workloads_only = true;
  EXPECT_EQ(count_op(build(f, "llvm", {}, o3).optimized, "nn.contrib_conv2d_NCHWc"), 1);
  EXPECT_EQ(count_op(build(f, "cuda -emulate", {}, o3).optimized, "nn.contrib_conv2d_NCHWc"), 0);
}

// The shipped llvm conv2d log (tophub/conv2d_llvm_zen3_avx2.log, bench/network/tune_llvm.py):
// every record fits the template's space (strict load), and it answers ResNet-50's layers with
// their tuned configs, whose blocks alter_op_layout then uses.
TEST(AlterOpLayout, ShippedLlvmLogAnswersResNet50Layers) {
  autotune::ApplyHistoryBest best;
  autotune::LoadOptions lo;
  lo.strict = true;
  std::vector<autotune::LoadReport> reports;
  best.load(MINITVM_SOURCE_DIR "/tophub/conv2d_llvm_zen3_avx2.log", lo, &reports);
  ASSERT_EQ(reports.size(), 1u);
  autotune::DispatchScope scope(best);
  auto net = relay::testing::resnet(50, 1);
  BuildOptions o;
  o.workloads_only = true;
  Built b = build(net.mod, "llvm", net.params, o);
  int tuned = 0, total = 0;
  for (auto& k : b.kernels)
    if (k.template_key == "conv2d_NCHWc.x86") {
      ++total;
      tuned += k.is_fallback ? 0 : 1;
    }
  EXPECT_GE(total, 20);
  EXPECT_EQ(tuned, total) << b.report();
  // The blocked graph has the tuned blocks: some layer's data block differs from the fallback's 8.
  int other_blocks = 0;
  for (auto& e : post_order(b.optimized.body))
    if (e->is_call("nn.contrib_conv2d_NCHWc") && e->attrs.at("data_layout") != "NCHW8c")
      ++other_blocks;
  EXPECT_GT(other_blocks, 0);
}

// On llvm, 3x3 stride-1 convs of at least 32 input and output channels and an output of at least
// 8x8 (7x7 from 64 input channels, on AMD's cores) run as Winograd on the blocked layouts: F(4, 3)
// on maps of 24 and more, F(2, 3) below; the others (strided, 16 output channels) stay direct. The
// weight transform is folded at build time, the bias, residual add and relu are fused into the
// Winograd kernel, and the values are the NCHW reference's. BuildOptions::winograd = false and task
// extraction (workloads_only) keep the direct kernels.
TEST(AlterOpLayout, WinogradForThreeByThreeStrideOneLayers) {
  auto x = var("data", T({1, 32, 24, 24}));
  auto c3 = [](const relay::Expr& in, int64_t ci, int64_t co, int64_t stride, uint64_t seed) {
    return nn::conv2d(in, rand_const({co, ci, 3, 3}, seed, -0.2, 0.2),
                      {.strides = {stride, stride}, .padding = {1}});
  };
  auto y = nn::relu(nn::bias_add(c3(x, 32, 64, 1, 1), rand_const({64}, 2)));
  auto z = nn::relu(add(c3(y, 64, 64, 1, 3), y));
  auto s = nn::relu(c3(z, 64, 64, 2, 4));  // 12x12, strided: direct
  auto t = c3(s, 64, 32, 1, 5);            // 12x12: F(2, 3)
  auto u = c3(t, 32, 16, 1, 6);            // 16 output channels: direct
  Function f({x}, tuple({nn::global_avg_pool2d(u), t}));
  auto xv = relay::testing::random_uniform({1, 32, 24, 24}, -1, 1, 7);
  auto want = reference_run(f, {{"data", xv}});

  Built b = build(f, "llvm");
  std::vector<int64_t> tiles;
  for (auto& e : post_order(b.optimized.body))
    if (e->is_call("nn.contrib_conv2d_winograd_NCHWc"))
      tiles.push_back(e->attrs.at("tile_size").get<int64_t>());
  EXPECT_EQ(tiles, (std::vector<int64_t>{4, 4, 2})) << b.optimized;
  EXPECT_EQ(count_op(b.optimized, "nn.contrib_conv2d_NCHWc"), 2);
  EXPECT_EQ(count_op(b.optimized, "nn.contrib_conv2d_winograd_NCHWc_weight_transform"), 0)
      << "the weight transform is folded at build time";
  int wino_kernels = 0;
  for (auto& k : b.kernels) {
    if (k.master_op != "nn.contrib_conv2d_winograd_NCHWc") continue;
    ++wino_kernels;
    EXPECT_EQ(k.template_key, "winograd_NCHWc");
    EXPECT_TRUE(k.tuning_workloads.empty());
  }
  EXPECT_EQ(wino_kernels, 3) << b.report();
  // The bias + relu of the first and the residual add + relu of the second are fused.
  int fused = 0;
  for (auto& k : b.kernels)
    fused +=
        k.master_op == "nn.contrib_conv2d_winograd_NCHWc" &&
        k.ops == std::vector<std::string>{"nn.contrib_conv2d_winograd_NCHWc", "add", "nn.relu"};
  EXPECT_EQ(fused, 2) << b.report();
  auto got = relay_test::run_graph(b, {{"data", xv}}, /*share_storage=*/true);
  ASSERT_EQ(got.size(), 2u);
  expect_close(got[0], want[0], 1e-4);
  expect_close(got[1], want[1], 1e-4);

  BuildOptions off;
  off.winograd = false;
  Built d = build(f, "llvm", {}, off);
  EXPECT_EQ(count_op(d.optimized, "nn.contrib_conv2d_winograd_NCHWc"), 0);
  EXPECT_EQ(count_op(d.optimized, "nn.contrib_conv2d_NCHWc"), 5);
  auto direct = relay_test::run_graph(d, {{"data", xv}});
  expect_close(direct[1], want[1], 1e-4);

  BuildOptions tasks;
  tasks.workloads_only = true;
  EXPECT_EQ(count_op(build(f, "llvm", {}, tasks).optimized, "nn.contrib_conv2d_winograd_NCHWc"), 0);

  // 7x7 maps (ResNet's last stage): F(2, 3) from 64 input channels on AMD's cores (direct on
  // Intel's), direct from 32.
  auto x7 = var("data7", T({1, 64, 7, 7}));
  auto a7 = nn::relu(c3(x7, 64, 32, 1, 8));  // 64 in: F(2, 3) on AMD
  auto b7 = c3(a7, 32, 32, 1, 9);            // 32 in: direct
  Function f7({x7}, b7);
  Built b7b = build(f7, "llvm");
  std::vector<int64_t> tiles7;
  for (auto& e : post_order(b7b.optimized.body))
    if (e->is_call("nn.contrib_conv2d_winograd_NCHWc"))
      tiles7.push_back(e->attrs.at("tile_size").get<int64_t>());
  const bool amd = topi::cpu::host_cpu_is_amd();
  EXPECT_EQ(tiles7, amd ? std::vector<int64_t>{2} : std::vector<int64_t>{}) << b7b.optimized;
  EXPECT_EQ(count_op(b7b.optimized, "nn.contrib_conv2d_NCHWc"), amd ? 1 : 2);
  EXPECT_EQ(topi::cpu::winograd_nchwc_conv_tile(7, 7, 512, 512), amd ? 2 : 0);
  EXPECT_EQ(topi::cpu::winograd_nchwc_conv_tile(14, 14, 256, 256), 2);
  EXPECT_EQ(topi::cpu::winograd_nchwc_conv_tile(7, 7, 32, 32), 0);
  auto x7v = relay::testing::random_uniform({1, 64, 7, 7}, -1, 1, 10);
  expect_close(relay_test::run_graph(b7b, {{"data7", x7v}})[0],
               reference_run(f7, {{"data7", x7v}})[0], 1e-4);
}
