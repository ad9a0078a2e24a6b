// relay::build -> runtime::GraphExecutor end to end: zoo networks and a small CNN run through the
// real executor (set_input by name, run, get_output), against the reference executor; and
// export_library -> load_compiled_graph -> run gives the same output.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>

#include "minitvm/relay/relay.h"
#include "minitvm/runtime/graph_executor.h"
#include "minitvm/runtime/graph_library.h"
#include "relay/relay_test_util.h"

using namespace minitvm;
using namespace minitvm::relay;

namespace {

using relay_test::T;

using relay_test::expect_close;

runtime::NDArray run_executor(const runtime::CompiledGraph& g, const runtime::NDArray& input) {
  runtime::GraphExecutor ex(g, Device::cpu());
  EXPECT_EQ(ex.get_num_outputs(), 1);
  ex.set_input("data", input);
  ex.run();
  runtime::NDArray out = ex.get_output(0);
  return out.copy_to(Device::cpu());
}

void check_network(const relay::testing::Network& net, const std::string& target, double tol,
                   bool export_too) {
  auto input = relay::testing::random_uniform({1, 3, 32, 32}, -1, 1, 77);
  Built b = build(net.mod, target, net.params);
  auto want = reference_run(net.mod, {{"data", input}}, net.params);
  ASSERT_EQ(want.size(), 1u);
  auto got = run_executor(b, input);
  expect_close(got, want[0], tol);
  if (!export_too) return;
  auto path = std::filesystem::temp_directory_path() /
              ("minitvm_e2e_" + std::to_string(::getpid()) + ".mtvm");
  runtime::export_library(b, path.string());
  runtime::CompiledGraph loaded = runtime::load_compiled_graph(path.string());
  std::filesystem::remove(path);
  auto again = run_executor(loaded, input);
  // Same code and weights: the exported library gives the JIT's output (up to FP contraction).
  expect_close(again, got, 1e-6);
}

}  // namespace

TEST(RelayExecutorE2E, ResNet18LlvmAndExport) {
  check_network(relay::testing::resnet(18, 1, {3, 32, 32}, 10, 3), "llvm", 1e-4, true);
}

TEST(RelayExecutorE2E, MobileNetV2Llvm) {
  check_network(relay::testing::mobilenet_v2(1, {3, 32, 32}, 10, 4), "llvm", 1e-4, false);
}

TEST(RelayExecutorE2E, SmallCnnCudaEmulate) {
  // conv+BN+relu, max pool, depthwise+relu6, 1x1 conv + residual, global pool, dense + bias.
  Params params;
  uint64_t seed = 300;
  std::vector<relay::Expr> ps;
  auto x = var("data", T({1, 3, 32, 32}));
  ps.push_back(x);
  auto p = [&](const std::string& n, std::vector<int64_t> s, float lo, float hi) {
    auto v = var(n, T(s));
    params[n] = relay::testing::random_uniform(s, lo, hi, seed++);
    ps.push_back(v);
    return v;
  };
  auto y = nn::conv2d(x, p("c1.w", {8, 3, 3, 3}, -0.5, 0.5), {.padding = {1}});
  y = tuple_get_item(nn::batch_norm(y, p("bn.g", {8}, 0.5, 1.5), p("bn.b", {8}, -0.5, 0.5),
                                    p("bn.m", {8}, -0.2, 0.2), p("bn.v", {8}, 0.5, 1.5)),
                     0);
  y = nn::max_pool2d(nn::relu(y), {.pool_size = {2, 2}, .strides = {2, 2}});
  auto d =
      clip(nn::conv2d(y, p("dw.w", {8, 1, 3, 3}, -0.5, 0.5), {.padding = {1}, .groups = 8}), 0, 6);
  y = nn::relu(add(nn::conv2d(d, p("pw.w", {8, 8, 1, 1}, -0.5, 0.5)), y));
  auto f = nn::batch_flatten(nn::global_avg_pool2d(y));
  auto out = nn::bias_add(nn::dense(f, p("fc.w", {5, 8}, -1, 1)), p("fc.b", {5}, -1, 1));
  relay::testing::Network net{Function(ps, out), params};
  check_network(net, "cuda -emulate", 1e-4, false);
}
