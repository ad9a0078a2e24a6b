// The seed network zoo: layer shapes and workload lookup under the seed logs (0 fallbacks).
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/record.h"
#include "minitvm/relay/relay.h"
#include "relay/relay_test_util.h"

using namespace minitvm;
using namespace minitvm::relay;

namespace {

std::string seed_log(const std::string& name) {
  return std::string(MINITVM_SOURCE_DIR) + "/tophub/seed/" + name;
}

// The 0.1 workload keys of a log file (read as text lines, independently of ApplyHistoryBest).
std::set<std::string> log_workloads(const std::string& path) {
  std::set<std::string> r;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = autotune::Json::parse(line);
    r.insert(j.at("i").at(4).dump());
  }
  return r;
}

using relay_test::count_layers;
using relay_test::Layers;

// Build for cuda (workloads only) under one seed log: every tunable layer must hit the log.
void expect_all_from_log(const relay::testing::Network& net, const std::string& log, int distinct) {
  autotune::ApplyHistoryBest best;
  best.load(seed_log(log));
  autotune::DispatchScope scope(best);
  Built b = build(net.mod, "cuda", net.params, {.workloads_only = true});
  std::set<std::string> keys;
  auto in_log = log_workloads(seed_log(log));
  std::set<std::string> winograd;
  for (auto& k : b.kernels) {
    if (!k.workload.is_array()) continue;
    EXPECT_FALSE(k.is_fallback) << log << ": " << k.func_name << " " << k.workload.dump();
    // A winograd record applies through the build-time weight transform (CUDA alter layout).
    if (k.template_key == "winograd") {
      winograd.insert(k.workload.dump());
      EXPECT_EQ(k.master_op, "nn.contrib_conv2d_winograd_without_weight_transform") << k.func_name;
    }
    keys.insert(k.workload.dump());
  }
  EXPECT_EQ(b.num_fallbacks(), 0) << b.report();
  EXPECT_EQ(static_cast<int>(keys.size()), distinct) << b.report();
  // Seed logs: every 3x3 stride-1 conv with >= 64 input channels has a winograd record.
  int eligible = 0;
  std::set<std::string> seen;
  for (auto& e : post_order(net.mod.body)) {
    if (!e->is_call("nn.conv2d") || e->attrs["groups"] != 1) continue;
    const auto& ks = e->args[1]->types[0].shape;
    const auto& ds = e->args[0]->types[0].shape;
    if (ks[2] == 3 && e->attrs["strides"] == autotune::Json({1, 1}) && ds[1] >= 64 &&
        seen.insert(autotune::Json({ds, ks}).dump()).second)
      ++eligible;
  }
  EXPECT_EQ(static_cast<int>(winograd.size()), eligible) << log << "\n" << b.report();
  // Every record of the log is used by the network (the network is exactly the tuned one).
  std::set<std::string> used;
  for (auto& k : keys) used.insert(autotune::Json::parse(k).dump());
  for (auto& w : in_log) EXPECT_TRUE(used.count(w)) << log << ": record not used: " << w;
}

}  // namespace

TEST(RelayZoo, ResNetLayerCounts) {
  for (auto [n, convs] :
       std::vector<std::pair<int, int>>{{18, 20}, {34, 36}, {50, 53}, {101, 104}, {152, 155}}) {
    auto net = relay::testing::resnet(n, 1);
    Layers l = count_layers(net.mod);
    EXPECT_EQ(l.conv, convs) << "resnet" << n;
    EXPECT_EQ(l.dense, 1);
    EXPECT_EQ(net.mod.body->type().shape, (std::vector<int64_t>{1, 1000}));
  }
  auto net = relay::testing::resnet(50, 1);
  // torchvision v1.5: the stride of layer2.0 is on conv2 (3x3), and the params are named as its
  // state_dict.
  Expr found;
  for (auto& e : post_order(net.mod.body))
    if (e->is_call("nn.conv2d") && e->args[1]->name == "layer2.0.conv2.weight") found = e;
  ASSERT_TRUE(found);
  EXPECT_EQ(found->attrs["strides"], autotune::Json({2, 2}));
  EXPECT_TRUE(net.params.count("layer4.2.bn3.running_var"));
}

TEST(RelayZoo, VggAndMobileNetLayerCounts) {
  auto v = relay::testing::vgg(16, 1);
  Layers lv = count_layers(v.mod);
  EXPECT_EQ(lv.conv, 13);
  EXPECT_EQ(lv.dense, 3);
  EXPECT_EQ(count_layers(relay::testing::vgg(11, 1).mod).conv, 8);
  EXPECT_EQ(count_layers(relay::testing::vgg(19, 1).mod).conv, 16);
  auto m = relay::testing::mobilenet_v2(1);
  Layers lm = count_layers(m.mod);
  EXPECT_EQ(lm.conv + lm.depthwise, 52);  // as torchvision's ONNX export
  EXPECT_EQ(lm.depthwise, 17);
  EXPECT_EQ(lm.dense, 1);
}

TEST(RelayZoo, ResNet50SeedLogZeroFallbacks) {
  for (int batch : {1, 8, 128})
    expect_all_from_log(relay::testing::resnet(50, batch),
                        "resnet50v1_bs_" + std::to_string(batch) + ".log", 24);
}

TEST(RelayZoo, MobileNetV2SeedLogZeroFallbacks) {
  for (int batch : {1, 8, 128})
    expect_all_from_log(relay::testing::mobilenet_v2(batch),
                        "mobilenet_v2_bs_" + std::to_string(batch) + ".log", 31);
}

TEST(RelayZoo, Vgg16SeedLogZeroFallbacks) {
  for (int batch : {1, 8, 128})
    expect_all_from_log(relay::testing::vgg(16, batch),
                        "vgg16_bs_" + std::to_string(batch) + ".log", 12);
}

TEST(RelayZoo, Resnet50ReportCountsLayers) {
  autotune::ApplyHistoryBest best;
  best.load(seed_log("resnet50v1_bs_1.log"));
  autotune::DispatchScope scope(best);
  auto net = relay::testing::resnet(50, 1);
  Built b = build(net.mod, "cuda", net.params, {.workloads_only = true});
  std::string r = b.report();
  EXPECT_NE(r.find("53 conv2d layers, 23 workloads: 23 from log, 0 fallback"), std::string::npos)
      << r;
  EXPECT_NE(r.find("1 dense layers, 1 workloads: 1 from log, 0 fallback"), std::string::npos) << r;
  EXPECT_NE(r.find("winograd"), std::string::npos) << r;
}
