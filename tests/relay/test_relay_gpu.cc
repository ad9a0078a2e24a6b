// relay::build for "cuda" run on a CUDA device against the reference executor: a ResNet-50 layer
// whose seed-log record is winograd (the weight transformed at build time) and a small network
// mixing direct and winograd convs. Skips without a CUDA GPU or NVRTC.
#include <gtest/gtest.h>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/record.h"
#include "minitvm/relay/relay.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/graph_executor.h"
#include "minitvm/runtime/nvrtc.h"
#include "relay/relay_test_util.h"

using namespace minitvm;
using namespace minitvm::relay;

namespace {

#define SKIP_WITHOUT_GPU()                                                 \
  if (!runtime::cuda_available())                                          \
    GTEST_SKIP() << "no CUDA GPU: " << runtime::cuda_unavailable_reason(); \
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC is not installed"

using relay_test::T;

runtime::NDArray run_on_gpu(const Built& b, const runtime::NDArray& input) {
  runtime::GraphExecutor m(b, Device::cuda(0));
  m.set_input("data", input);
  m.run();
  runtime::NDArray host = runtime::NDArray::empty(m.get_output(0).shape(), DataType::Float(32));
  m.get_output(0, host);
  return host;
}

// ResNet-50 v1's layer1 3x3 (winograd record, tile 4) with its residual, the 1x1 convs into
// layer2, then layer2's strided 3x3 (direct record): every conv has a record in the seed log.
Function seed_log_layers() {
  auto x = var("data", T({1, 64, 56, 56}));
  auto c = [](std::vector<int64_t> s, uint64_t seed) {
    return constant(relay::testing::random_uniform(s, -0.1, 0.1, seed));
  };
  auto y = nn::relu(add(nn::conv2d(x, c({64, 64, 3, 3}, 1), {.padding = {1}}), x));
  y = nn::relu(nn::conv2d(y, c({256, 64, 1, 1}, 2), {}));
  y = nn::relu(nn::conv2d(y, c({128, 256, 1, 1}, 3), {}));
  return Function(
      {x}, nn::relu(nn::conv2d(y, c({128, 128, 3, 3}, 4), {.strides = {2, 2}, .padding = {1}})));
}

Built build_under_seed_log(const Function& f) {
  autotune::ApplyHistoryBest best;
  best.load(std::string(MINITVM_SOURCE_DIR) + "/tophub/seed/resnet50v1_bs_1.log");
  autotune::DispatchScope scope(best);
  return build(f, "cuda");
}

}  // namespace

// The build alone (NVRTC, no GPU): every conv takes its record, one of them as winograd.
TEST(RelayGpu, SeedLogLayersBuildFromTheLog) {
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC is not installed";
  Built b = build_under_seed_log(seed_log_layers());
  int winograd = 0, convs = 0;
  for (auto& k : b.kernels) {
    EXPECT_FALSE(k.workload.is_array() && k.is_fallback) << k.func_name;
    convs += k.workload.is_array();
    winograd += k.master_op == "nn.contrib_conv2d_winograd_without_weight_transform";
  }
  EXPECT_EQ(convs, 4) << b.report();
  EXPECT_EQ(winograd, 1) << b.report();
}

TEST(RelayGpu, SeedLogWinogradLayerMatchesTheReference) {
  SKIP_WITHOUT_GPU();
  Function f = seed_log_layers();
  Built b = build_under_seed_log(f);
  auto input = relay::testing::random_uniform({1, 64, 56, 56}, -1, 1, 3);
  relay_test::expect_close(run_on_gpu(b, input), reference_run(f, {{"data", input}})[0], 1e-4);
}
