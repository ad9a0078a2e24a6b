// CUDA winograd with the weight transformed at build time (TVM's cuda _alter_conv2d_layout): the
// two ops' type rules and reference against the naive conv2d, the alter pass before/after, and
// relay::build on "cuda -emulate" (winograd records) and llvm against the NCHW reference.
#include <gtest/gtest.h>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/record.h"
#include "minitvm/autotune/target.h"
#include "minitvm/relay/relay.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/topi/dispatch.h"
#include "relay/graph_runner.h"
#include "relay/relay_test_util.h"

using namespace minitvm;
using namespace minitvm::relay;

namespace {

constexpr const char* kWeightTransform = "nn.contrib_conv2d_winograd_weight_transform";
constexpr const char* kWinograd = "nn.contrib_conv2d_winograd_without_weight_transform";

using relay_test::T;

using relay_test::count_op;

using relay_test::expect_close;

using relay_test::error_of;

// What the alter pass makes of conv2d(x, w) with tile size m.
relay::Expr winograd_conv(const relay::Expr& x, const relay::Expr& w, int64_t m,
                          std::vector<int64_t> padding) {
  relay::Expr u = transpose(call(kWeightTransform, {w}, {{"tile_size", m}}), {0, 1, 3, 2});
  return call(kWinograd, {x, u}, {{"tile_size", m}, {"padding", padding}});
}

// Mark the conv's winograd key in a dispatch context (as a winograd record of the seed logs).
void winograd_record(autotune::ApplyHistoryBest& best, const std::string& target,
                     std::vector<int64_t> ds, std::vector<int64_t> ks, std::vector<int64_t> pad) {
  autotune::FallbackConfigEntity cfg;
  cfg.template_key = "winograd";
  topi::nn::Conv2dAttrs a;
  a.padding = std::move(pad);
  best.update(autotune::parse_target(target), topi::conv2d_workloads(ds, ks, a).v01, cfg);
}

// ResNet-50's layer1 3x3 conv (64x56x56, a winograd record in the seed log, tile size 4) with
// relu, or with the residual add and relu.
Function seed_layer(bool residual) {
  auto x = var("data", T({1, 64, 56, 56}));
  auto w = constant(relay::testing::random_uniform({64, 64, 3, 3}, -0.1, 0.1, 1));
  relay::Expr y = nn::conv2d(x, w, {.padding = {1}});
  return Function({x}, nn::relu(residual ? add(y, x) : y));
}

void load_resnet50_seed_log(autotune::ApplyHistoryBest& best) {
  best.load(std::string(MINITVM_SOURCE_DIR) + "/tophub/seed/resnet50v1_bs_1.log");
}

void expect_one_tuned_winograd_kernel(const Built& b) {
  ASSERT_EQ(b.kernels.size(), 1u);
  EXPECT_EQ(b.kernels[0].master_op, kWinograd);
  EXPECT_FALSE(b.kernels[0].is_fallback);
}

}  // namespace

// The reference of the pair (Winograd's algorithm in double) equals the direct convolution for
// F(2, 3), F(4, 3) and F(2, 5), padded or not, with partial last tiles.
TEST(WinogradOps, ReferenceMatchesTheDirectConv) {
  struct Case {
    std::vector<int64_t> data, weight, padding;
    int64_t m;
  };
  for (const Case& c : std::vector<Case>{{{1, 3, 8, 8}, {4, 3, 3, 3}, {1, 1, 1, 1}, 4},
                                         {{2, 4, 7, 5}, {3, 4, 3, 3}, {0, 0, 0, 0}, 2},
                                         {{1, 2, 9, 9}, {5, 2, 3, 3}, {1, 1, 1, 1}, 4},
                                         {{1, 3, 6, 7}, {2, 3, 5, 5}, {2, 1, 2, 1}, 2}}) {
    auto x = var("x", T(c.data));
    auto wv = relay::testing::random_uniform(c.weight, -1, 1, 7);
    auto xv = relay::testing::random_uniform(c.data, -1, 1, 8);
    Function direct({x}, nn::conv2d(x, constant(wv), {.padding = c.padding}));
    Function wino({x}, winograd_conv(x, constant(wv), c.m, c.padding));
    EXPECT_EQ(wino.body->type().shape, direct.body->type().shape);
    expect_close(reference_run(wino, {{"x", xv}})[0], reference_run(direct, {{"x", xv}})[0], 1e-5);
  }
  // The transformed weight: (alpha, alpha, CO, CI) with alpha = m + r - 1.
  auto w = var("w", T({8, 3, 3, 3}));
  EXPECT_EQ(call(kWeightTransform, {w}, {{"tile_size", 4}})->type().shape,
            (std::vector<int64_t>{6, 6, 8, 3}));
}

TEST(WinogradOps, TypeRulesNameTheMismatch) {
  auto x = var("x", T({1, 4, 8, 8}));
  auto w = var("w", T({8, 4, 3, 3}));
  EXPECT_NE(error_of([&] {
              call(kWeightTransform, {var("k", T({8, 4, 3, 2}))}, {{"tile_size", 2}});
            }).find("square kernel"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              call(kWeightTransform, {w}, {{"tile_size", 9}});
            }).find("tile_size 9"),
            std::string::npos);
  auto u = var("u", T({6, 6, 4, 8}));  // F(4, 3)
  EXPECT_EQ(call(kWinograd, {x, u}, {{"tile_size", 4}, {"padding", {1, 1}}})->type().shape,
            (std::vector<int64_t>{1, 8, 8, 8}));
  EXPECT_NE(error_of([&] {
              call(kWinograd, {x, var("u2", T({6, 6, 5, 8}))}, {{"tile_size", 4}});
            }).find("expects 5 input channels"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              call(kWinograd, {x, u}, {{"tile_size", 4}, {"strides", {2, 2}}});
            }).find("strides must be 1"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              call(kWinograd, {x, u}, {{"tile_size", 4}, {"padding", {1, 1, 0, 0}}});
            }).find("padding must be symmetric"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              call(kWinograd, {x, u}, {{"tile_size", 5}});
            }).find("not a transformed (alpha, alpha, CI, CO) kernel"),
            std::string::npos);
}

// The pass rewrites exactly the convs the hook names; fold_constant leaves one (alpha, alpha, CI,
// CO) constant per rewritten conv and no transform op; values unchanged.
TEST(WinogradOps, AlterPassPreTransformsTheWeight) {
  auto x = var("data", T({1, 4, 8, 8}));
  auto w1 = constant(relay::testing::random_uniform({8, 4, 3, 3}, -1, 1, 1));
  auto w2 = constant(relay::testing::random_uniform({8, 8, 1, 1}, -1, 1, 2));
  auto y = nn::relu(nn::conv2d(x, w1, {.padding = {1}}));
  Function f({x}, nn::conv2d(y, w2));
  relay::transform::AlterLayoutOptions o;
  o.depthwise_block = 0;
  o.winograd_tile = [](const ExprNode& c) -> int64_t {
    return c.args[1]->types[0].shape[2] == 3 ? 4 : 0;
  };
  Function a = relay::transform::alter_op_layout(f, o);
  EXPECT_EQ(count_op(a, kWinograd), 1);
  EXPECT_EQ(count_op(a, kWeightTransform), 1);
  EXPECT_EQ(count_op(a, "nn.conv2d"), 1);  // the 1x1 conv stays
  Function folded = relay::transform::fold_constant(a);
  EXPECT_EQ(count_op(folded, kWeightTransform), 0);
  EXPECT_EQ(count_op(folded, "transpose"), 0);
  for (auto& e : post_order(folded.body))
    if (e->is_call(kWinograd)) {
      EXPECT_EQ(e->args[1]->kind, ExprKind::Constant);
      EXPECT_EQ(e->args[1]->types[0].shape, (std::vector<int64_t>{6, 6, 4, 8}));
    }
  auto xv = relay::testing::random_uniform({1, 4, 8, 8}, -1, 1, 5);
  expect_close(reference_run(folded, {{"data", xv}})[0], reference_run(f, {{"data", xv}})[0], 1e-5);
}

// A winograd record at opt level 3: the conv + BN shift + residual add + relu group is built with
// the pre-transformed weight (one (6, 6, 16, 16) parameter, the name TVM gives the kernel), at opt
// level 2 with the transform inside the kernel; both against the NCHW reference.
TEST(WinogradOps, CudaEmulateBuildsWithThePreTransformedWeight) {
  for (int64_t h : {8, 6}) {  // tile size 4 (H % 8 == 0) and 2
    auto x = var("data", T({1, 16, h, h}));
    auto c = [](std::vector<int64_t> s, uint64_t seed) {
      return constant(relay::testing::random_uniform(s, -1, 1, seed));
    };
    auto y = nn::relu(
        add(add(nn::conv2d(x, c({16, 16, 3, 3}, 1), {.padding = {1}}), c({16, 1, 1}, 2)), x));
    Function f({x}, y);
    autotune::ApplyHistoryBest best;
    winograd_record(best, "cuda -emulate", {1, 16, h, h}, {16, 16, 3, 3}, {1, 1});
    autotune::DispatchScope scope(best);
    auto input = relay::testing::random_uniform({1, 16, h, h}, -1, 1, 3);
    auto want = reference_run(f, {{"data", input}})[0];
    const int64_t alpha = (h % 8 == 0 ? 4 : 2) + 2;

    Built b3 = build(f, "cuda -emulate");
    ASSERT_EQ(b3.kernels.size(), 1u);
    EXPECT_EQ(b3.kernels[0].func_name,
              "fused_nn_contrib_conv2d_winograd_without_weight_transform_add_add_nn_relu");
    EXPECT_EQ(b3.kernels[0].template_key, "winograd");
    {  // the kernel asked for the conv2d's own key (the one the record answers)
      topi::nn::Conv2dAttrs a;
      a.padding = {1, 1};
      EXPECT_EQ(b3.kernels[0].workload,
                topi::conv2d_workloads({1, 16, h, h}, {16, 16, 3, 3}, a).v01);
    }
    int transformed = 0;
    for (auto& [name, arr] : b3.params)
      transformed += arr.shape() == std::vector<int64_t>{alpha, alpha, 16, 16};
    EXPECT_EQ(transformed, 1);
    expect_close(relay_test::run_graph(b3, {{"data", input}})[0], want, 1e-4);

    BuildOptions o2;
    o2.opt_level = 2;
    Built b2 = build(f, "cuda -emulate", {}, o2);
    ASSERT_EQ(b2.kernels.size(), 1u);
    EXPECT_EQ(b2.kernels[0].template_key, "winograd");
    EXPECT_NE(b2.kernels[0].func_name.find("fused_nn_conv2d"), std::string::npos);
    expect_close(relay_test::run_graph(b2, {{"data", input}})[0], want, 1e-4);
  }
}

// Only convs whose dispatched config is winograd are rewritten (here the first and the last conv,
// which share a key); the dilated conv, under the fallback, stays nn.conv2d; on llvm nothing is
// rewritten. A winograd config for a layer winograd cannot compute is an error naming it.
TEST(WinogradOps, OnlyWinogradRecordsOfEligibleLayersOnCuda) {
  auto x = var("data", T({1, 8, 8, 8}));
  auto c = [](std::vector<int64_t> s, uint64_t seed) {
    return constant(relay::testing::random_uniform(s, -1, 1, seed));
  };
  auto y = nn::conv2d(x, c({8, 8, 3, 3}, 1), {.padding = {1}});
  auto z = nn::conv2d(y, c({8, 8, 3, 3}, 2), {.padding = {2}, .dilation = {2, 2}});
  Function f({x}, nn::conv2d(z, c({8, 8, 3, 3}, 3), {.padding = {1}}));
  autotune::ApplyHistoryBest best;
  winograd_record(best, "cuda", {1, 8, 8, 8}, {8, 8, 3, 3}, {1, 1});
  autotune::DispatchScope scope(best);
  BuildOptions o;
  o.workloads_only = true;
  Function g = build(f, "cuda", {}, o).optimized;
  EXPECT_EQ(count_op(g, kWinograd), 2) << g;
  EXPECT_EQ(count_op(g, "nn.conv2d"), 1) << g;
  EXPECT_EQ(count_op(build(f, "llvm", {}, o).optimized, kWinograd), 0);

  autotune::FallbackConfigEntity cfg;
  cfg.template_key = "winograd";
  topi::nn::Conv2dAttrs a;
  a.padding = {2, 2};
  a.dilation = {2, 2};
  best.update(autotune::parse_target("cuda"),
              topi::conv2d_workloads({1, 8, 8, 8}, {8, 8, 3, 3}, a).v01, cfg);
  std::string e = error_of([&] { build(f, "cuda", {}, o); });
  EXPECT_NE(e.find("winograd config"), std::string::npos) << e;
  EXPECT_NE(e.find("dilation [2, 2]"), std::string::npos) << e;
}

// A hand-built graph with the pair builds on llvm (the CPU winograd schedule; the transform folded)
// and on cuda -emulate under no record (the winograd template's fallback config).
TEST(WinogradOps, HandBuiltGraphBuildsOnLlvmAndCuda) {
  auto x = var("data", T({1, 4, 10, 10}));
  auto wv = relay::testing::random_uniform({6, 4, 3, 3}, -1, 1, 4);
  Function f({x}, nn::relu(winograd_conv(x, constant(wv), 2, {1, 1})));
  Function direct({x}, nn::relu(nn::conv2d(x, constant(wv), {.padding = {1}})));
  auto input = relay::testing::random_uniform({1, 4, 10, 10}, -1, 1, 6);
  auto want = reference_run(direct, {{"data", input}})[0];
  for (const char* target : {"llvm", "cuda -emulate"}) {
    Built b = build(f, target);
    ASSERT_EQ(b.kernels.size(), 1u) << target;
    EXPECT_EQ(b.kernels[0].template_key, "winograd") << target;
    expect_close(relay_test::run_graph(b, {{"data", input}})[0], want, 1e-4);
  }
}

// A ResNet-50 layer under its seed-log record (64x56x56 3x3, tile size 4): built for "cuda", i.e.
// compiled by NVRTC and assembled by ptxas with the tuned config; the kernel reads the transformed
// weight as an argument and has no kernel-transform stage. tests/relay/test_relay_gpu.cc runs it.
TEST(WinogradOps, SeedLogLayerCompilesForCuda) {
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC is not installed";
  autotune::ApplyHistoryBest best;
  load_resnet50_seed_log(best);
  autotune::DispatchScope scope(best);
  Built b = build(seed_layer(false), "cuda");
  expect_one_tuned_winograd_kernel(b);
  EXPECT_GE(b.kernels[0].config_index, 0);
  const std::string src = b.lib.get_source("cuda");
  EXPECT_EQ(src.find("kernel_pack"), std::string::npos);  // no transform stage left
  EXPECT_NE(src.find("bgemm"), std::string::npos);
  int transformed = 0;
  for (auto& [name, arr] : b.params)
    transformed += arr.shape() == std::vector<int64_t>{6, 6, 64, 64};
  EXPECT_EQ(transformed, 1);
}

// The same layer on the emulator: the tuned config's kernel against the direct reference.
TEST(WinogradOps, SeedLogLayerOnTheEmulatorMatchesTheReference) {
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC is not installed";
  autotune::ApplyHistoryBest best;
  load_resnet50_seed_log(best);
  autotune::DispatchScope scope(best);
  Function f = seed_layer(true);
  Built b = build(f, "cuda -emulate");
  expect_one_tuned_winograd_kernel(b);
  auto input = relay::testing::random_uniform({1, 64, 56, 56}, -1, 1, 3);
  expect_close(relay_test::run_graph(b, {{"data", input}})[0],
               reference_run(f, {{"data", input}})[0], 1e-4);
}
