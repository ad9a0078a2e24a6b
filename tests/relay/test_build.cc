// relay::build end to end: compiled graphs run through the graph JSON against the reference
// executor.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/target.h"
#include "minitvm/relay/relay.h"
#include "minitvm/topi/dispatch.h"
#include "relay/graph_runner.h"
#include "relay/relay_test_util.h"

using namespace minitvm;
using namespace minitvm::relay;

namespace {

using relay_test::T;

using relay_test::expect_close;

void check_network(const relay::testing::Network& net, const std::string& target, int64_t hw,
                   double tol) {
  auto input = relay::testing::random_uniform({1, 3, hw, hw}, -1, 1, 77);
  Built b = build(net.mod, target, net.params);
  auto want = reference_run(net.mod, {{"data", input}}, net.params);
  // Every entry in its own array, then the planned storage sharing (a bad plan corrupts values).
  for (bool share : {false, true}) {
    auto got = relay_test::run_graph(b, {{"data", input}}, share);
    ASSERT_EQ(got.size(), 1u);
    expect_close(got[0], want[0], tol);
  }
  EXPECT_LT(b.memory.planned_bytes, b.memory.intermediate_bytes / 2);
}

}  // namespace

TEST(RelayBuild, SmallGraphLlvmEveryOp) {
  auto x = var("data", T({1, 4, 9, 9}));
  auto c = [](std::vector<int64_t> s, uint64_t seed) {
    return constant(relay::testing::random_uniform(s, -1, 1, seed));
  };
  auto y = nn::conv2d(x, c({8, 4, 3, 3}, 1), {.strides = {2, 2}, .padding = {1, 0, 2, 1}});
  y = clip(add(y, c({8, 1, 1}, 2)), -0.5, 2.0);
  auto dw = nn::conv2d(y, c({8, 1, 3, 3}, 3), {.padding = {1}, .groups = 8});
  auto cat = concatenate({sigmoid(dw), nn::relu(y)}, 1);
  auto p = nn::avg_pool2d(
      cat, {.pool_size = {3, 3}, .strides = {2, 2}, .padding = {1}, .ceil_mode = true});
  auto q = nn::max_pool2d(nn::pad(p, {{0, 0}, {0, 0}, {1, 0}, {0, 1}}),
                          {.pool_size = {2, 2}, .strides = {1, 1}});
  auto m = mean(q, {2, 3}, true);
  auto t = transpose(reshape(m, {1, 4, 4}), {0, 2, 1});
  auto parts = split(squeeze(expand_dims(t, 0), {0}), 2, 2);
  auto f = nn::batch_flatten(
      multiply(tuple_get_item(parts, 0), subtract(tuple_get_item(parts, 1), scalar(0.25))));
  auto out = nn::softmax(nn::bias_add(nn::dense(f, c({5, 8}, 4)), c({5}, 5)));
  Function fn({x}, tuple({out, divide(nn::global_avg_pool2d(p), scalar(2.0))}));
  auto input = relay::testing::random_uniform({1, 4, 9, 9}, -1, 1, 9);
  relay_test::expect_llvm_matches_reference(fn, {{"data", input}}, 1e-5);
}

// nn.softmax on llvm, against the reference executor: over the last axis of 1-D (it ran into the
// row schedule and failed), 2-D rows shorter than two vectors, ViT's 4-D 197-wide attention rows
// (max and sum in vector partials), and over a middle axis.
TEST(RelayBuild, SoftmaxOverEveryAxisKindLlvm) {
  struct Case {
    std::vector<int64_t> shape;
    int axis;
  };
  uint64_t seed = 30;
  for (Case c : std::vector<Case>{{{77}, 0}, {{3, 20}, 1}, {{1, 2, 5, 197}, 3}, {{2, 33, 4}, 1}}) {
    SCOPED_TRACE(std::to_string(c.shape.size()) + "-D, axis " + std::to_string(c.axis));
    auto x = var("data", T(c.shape));
    Function fn({x}, nn::softmax(multiply(x, scalar(8.0)), c.axis));
    auto input = relay::testing::random_uniform(c.shape, -4, 4, seed++);
    relay_test::expect_llvm_matches_reference(fn, {{"data", input}}, 1e-5);
  }
}

// sum / mean / max / min over the last axis alone run as vector partials on llvm (LayerNorm's
// means): rows shorter than two vectors, ViT's 768, rows with a tail, keepdims or not, the axis
// given as -1, fused with an elementwise producer and consumer; against the reference executor.
// A reduction over another axis takes the generic path, as before.
TEST(RelayBuild, LastAxisReductionsInVectorPartialsLlvm) {
  struct Case {
    std::vector<int64_t> shape;
    std::vector<int64_t> axes;
    bool keep;
  };
  uint64_t seed = 40;
  for (const std::string op : {"mean", "sum", "max", "min"})
    for (Case c : std::vector<Case>{{{3, 20}, {1}, false},
                                    {{1, 7, 768}, {2}, true},
                                    {{2, 3, 197}, {-1}, false},
                                    {{4, 70}, {1}, true},
                                    {{5, 40, 3}, {1}, true}}) {
      SCOPED_TRACE(op + " of a " + std::to_string(c.shape.size()) + "-D row of " +
                   std::to_string(c.shape.back()) + (c.keep ? ", keepdims" : ""));
      auto x = var("data", T(c.shape));
      relay::Expr in = multiply(x, x);
      relay::Expr red = op == "mean" ? mean(in, c.axes, c.keep) : reduce(op, in, c.axes, c.keep);
      Function fn({x}, add(red, scalar(0.5)));
      auto input = relay::testing::random_uniform(c.shape, -3, 3, seed++);
      relay_test::expect_llvm_matches_reference(fn, {{"data", input}}, 1e-5);
    }
}

// Pools on blocked layouts of one, two and four vectors (NCHW16c, NCHW32c as Intel's fallback
// blocks give, NCHW64c): the simple schedule vectorises the block (it ran scalar for 32- and
// 64-blocks, 0.95 ms instead of 0.09 for ResNet-50's max pool); values as the reference's.
TEST(RelayBuild, BlockedPoolsOfWideBlocksLlvm) {
  for (int64_t blk : {16, 32, 64}) {
    SCOPED_TRACE("block " + std::to_string(blk));
    const std::string layout = "NCHW" + std::to_string(blk) + "c";
    auto x = var("data", T({1, 2, 11, 11, blk}));
    auto m = nn::max_pool2d(
        x, {.pool_size = {3, 3}, .strides = {2, 2}, .padding = {1}, .layout = layout});
    auto a =
        nn::avg_pool2d(nn::relu(m), {.pool_size = {2, 2}, .strides = {1, 1}, .layout = layout});
    Function fn({x}, tuple({m, a}));
    auto input = relay::testing::random_uniform({1, 2, 11, 11, blk}, -1, 1, 21);
    Built b = build(fn, "llvm");
    // The block is the vector: every pool kernel reads and writes <blk x float> values.
    const std::string ll = b.lib.get_source("ll");
    EXPECT_NE(ll.find("<" + std::to_string(blk) + " x float>"), std::string::npos);
    auto got = relay_test::run_graph(b, {{"data", input}});
    auto want = reference_run(fn, {{"data", input}});
    ASSERT_EQ(got.size(), 2u);
    expect_close(got[0], want[0], 1e-6);
    expect_close(got[1], want[1], 1e-6);
  }
}

// NCHW pools (a pool after a concat of differently blocked branches, as in GoogLeNet) and the
// outputs of a split (ShuffleNet): parallel rows with the width as the vector, after the window's
// reduction (they ran one scalar per parallel iteration); values as the reference's, with
// padding, ceil mode and excluded padding counts at the edges.
TEST(RelayBuild, NchwPoolsAndSplitsAreVectorizedLlvm) {
  auto x = var("data", T({1, 6, 14, 28}));
  auto m = nn::max_pool2d(x, {.pool_size = {3, 3}, .strides = {1, 1}, .padding = {1}});
  auto a = nn::avg_pool2d(x, {.pool_size = {3, 3},
                              .strides = {2, 2},
                              .padding = {1},
                              .ceil_mode = true,
                              .count_include_pad = false});
  auto parts = split(nn::relu(x), 2, 1);
  Function fn({x}, tuple({m, a, tuple_get_item(parts, 0), tuple_get_item(parts, 1)}));
  auto input = relay::testing::random_uniform({1, 6, 14, 28}, -1, 1, 23);
  Built b = build(fn, "llvm");
  const std::string ll = b.lib.get_source("ll");
  EXPECT_NE(ll.find("<14 x float>"), std::string::npos);
  auto got = relay_test::run_graph(b, {{"data", input}});
  auto want = reference_run(fn, {{"data", input}});
  ASSERT_EQ(got.size(), 4u);
  for (size_t i = 0; i < 4; ++i) expect_close(got[i], want[i], 1e-6);
}

// Two 3x3 convolutions over several input-channel blocks on a map larger than their weights:
// the blocked template runs them in blocks of output rows with the input-channel chunks outermost
// (conv2d_nchwc_row_block), the epilogues (bias + relu, then bias + the residual add) fused into
// the blocked kernels, 26 rows in blocks of 2 and a strided layer of 13 rows in whole rows.
TEST(RelayBuild, RowBlockedConvolutionsWithFusedEpiloguesLlvm) {
  auto x = var("data", T({1, 64, 26, 30}));
  auto c = [](std::vector<int64_t> s, uint64_t seed) {
    return constant(relay::testing::random_uniform(s, -0.2, 0.2, seed));
  };
  auto y =
      nn::relu(nn::bias_add(nn::conv2d(x, c({64, 64, 3, 3}, 1), {.padding = {1}}), c({64}, 2)));
  auto z = add(nn::bias_add(nn::conv2d(y, c({64, 64, 3, 3}, 3), {.padding = {1}}), c({64}, 4)), x);
  auto s = nn::conv2d(z, c({32, 64, 3, 3}, 5), {.strides = {2, 2}, .padding = {1}});
  Function fn({x}, tuple({z, s}));
  auto input = relay::testing::random_uniform({1, 64, 26, 30}, -1, 1, 25);
  relay_test::expect_llvm_matches_reference(fn, {{"data", input}}, 1e-4);
}

TEST(RelayBuild, GraphJsonFormat) {
  auto x = var("data", T({1, 3, 8, 8}));
  auto w = constant(relay::testing::random_uniform({4, 3, 3, 3}, -1, 1, 1));
  Function fn({x}, nn::relu(nn::conv2d(x, w, {.padding = {1}})));
  Built b = build(fn, "llvm", {}, {.opt_level = 2});  // NCHW: no alter_op_layout (level 3)
  auto j = nlohmann::json::parse(b.graph_json);
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  // nlohmann sorts keys; check presence and contents rather than order.
  EXPECT_EQ(keys.size(), 5u);
  EXPECT_EQ(j["nodes"][0],
            nlohmann::json::parse(R"({"op": "null", "name": "data", "inputs": []})"));
  EXPECT_EQ(j["nodes"][1], nlohmann::json::parse(R"({"op": "null", "name": "p0", "inputs": []})"));
  EXPECT_EQ(j["nodes"][2]["attrs"],
            nlohmann::json::parse(R"({"func_name": "fused_nn_conv2d_nn_relu",
      "flatten_data": "0", "num_inputs": "2", "num_outputs": "1", "ops": "nn.conv2d,nn.relu",
      "op_type": "nn.conv2d"})"));  // ops/op_type: for the profiler's op-type table
  EXPECT_EQ(j["nodes"][2]["inputs"], nlohmann::json::parse("[[0, 0, 0], [1, 0, 0]]"));
  EXPECT_EQ(j["arg_nodes"], nlohmann::json::parse("[0, 1]"));
  EXPECT_EQ(j["heads"], nlohmann::json::parse("[[2, 0, 0]]"));
  EXPECT_EQ(j["attrs"]["shape"],
            nlohmann::json::parse(R"(["list_shape", [[1, 3, 8, 8], [4, 3, 3, 3], [1, 4, 8, 8]]])"));
  EXPECT_EQ(j["attrs"]["dltype"],
            nlohmann::json::parse(R"(["list_str", ["float32", "float32", "float32"]])"));
  EXPECT_EQ(j["attrs"]["storage_id"], nlohmann::json::parse(R"(["list_int", [0, 1, 2]])"));
  EXPECT_EQ(j["node_row_ptr"], nlohmann::json::parse("[0, 1, 2, 3]"));
  ASSERT_EQ(b.params.size(), 1u);
  EXPECT_EQ(b.params.at("p0").shape(), (std::vector<int64_t>{4, 3, 3, 3}));
}

TEST(RelayBuild, ResNet18Llvm) {
  auto net = relay::testing::resnet(18, 1, {3, 32, 32}, 10, 3);
  check_network(net, "llvm", 32, 1e-4);
}

TEST(RelayBuild, MobileNetV2Llvm) {
  auto net = relay::testing::mobilenet_v2(1, {3, 32, 32}, 10, 4);
  check_network(net, "llvm", 32, 1e-4);
}

namespace {

// conv+BN+relu, max_pool, depthwise+BN+relu6, 1x1 conv + residual, global pool, dense+bias,
// softmax.
Function small_cnn(Params& params) {
  auto x = var("data", T({1, 8, 12, 12}));
  std::vector<relay::Expr> ps{x};
  uint64_t seed = 100;
  auto p = [&](const std::string& n, std::vector<int64_t> s, float lo, float hi) {
    auto v = var(n, T(s));
    params[n] = relay::testing::random_uniform(s, lo, hi, seed++);
    ps.push_back(v);
    return v;
  };
  auto bn = [&](const relay::Expr& e, const std::string& n) {
    int64_t c = e->type().shape[1];
    return tuple_get_item(nn::batch_norm(e, p(n + ".g", {c}, 0.5, 1.5), p(n + ".b", {c}, -0.5, 0.5),
                                         p(n + ".m", {c}, -0.5, 0.5), p(n + ".v", {c}, 0.5, 1.5)),
                          0);
  };
  auto y = nn::relu(bn(nn::conv2d(x, p("w1", {16, 8, 3, 3}, -0.3, 0.3), {.padding = {1}}), "bn1"));
  y = nn::max_pool2d(y, {.pool_size = {2, 2}, .strides = {2, 2}});
  auto z = clip(
      bn(nn::conv2d(y, p("w2", {16, 1, 3, 3}, -0.5, 0.5), {.padding = {1}, .groups = 16}), "bn2"),
      0, 6);
  z = nn::relu(add(nn::conv2d(z, p("w3", {16, 16, 1, 1}, -0.3, 0.3)), y));
  auto d = nn::bias_add(
      nn::dense(nn::batch_flatten(nn::global_avg_pool2d(z)), p("fc", {10, 16}, -0.5, 0.5)),
      p("fc.b", {10}, -0.5, 0.5));
  return Function(ps, nn::softmax(d));
}

}  // namespace

TEST(RelayBuild, SmallCnnCudaEmulate) {
  Params params;
  Function f = small_cnn(params);
  auto input = relay::testing::random_uniform({1, 8, 12, 12}, -1, 1, 5);
  Built b = build(f, "cuda -emulate", params);
  auto got = relay_test::run_graph(b, {{"data", input}});
  expect_close(got[0], reference_run(f, {{"data", input}}, params)[0], 1e-5);
  std::string r = b.report();
  // conv2d (3x3 and 1x1) and depthwise took the CUDA templates (fallback configs: no log in scope).
  EXPECT_NE(r.find("fused_nn_conv2d_add_nn_relu"), std::string::npos) << r;
  EXPECT_NE(r.find("2 conv2d layers, 2 workloads: 0 from log, 2 fallback"), std::string::npos) << r;
  EXPECT_NE(r.find("1 depthwise_conv2d layers, 1 workloads: 0 from log, 1 fallback"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("1 dense layers, 1 workloads: 0 from log, 1 fallback"), std::string::npos) << r;
}

TEST(RelayBuild, PrintAfterEachPassAndReport) {
  Params params;
  Function f = small_cnn(params);
  std::ostringstream os;
  Built b = build(f, "llvm", params, {.print_after_each_pass = &os});
  std::string s = os.str();
  for (const char* pass :
       {"// ---- after bind_params ----", "// ---- after simplify_inference ----",
        "// ---- after fold_constant ----", "// ---- after fold_scale_axis ----",
        "// ---- after alter_op_layout ----", "// ---- after fuse_ops ----"})
    EXPECT_NE(s.find(pass), std::string::npos) << pass;
  // BN folded into the conv weights, the convs blocked (llvm, level 3): the conv groups are conv +
  // add (+ add) + relu on NCHW[x]c.
  EXPECT_NE(s.find("fused_nn_contrib_conv2d_NCHWc_add_nn_relu("), std::string::npos) << s;
  EXPECT_NE(s.find("fused_nn_contrib_conv2d_NCHWc_add_nn_relu_1("), std::string::npos)
      << s;  // 1x1 + residual
  EXPECT_NE(s.find("fused_nn_contrib_depthwise_conv2d_NCHWc_add_clip("), std::string::npos) << s;
  std::string r = b.report();
  // The 8 kernels of the NCHW graph, and one layout_transform of the input (the global pool's
  // output is unblocked inside its kernel group's successor).
  EXPECT_NE(r.find("relay::build for llvm: 9 kernels, 9 kernel nodes"), std::string::npos) << r;
  EXPECT_NE(r.find("memory: activations"), std::string::npos) << r;
  // The planned activations are smaller than the sum of all intermediates.
  EXPECT_LT(b.memory.planned_bytes, b.memory.intermediate_bytes);
}

namespace {

// A ResNeXt bottleneck (32x4d-like, narrowed): 1x1 conv + bias + relu, 3x3 grouped conv (groups
// 32 with 2 or 4 channels per group, stride 2 in the second block) + bias + relu, 1x1 conv + bias,
// projection shortcut, add, relu; then a grouped 1x1 (ShuffleNet, groups 4) + relu, a dilated
// grouped 3x3 (groups 2) and a depthwise conv with multiplier 2 (groups = channels, 2 outputs per
// group: a grouped conv too).
Function resnext_like(Params& params) {
  auto x = var("data", T({1, 32, 10, 10}));
  std::vector<relay::Expr> ps{x};
  uint64_t seed = 300;
  auto p = [&](const std::string& n, std::vector<int64_t> s, float lo, float hi) {
    auto v = var(n, T(s));
    params[n] = relay::testing::random_uniform(s, lo, hi, seed++);
    ps.push_back(v);
    return v;
  };
  auto block = [&](const relay::Expr& in, const std::string& n, int64_t cin, int64_t width,
                   int64_t cout, int64_t stride) {
    auto a = nn::relu(nn::bias_add(nn::conv2d(in, p(n + ".w1", {width, cin, 1, 1}, -0.3, 0.3)),
                                   p(n + ".b1", {width}, -0.2, 0.2)));
    auto b = nn::relu(
        nn::bias_add(nn::conv2d(a, p(n + ".w2", {width, width / 32, 3, 3}, -0.4, 0.4),
                                {.strides = {stride, stride}, .padding = {1}, .groups = 32}),
                     p(n + ".b2", {width}, -0.2, 0.2)));
    auto c = nn::bias_add(nn::conv2d(b, p(n + ".w3", {cout, width, 1, 1}, -0.3, 0.3)),
                          p(n + ".b3", {cout}, -0.2, 0.2));
    auto sc =
        nn::conv2d(in, p(n + ".ws", {cout, cin, 1, 1}, -0.3, 0.3), {.strides = {stride, stride}});
    return nn::relu(add(c, sc));
  };
  auto y = block(x, "b1", 32, 64, 32, 1);
  y = block(y, "b2", 32, 128, 64, 2);
  y = nn::relu(nn::conv2d(y, p("shuffle.w", {32, 16, 1, 1}, -0.3, 0.3), {.groups = 4}));
  y = nn::conv2d(y, p("dil.w", {16, 16, 3, 3}, -0.3, 0.3),
                 {.padding = {2}, .dilation = {2, 2}, .groups = 2});
  y = nn::conv2d(y, p("dw.w", {32, 1, 3, 3}, -0.5, 0.5), {.padding = {1}, .groups = 16});
  return Function(ps, nn::relu(y));
}

void check_resnext_like(const std::string& target) {
  Params params;
  Function f = resnext_like(params);
  auto input = relay::testing::random_uniform({1, 32, 10, 10}, -1, 1, 8);
  Built b = build(f, target, params);
  auto want = reference_run(f, {{"data", input}}, params);
  for (bool share : {false, true})
    expect_close(relay_test::run_graph(b, {{"data", input}}, share)[0], want[0], 1e-4);
  std::string r = b.report();
  int grouped = 0;
  for (auto& k : b.kernels)
    if (k.workload.is_array() &&
        k.workload.at(0).get<std::string>().find("group_conv2d") != std::string::npos)
      ++grouped;
  if (target == "llvm") {
    EXPECT_EQ(grouped, 0) << r;  // llvm: template-free CPU schedules
    for (auto& k : b.kernels)
      if (k.master_op == "nn.conv2d") EXPECT_EQ(k.template_key, "cpu") << k.func_name;
  } else {
    // The two 3x3 groups-32 convs, the grouped 1x1, the dilated one and the multiplier-2 depthwise.
    EXPECT_EQ(grouped, 5) << r;
    EXPECT_NE(r.find("5 group_conv2d layers, 5 workloads: 0 from log, 5 fallback"),
              std::string::npos)
        << r;
  }
  EXPECT_NE(r.find("fused_nn_conv2d_nn_bias_add_nn_relu"), std::string::npos) << r;
}

}  // namespace

TEST(RelayBuild, GroupedConvResNeXtBlockLlvm) {
  check_resnext_like("llvm");
}

TEST(RelayBuild, GroupedConvResNeXtBlockCudaEmulate) {
  check_resnext_like("cuda -emulate");
}

// The grouped kernel is queried with TVM's workload key (dispatch context): a config given for
// group_conv2d_nchw.cuda's 0.1 key answers and is applied.
TEST(RelayBuild, GroupedConvConfigFromDispatchContext) {
  auto x = var("data", T({1, 8, 6, 6}));
  auto w = constant(relay::testing::random_uniform({8, 2, 3, 3}, -1, 1, 1));
  Function f({x}, nn::relu(nn::conv2d(x, w, {.padding = {1}, .groups = 4})));
  topi::nn::Conv2dAttrs a;
  a.padding = {1, 1, 1, 1};
  auto wl = topi::group_conv2d_workloads({1, 8, 6, 6}, {8, 2, 3, 3}, a, 4);
  EXPECT_EQ(autotune::workload_key(wl.v02.at(0)),
            "('group_conv2d_nchw.cuda', ('TENSOR', (1, 8, 6, 6), 'float32'), ('TENSOR', (8, 2, 3, "
            "3), 'float32'), "
            "(1, 1), (1, 1, 1, 1), (1, 1), 4, 'float32')");
  autotune::ConfigEntity cfg;
  for (auto& [n, v] :
       std::vector<std::pair<const char*, std::vector<int64_t>>>{{"tile_n", {-1, 1, 1, 1}},
                                                                 {"tile_g", {-1, 2}},
                                                                 {"tile_f", {-1, 1, 2, 1}},
                                                                 {"tile_y", {-1, 1, 3, 2}},
                                                                 {"tile_x", {-1, 1, 6, 1}},
                                                                 {"tile_rc", {-1, 1}},
                                                                 {"tile_ry", {-1, 3}},
                                                                 {"tile_rx", {-1, 3}}})
    cfg.set(n, autotune::SplitEntity{v});
  cfg.set("auto_unroll_max_step", autotune::OtherOptionEntity{0});
  cfg.set("unroll_explicit", autotune::OtherOptionEntity{0});
  cfg.set("fuse_yx", autotune::OtherOptionEntity{1});
  cfg.index = 7;
  autotune::ApplyHistoryBest best;
  best.update(autotune::parse_target("cuda -emulate"), wl.v01, cfg);
  autotune::DispatchScope scope(best);
  Built b = build(f, "cuda -emulate");
  ASSERT_EQ(b.kernels.size(), 1u);
  EXPECT_EQ(b.kernels[0].template_key, "direct");
  EXPECT_FALSE(b.kernels[0].is_fallback);
  EXPECT_EQ(b.kernels[0].workload, wl.v01);
  auto input = relay::testing::random_uniform({1, 8, 6, 6}, -1, 1, 3);
  expect_close(relay_test::run_graph(b, {{"data", input}})[0],
               reference_run(f, {{"data", input}})[0], 1e-5);
}

TEST(RelayBuild, InvalidGroupCountsAreCompileErrors) {
  auto x = var("data", T({1, 8, 6, 6}));
  auto message = [&](int64_t groups, std::vector<int64_t> wshape) -> std::string {
    try {
      Function f({x}, nn::conv2d(x, constant(relay::testing::random_uniform(wshape, -1, 1, 1)),
                                 {.groups = groups}));
      build(f, "llvm");
    } catch (const CompileError& e) {
      return e.what();
    }
    return "no error";
  };
  std::string m = message(3, {9, 3, 3, 3});  // 3 does not divide 8 channels
  EXPECT_NE(m.find("groups=3"), std::string::npos) << m;
  m = message(0, {8, 8, 3, 3});
  EXPECT_NE(m.find("groups=0"), std::string::npos) << m;
  m = message(4, {6, 2, 3, 3});  // 4 does not divide 6 output channels
  EXPECT_NE(m.find("groups=4"), std::string::npos) << m;
  m = message(2, {8, 2, 3, 3});  // weight has 2 input channels per group, data 4
  EXPECT_NE(m.find("groups=2"), std::string::npos) << m;
}

// The winograd conv with a fused epilogue on "cuda -emulate": tests/relay/test_winograd.cc.

TEST(RelayBuild, UnsupportedUsesAreCompileErrors) {
  auto x = var("data", T({1, 2, 4, 4}));
  auto c = [](std::vector<int64_t> s, uint64_t seed) {
    return constant(relay::testing::random_uniform(s, 0.5, 1, seed));
  };
  auto bn = nn::batch_norm(x, c({2}, 1), c({2}, 2), c({2}, 3), c({2}, 4));
  Function f({x}, add(tuple_get_item(bn, 0), expand_dims(tuple_get_item(bn, 1), 1, 2)));
  auto message = [](const Function& g, const std::string& target) {
    try {
      build(g, target);
    } catch (const CompileError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(message(f, "llvm").find(
                "nn.batch_norm produces a tuple that is not removed by simplify_inference"),
            std::string::npos);
  Function ok({x}, nn::relu(x));
  EXPECT_EQ(message(ok, "opencl"), "relay::build: unsupported target 'opencl'");
}

// Grouped conv2d (groups=2, and depthwise with channel multiplier 2) with a bias + relu epilogue,
// then nn.lrn, on llvm and cuda -emulate.
TEST(RelayBuild, GroupedConvAndLrnLlvmAndCudaEmulate) {
  auto x = var("data", T({1, 8, 6, 6}));
  auto c = [](std::vector<int64_t> s, uint64_t seed) {
    return constant(relay::testing::random_uniform(s, -1, 1, seed));
  };
  auto y = nn::relu(nn::bias_add(
      nn::conv2d(x, c({8, 4, 3, 3}, 1), {.strides = {2, 1}, .padding = {1, 0, 2, 1}, .groups = 2}),
      c({8}, 2)));
  auto z = nn::conv2d(y, c({16, 1, 3, 3}, 3), {.padding = {1}, .dilation = {2, 1}, .groups = 8});
  Function f({x}, nn::lrn(z, 4, 1, 1.5, 0.3, 0.6));
  auto input = relay::testing::random_uniform({1, 8, 6, 6}, -1, 1, 7);
  auto want = reference_run(f, {{"data", input}});
  for (const char* target : {"llvm", "cuda -emulate"}) {
    Built b = build(f, target);
    auto got = relay_test::run_graph(b, {{"data", input}}, true);
    ASSERT_EQ(got.size(), 1u);
    expect_close(got[0], want[0], 1e-4);
  }
}
