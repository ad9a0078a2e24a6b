// Graph passes: one before/after test each, values checked with the reference executor.
#include <gtest/gtest.h>

#include <set>

#include "minitvm/relay/relay.h"
#include "relay/relay_test_util.h"

using namespace minitvm;
using namespace minitvm::relay;

namespace {

using relay_test::T;

using relay_test::count_op;

void expect_close(const runtime::NDArray& a, const runtime::NDArray& b, double tol) {
  auto x = a.to_vector<float>(), y = b.to_vector<float>();
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_NEAR(x[i], y[i], tol * (1 + std::abs(y[i]))) << "at " << i;
}

// conv -> bn -> relu with random params.
struct ConvBN {
  Function f;
  Params params;
  runtime::NDArray input;
};
ConvBN conv_bn(bool center = true, bool scale = true) {
  auto x = var("data", T({1, 3, 8, 8}));
  auto w = var("w", T({4, 3, 3, 3}));
  auto g = var("g", T({4})), b = var("b", T({4})), m = var("m", T({4})), v = var("v", T({4}));
  auto y = nn::relu(tuple_get_item(
      nn::batch_norm(nn::conv2d(x, w, {.padding = {1}}), g, b, m, v, 1, 1e-3, center, scale), 0));
  ConvBN r;
  r.f = Function({x, w, g, b, m, v}, y);
  r.params = {{"w", relay::testing::random_uniform({4, 3, 3, 3}, -1, 1, 1)},
              {"g", relay::testing::random_uniform({4}, 0.5, 2, 2)},
              {"b", relay::testing::random_uniform({4}, -1, 1, 3)},
              {"m", relay::testing::random_uniform({4}, -1, 1, 4)},
              {"v", relay::testing::random_uniform({4}, 0.5, 2, 5)}};
  r.input = relay::testing::random_uniform({1, 3, 8, 8}, -1, 1, 6);
  return r;
}

}  // namespace

TEST(RelayPasses, BindParams) {
  auto c = conv_bn();
  Function g = transform::bind_params(c.f, c.params);
  ASSERT_EQ(g.params.size(), 1u);
  EXPECT_EQ(g.params[0]->name, "data");
  expect_close(reference_run(g, {{"data", c.input}})[0],
               reference_run(c.f, {{"data", c.input}}, c.params)[0], 1e-6);
  try {
    transform::bind_params(c.f, {{"w", relay::testing::random_uniform({4, 3, 1, 1}, 0, 1, 0)}});
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "param 'w' is Tensor[(4, 3, 1, 1), float32] but the function's %w is "
                  "Tensor[(4, 3, 3, 3), float32]"),
              std::string::npos)
        << e.what();
  }
}

TEST(RelayPasses, SimplifyInferenceRemovesBatchNormAndDropout) {
  for (bool center : {true, false})
    for (bool scale : {true, false}) {
      auto c = conv_bn(center, scale);
      Function g = transform::simplify_inference(c.f);
      EXPECT_EQ(count_op(g, "nn.batch_norm"), 0);
      EXPECT_EQ(count_op(g, "multiply"),
                scale ? 3 : 2);  // x * scale, -mean * scale, (1/sqrt) * gamma
      EXPECT_EQ(count_op(g, "expand_dims"), 2);
      expect_close(reference_run(g, {{"data", c.input}}, c.params)[0],
                   reference_run(c.f, {{"data", c.input}}, c.params)[0], 1e-5);
    }
  auto x = var("x", T({2, 3}));
  Function d({x}, nn::relu(nn::dropout(x, 0.3)));
  Function e = transform::simplify_inference(d);
  EXPECT_EQ(count_op(e, "nn.dropout"), 0);
  EXPECT_EQ(post_order(e.body).size(), 2u);  // x, relu
  // Nothing to do: the same function back.
  EXPECT_EQ(transform::simplify_inference(e).body, e.body);
}

TEST(RelayPasses, FoldConstant) {
  auto c = conv_bn();
  Function g = transform::fold_constant(
      transform::simplify_inference(transform::bind_params(c.f, c.params)));
  // Only data-dependent calls remain: conv, multiply, add, relu.
  std::multiset<std::string> ops;
  for (auto& e : post_order(g.body))
    if (e->kind == ExprKind::Call) ops.insert(e->name);
  EXPECT_EQ(ops, (std::multiset<std::string>{"nn.conv2d", "multiply", "add", "nn.relu"}));
  expect_close(reference_run(g, {{"data", c.input}})[0],
               reference_run(c.f, {{"data", c.input}}, c.params)[0], 1e-5);
  // TupleGetItem of a Tuple is projected.
  auto x = var("x", T({2}));
  Function t({x}, nn::relu(tuple_get_item(tuple({x, nn::relu(x)}), 0)));
  Function u = transform::fold_constant(t);
  EXPECT_EQ(u.body->args[0], x);
}

TEST(RelayPasses, EliminateCommonSubexprSharesEqualCalls) {
  // torch's chunk(2) as ONNX Slices imports as two equal splits, each projecting one half.
  auto x = var("x", T({1, 8, 3, 3}));
  Expr lo = tuple_get_item(split_at(x, {4}, 1), 0);
  Expr hi = tuple_get_item(split_at(x, {4}, 1), 1);
  Expr other = tuple_get_item(split_at(x, {2}, 1), 0);  // other attributes: stays apart
  Expr y = concatenate({nn::relu(lo), hi, nn::relu(lo), other, nn::relu(hi)}, 1);
  Function f({x}, y);
  EXPECT_EQ(count_op(f, "split"), 3);
  EXPECT_EQ(count_op(f, "nn.relu"), 3);
  Function g = transform::eliminate_common_subexpr(f);
  EXPECT_EQ(count_op(g, "split"), 2);
  EXPECT_EQ(count_op(g, "nn.relu"), 2);  // relu(lo) twice -> once; relu(hi) is another value
  // Both halves now project the same split node.
  const auto& fields = g.body->args;
  ASSERT_EQ(fields.size(), 5u);
  EXPECT_EQ(fields[0], fields[2]);
  EXPECT_EQ(fields[1]->args[0], fields[0]->args[0]->args[0]);
  EXPECT_NE(fields[3]->args[0], fields[1]->args[0]);
  auto in = relay::testing::random_uniform({1, 8, 3, 3}, -1, 1, 7);
  expect_close(reference_run(g, {{"x", in}})[0], reference_run(f, {{"x", in}})[0], 0);
  // Nothing to do: the same function back.
  EXPECT_EQ(transform::eliminate_common_subexpr(g).body, g.body);
}

// An ONNX MatMul of a 3-D input (reshape -> dense -> reshape) with its bias and an exact GELU
// after the reshape, then the next MatMul's reshape back: the bias, GELU and scalar ops move
// before the reshape (the bias given as (N)) and both reshapes cancel. What must stay: a reshape
// that changes the last axis, a broadcast of a graph tensor, a bias over another axis.
TEST(RelayPasses, SinkReshapeMovesElementwiseOpsBeforeAReshapeKeepingTheLastAxis) {
  auto cst = [](std::vector<int64_t> s, uint64_t seed) {
    return constant(relay::testing::random_uniform(s, -1, 1, seed));
  };
  auto x = var("x", T({1, 5, 8}));
  Expr d = nn::dense(reshape(x, {5, 8}), cst({6, 8}, 1));
  Expr r = add(reshape(d, {1, 5, 6}), cst({6}, 2));
  Expr gelu =
      multiply(multiply(r, add(erf(divide(r, scalar(1.4142135))), scalar(1.0))), scalar(0.5));
  Expr y = nn::dense(reshape(gelu, {5, 6}), cst({4, 6}, 3));
  Function f({x}, y);
  Function g = transform::fold_constant(transform::sink_reshape(f));
  EXPECT_EQ(count_op(g, "reshape"), 1);  // the input's only
  EXPECT_EQ(g.body->args[0]->name, "multiply");
  EXPECT_EQ(g.body->args[0]->types[0].shape, (std::vector<int64_t>{5, 6}));
  auto in = relay::testing::random_uniform({1, 5, 8}, -1, 1, 4);
  expect_close(reference_run(g, {{"x", in}})[0], reference_run(f, {{"x", in}})[0], 1e-6);
  EXPECT_EQ(transform::sink_reshape(g).body, g.body);

  // Stays: a reshape that changes the last axis; a graph tensor's broadcast; a bias (5, 1) over
  // the rows.
  auto z = var("z", T({1, 1, 6}));
  Expr k1 = add(reshape(d, {1, 6, 5}), cst({5}, 5));
  Expr k2 = add(reshape(d, {1, 5, 6}), z);
  Expr k3 = add(reshape(d, {1, 5, 6}), cst({5, 1}, 6));
  Function h({x, z}, tuple({k1, k2, k3}));
  Function hs = transform::sink_reshape(h);
  EXPECT_EQ(count_op(hs, "add"), 3);
  for (const Expr& field : hs.body->args) EXPECT_EQ(field->name, "add");
  auto zin = relay::testing::random_uniform({1, 1, 6}, -1, 1, 8);
  auto ro = reference_run(hs, {{"x", in}, {"z", zin}}),
       rf = reference_run(h, {{"x", in}, {"z", zin}});
  for (size_t i = 0; i < 3; ++i) expect_close(ro[i], rf[i], 0);
}

TEST(RelayPasses, FoldScaleAxisIntoConvWeights) {
  auto c = conv_bn();
  Function g = transform::fold_constant(
      transform::simplify_inference(transform::bind_params(c.f, c.params)));
  Function h = transform::fold_constant(transform::fold_scale_axis(g));
  EXPECT_EQ(count_op(h, "multiply"), 0);
  EXPECT_EQ(count_op(h, "add"), 1);
  // The new weight is W[o] * gamma[o] / sqrt(var[o] + eps).
  const ExprNode* conv = nullptr;
  for (auto& e : post_order(h.body))
    if (e->is_call("nn.conv2d")) conv = e.get();
  ASSERT_TRUE(conv && conv->args[1]->kind == ExprKind::Constant);
  auto w = conv->args[1]->data.to_vector<float>(), w0 = c.params["w"].to_vector<float>();
  auto gam = c.params["g"].to_vector<float>(), var_ = c.params["v"].to_vector<float>();
  for (size_t i = 0; i < w.size(); ++i) {
    size_t o = i / 27;
    EXPECT_NEAR(w[i], w0[i] * gam[o] / std::sqrt(var_[o] + 1e-3), 1e-5);
  }
  expect_close(reference_run(h, {{"data", c.input}})[0],
               reference_run(c.f, {{"data", c.input}}, c.params)[0], 1e-5);
  // A conv used twice is not folded.
  auto x = var("x", T({1, 2, 4, 4}));
  auto cv = nn::conv2d(x, constant(relay::testing::random_uniform({2, 2, 1, 1}, -1, 1, 9)));
  Function two({x},
               add(multiply(cv, constant(relay::testing::random_uniform({2, 1, 1}, 1, 2, 8))), cv));
  EXPECT_EQ(transform::fold_scale_axis(two).body, two.body);
}

// A grouped convolution (ResNeXt, ShuffleNet, RegNet): output channel o reads weight[o] only, so a
// per-channel scale after it folds into the weight as for groups 1; the folded graph computes what
// the unfolded one does (reference executor).
TEST(RelayPasses, FoldScaleAxisIntoGroupedConvWeights) {
  for (int64_t groups : {2, 4}) {
    SCOPED_TRACE("groups " + std::to_string(groups));
    auto x = var("x", T({1, 8, 5, 5}));
    Conv2DAttrs a;
    a.groups = groups;
    a.padding = {1, 1};
    auto w = relay::testing::random_uniform({12, 8 / groups, 3, 3}, -1, 1, 21);
    auto scale = relay::testing::random_uniform({12, 1, 1}, 0.5f, 2, 22);
    Function f({x}, nn::relu(multiply(nn::conv2d(x, constant(w), a), constant(scale))));
    Function h = transform::fold_constant(transform::fold_scale_axis(f));
    EXPECT_EQ(count_op(h, "multiply"), 0);
    const ExprNode* conv = nullptr;
    for (auto& e : post_order(h.body))
      if (e->is_call("nn.conv2d")) conv = e.get();
    ASSERT_TRUE(conv && conv->args[1]->kind == ExprKind::Constant);
    auto wf = conv->args[1]->data.to_vector<float>(), w0 = w.to_vector<float>();
    auto sv = scale.to_vector<float>();
    const size_t per_o = static_cast<size_t>(8 / groups * 9);
    for (size_t i = 0; i < wf.size(); ++i) EXPECT_NEAR(wf[i], w0[i] * sv[i / per_o], 1e-6);
    auto in = relay::testing::random_uniform({1, 8, 5, 5}, -1, 1, 23);
    expect_close(reference_run(h, {{"x", in}})[0], reference_run(f, {{"x", in}})[0], 1e-5);
  }
}

// Atrous convolutions whose dilation reaches past the map (DeepLabV3's ASPP at rates 24 and 36 on
// 14x14): the kernel rows and columns that read only padding are cut from the weight, the padding
// shrinks by as many dilation steps, and the result is what the uncut conv computes (reference
// executor). A conv whose every tap reads the input somewhere is left alone.
TEST(RelayPasses, DropPaddingTapsCutsKernelRowsThatReadOnlyPadding) {
  struct Cut {
    std::vector<int64_t> data, weight, strides, padding, dilation;
    int64_t groups;
    std::vector<int64_t> kernel, new_padding;  // empty kernel: unchanged
  };
  std::vector<Cut> cuts = {
      // rate 24 on 14x14: only the centre tap reads the input: a 1x1 conv without padding
      {{1, 8, 14, 14}, {4, 8, 3, 3}, {1, 1}, {24, 24, 24, 24}, {24, 24}, 1, {1, 1}, {0, 0, 0, 0}},
      // rows cut, columns kept (a 9-wide map), grouped
      {{1, 4, 5, 9}, {4, 2, 3, 3}, {1, 1}, {6, 3, 6, 3}, {6, 3}, 2, {1, 3}, {0, 3, 0, 3}},
      // asymmetric padding: the first rows of a 5x1 kernel read only the top padding
      {{1, 3, 4, 4}, {2, 3, 5, 1}, {1, 1}, {8, 0, 0, 0}, {2, 1}, 1, {2, 1}, {2, 0, 0, 0}},
      // rate 12 on 14x14: every tap reads the input for some output: unchanged
      {{1, 4, 14, 14}, {4, 4, 3, 3}, {1, 1}, {12, 12, 12, 12}, {12, 12}, 1, {}, {}},
  };
  for (size_t i = 0; i < cuts.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Cut& c = cuts[i];
    auto x = var("x", T(c.data));
    Conv2DAttrs a;
    a.strides = c.strides;
    a.padding = c.padding;
    a.dilation = c.dilation;
    a.groups = c.groups;
    auto w = relay::testing::random_uniform(c.weight, -1, 1, 31 + i);
    Function f({x}, nn::relu(nn::conv2d(x, constant(w), a)));
    Function h = transform::fold_constant(transform::drop_padding_taps(f));
    if (c.kernel.empty()) {
      EXPECT_EQ(transform::drop_padding_taps(f).body, f.body);
      continue;
    }
    const ExprNode* conv = nullptr;
    for (auto& e : post_order(h.body))
      if (e->is_call("nn.conv2d")) conv = e.get();
    ASSERT_TRUE(conv && conv->args[1]->kind == ExprKind::Constant);
    const auto& ws = conv->args[1]->types[0].shape;
    EXPECT_EQ(std::vector<int64_t>(ws.begin() + 2, ws.end()), c.kernel);
    EXPECT_EQ(conv->attrs["padding"].get<std::vector<int64_t>>(), c.new_padding);
    auto in = relay::testing::random_uniform(c.data, -1, 1, 41 + i);
    expect_close(reference_run(h, {{"x", in}})[0], reference_run(f, {{"x", in}})[0], 1e-5);
  }
}

TEST(RelayPasses, FuseOpsResidualBlock) {
  // conv+bias+relu, conv+multiply+add (BN), residual add, relu, then max_pool, flatten, dense.
  auto x = var("data", T({1, 8, 8, 8}));
  auto cst = [](std::vector<int64_t> s, uint64_t seed) {
    return constant(relay::testing::random_uniform(s, -1, 1, seed));
  };
  auto y = nn::relu(add(nn::conv2d(x, cst({8, 8, 3, 3}, 1), {.padding = {1}}), cst({8, 1, 1}, 2)));
  auto z = add(multiply(nn::conv2d(y, cst({8, 8, 3, 3}, 3), {.padding = {1}}), cst({8, 1, 1}, 4)),
               cst({8, 1, 1}, 5));
  auto r = nn::relu(add(z, x));
  auto p = nn::max_pool2d(r, {.pool_size = {2, 2}, .strides = {2, 2}});
  auto d = nn::bias_add(nn::dense(nn::batch_flatten(p), cst({10, 128}, 6)), cst({10}, 7));
  Function f({x}, nn::softmax(d));
  auto fg = transform::fuse_ops(f);
  std::vector<std::string> names;
  for (auto& g : fg.groups) names.push_back(g.func_name);
  EXPECT_EQ(names, (std::vector<std::string>{"fused_nn_conv2d_add_nn_relu",
                                             "fused_nn_conv2d_multiply_add_add_nn_relu",
                                             "fused_nn_max_pool2d", "fused_nn_batch_flatten",
                                             "fused_nn_dense_nn_bias_add", "fused_nn_softmax"}));
  // Inputs of the residual group: the first group's output, its weight, scale, shift, and data.
  EXPECT_EQ(fg.groups[1].inputs.size(), 5u);
  EXPECT_EQ(fg.groups[1].master->name, "nn.conv2d");
  // opt level 0: one group per op.
  EXPECT_EQ(transform::fuse_ops(f, 0).groups.size(), 13u);
}

TEST(RelayPasses, FuseOpsNamesRepeatedAndDistinctFunctions) {
  auto x = var("data", T({1, 4, 8, 8}));
  auto w = [](int64_t o, int64_t i, uint64_t s) {
    return constant(relay::testing::random_uniform({o, i, 3, 3}, -1, 1, s));
  };
  auto a = nn::relu(nn::conv2d(x, w(4, 4, 1), {.padding = {1}}));
  auto b =
      nn::relu(nn::conv2d(a, w(4, 4, 2), {.padding = {1}}));  // same structure as a: same function
  auto c = nn::relu(nn::conv2d(b, w(8, 4, 3), {.padding = {1}}));  // different shape: _1
  Function f({x}, c);
  auto fg = transform::fuse_ops(f);
  ASSERT_EQ(fg.groups.size(), 3u);
  EXPECT_EQ(fg.groups[0].func_name, "fused_nn_conv2d_nn_relu");
  EXPECT_EQ(fg.groups[1].func_name, "fused_nn_conv2d_nn_relu");
  EXPECT_EQ(fg.groups[2].func_name, "fused_nn_conv2d_nn_relu_1");
  // Graph JSON node names: func_name, then func_name + "1".
  Built b2 =
      build(f, "llvm", {}, {.opt_level = 2, .workloads_only = true});  // level 3 alters the layout
  EXPECT_NE(b2.graph_json.find("\"name\": \"fused_nn_conv2d_nn_relu1\""), std::string::npos)
      << b2.graph_json;
  EXPECT_NE(b2.graph_json.find("\"name\": \"fused_nn_conv2d_nn_relu_1\""), std::string::npos);
}

TEST(RelayPasses, PlanMemorySharesStorageOfDeadValues) {
  // A chain of 4 opaque (softmax) kernels: storages alternate (an output never shares with its
  // input).
  auto x = var("x", T({4, 256}));
  Expr e = x;
  for (int i = 0; i < 4; ++i) e = nn::softmax(e);
  Function f({x}, e);
  auto fg = transform::fuse_ops(f);
  ASSERT_EQ(fg.groups.size(), 4u);
  auto plan = transform::plan_memory(fg);
  std::vector<int> sid;
  for (auto& g : fg.groups) sid.push_back(plan.storage_ids.at(g.root.get())[0]);
  int in = plan.storage_ids.at(x.get())[0];
  EXPECT_EQ(sid[0], sid[2]);
  EXPECT_EQ(sid[1], sid[3]);
  EXPECT_NE(sid[0], sid[1]);
  EXPECT_NE(sid[0], in);
  EXPECT_EQ(plan.intermediate_bytes, 4 * 4 * 256 * 4);
  EXPECT_EQ(plan.planned_bytes, 2 * 4 * 256 * 4);
  EXPECT_EQ(plan.param_bytes, 4 * 256 * 4);
}
