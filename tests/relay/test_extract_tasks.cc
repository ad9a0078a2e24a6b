// relay::extract_tasks: the tuning tasks of a network are the tunable workloads its build applies,
// weighted by how many layers call them (counted independently from the graph).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/record.h"
#include "minitvm/autotune/task_scheduler.h"
#include "minitvm/relay/relay.h"
#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"
#include "minitvm/topi/cpu_schedule.h"
#include "relay/graph_runner.h"
#include "relay/one_record.h"
#include "relay/relay_test_util.h"

namespace autotune = minitvm::autotune;
using minitvm::CompileError;
using minitvm::relay::build;
using minitvm::relay::Built;
using minitvm::relay::extract_tasks;
using minitvm::relay::Function;
using minitvm::relay::post_order;
namespace testing_zoo = minitvm::relay::testing;

namespace {

using relay_test::count_layers;
using relay_test::Layers;

// 3x3, stride 1, dilation 1, ungrouped convolutions: the layers TVM's CUDA strategy offers
// winograd for.
int count_winograd_layers(const Function& f) {
  int n = 0;
  for (auto& e : post_order(f.body)) {
    if (!e->is_call("nn.conv2d") || e->attrs["groups"].get<int64_t>() != 1) continue;
    const auto& k = e->args[1]->types[0].shape;
    bool ok = k[2] == 3 && k[3] == 3;
    for (auto& s : e->attrs["strides"]) ok &= s.get<int64_t>() == 1;
    if (e->attrs.contains("dilation"))
      for (auto& d : e->attrs["dilation"]) ok &= d.get<int64_t>() == 1;
    n += ok;
  }
  return n;
}

double weight_of(const std::vector<autotune::WeightedTask>& tasks, const std::string& name,
                 int* count = nullptr) {
  double w = 0;
  int c = 0;
  for (auto& t : tasks)
    if (t.task.name() == name) {
      w += t.weight;
      ++c;
    }
  if (count) *count = c;
  return w;
}

}  // namespace

TEST(RelayExtractTasks, ResNet50Llvm) {
  auto net = testing_zoo::resnet(50, 1);
  std::vector<std::string> untunable;
  auto tasks = extract_tasks(net.mod, "llvm", net.params, &untunable);
  int distinct = 0;
  // Every convolution is a conv2d_NCHWc.x86 call; the 53 layers have 23 distinct workloads (the
  // seed log's count).
  EXPECT_EQ(weight_of(tasks, "conv2d_NCHWc.x86", &distinct), count_layers(net.mod).conv);
  EXPECT_EQ(distinct, 23);
  EXPECT_EQ(tasks.size(), 23u);
  std::set<std::string> keys;
  for (auto& t : tasks) {
    EXPECT_TRUE(keys.insert(t.task.workload_key()).second)
        << "duplicate task " << t.task.workload_key();
    EXPECT_GT(t.task.config_space().size(), 1);
    EXPECT_GT(t.task.flop(), 0);
    EXPECT_EQ(t.task.target_str(), "llvm");
  }
  ASSERT_EQ(untunable.size(), 1u);  // the classifier
  EXPECT_NE(untunable[0].find("nn.dense"), std::string::npos) << untunable[0];
  // A log with one record per task (a config that is not the fallback) answers every convolution
  // of the build: the tasks are the keys the build applies.
  std::vector<autotune::Record> recs;
  for (auto& t : tasks) {
    autotune::MeasureResult r;
    r.costs = {1e-3};
    recs.push_back(
        autotune::make_record(t.task, t.task.config(t.task.config_space().size() - 1), r));
  }
  autotune::ApplyHistoryBest best(recs);
  autotune::DispatchScope scope(best);
  Built b = build(net.mod, "llvm", net.params, {.workloads_only = true});
  int convs = 0;
  for (auto& k : b.kernels) {
    if (k.master_op != "nn.contrib_conv2d_NCHWc") continue;
    convs += k.num_nodes;
    EXPECT_FALSE(k.is_fallback) << k.func_name;
    EXPECT_TRUE(keys.count(autotune::workload_key(k.workload)))
        << k.func_name << " " << k.workload.dump();
  }
  EXPECT_EQ(convs, count_layers(net.mod).conv);
}

// llvm_winograd_workloads: the tasks of the layers a build without a log runs by Winograd on
// llvm — 3x3, stride 1, dilation 1, at least 32 input and output channels, an output of at least
// 8x8, or 7x7 from 64 input channels on AMD's cores (BuildOptions::winograd), counted here from
// the graph.
// extract_tasks still lists them (TVM's extract_from_program), and a build without Winograd runs
// them as those tasks.
TEST(RelayExtractTasks, ResNet50LlvmWinogradWorkloads) {
  auto net = testing_zoo::resnet(50, 1);
  const bool amd = minitvm::topi::cpu::host_cpu_is_amd();
  std::set<std::string> want;
  for (auto& e : post_order(net.mod.body)) {
    if (!e->is_call("nn.conv2d") || e->attrs["groups"].get<int64_t>() != 1) continue;
    const auto& k = e->args[1]->types[0].shape;
    const auto& o = e->types[0].shape;
    const int64_t m = std::min(o[2], o[3]);
    bool ok = k[2] == 3 && k[3] == 3 && k[0] >= 32 && k[1] >= 32 &&
              (m >= 8 || (amd && m == 7 && k[1] >= 64));
    for (auto& s : e->attrs["strides"]) ok &= s.get<int64_t>() == 1;
    if (!ok) continue;
    minitvm::topi::nn::Conv2dAttrs a;
    a.padding = {1, 1, 1, 1};
    want.insert(autotune::workload_key(
        minitvm::topi::cpu::conv2d_nchwc_workload(e->args[0]->types[0].shape, k, a)));
  }
  ASSERT_EQ(want.size(), amd ? 4u : 3u);  // layers 1-3 (64, 128, 256 channels), 4 (512) on AMD
  auto extracted = extract_tasks(net.mod, "llvm", net.params);
  auto got = minitvm::relay::llvm_winograd_workloads(net.mod, extracted, net.params);
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()), want);
  EXPECT_EQ(got.size(), want.size());
  std::set<std::string> tasks;
  for (auto& t : extracted) tasks.insert(t.task.workload_key());
  for (auto& k : want) EXPECT_TRUE(tasks.count(k)) << k;
}

TEST(RelayExtractTasks, MobileNetV2LlvmDepthwiseHasNoTemplate) {
  auto net = testing_zoo::mobilenet_v2(1);
  std::vector<std::string> untunable;
  auto tasks = extract_tasks(net.mod, "llvm", net.params, &untunable);
  Layers l = count_layers(net.mod);
  EXPECT_EQ(weight_of(tasks, "conv2d_NCHWc.x86"), l.conv);
  int dw = 0;
  for (auto& u : untunable) dw += u.find("depthwise") != std::string::npos;
  EXPECT_GE(dw, 1);
  EXPECT_EQ(static_cast<int>(untunable.size()) - dw, l.dense);
}

TEST(RelayExtractTasks, ResNet50CudaDirectWinogradAndDense) {
  auto net = testing_zoo::resnet(50, 1);
  auto tasks = extract_tasks(net.mod, "cuda", net.params);
  int direct = 0, wino = 0, dense = 0;
  EXPECT_EQ(weight_of(tasks, "conv2d_nchw.cuda", &direct), count_layers(net.mod).conv);
  EXPECT_EQ(direct, 23);
  EXPECT_EQ(weight_of(tasks, "conv2d_nchw_winograd.cuda", &wino), count_winograd_layers(net.mod));
  EXPECT_GE(wino, 1);
  EXPECT_EQ(weight_of(tasks, "dense_small_batch.cuda", &dense), 1);
  EXPECT_EQ(tasks.size(), static_cast<size_t>(direct + wino + dense));
  EXPECT_THROW(extract_tasks(net.mod, "banana"), CompileError);
}

// A 1x1 stride-1 conv whose fallback output block fills at most half a vector and whose channels
// are too far from a multiple of one to be padded (58 -> 17 channels with 16 lanes: blocks of 1,
// 32 would add 15 channels; 58 -> 9 with 8 lanes: blocks of 3) stays NCHW in a build with
// fallback configs, next to a 3x3 conv of the same input that is blocked; task extraction still
// lists both as conv2d_NCHWc.x86 tasks, and a tuned config for the 1x1 layer blocks it as the
// config says. Values as the reference executor's.
TEST(RelayExtractTasks, HalfVectorOneByOneConvStaysNchwUntilTuned) {
  using namespace minitvm;
  using namespace minitvm::relay;
  using relay_test::T;
  const int64_t co = topi::cpu::fp32_lanes() >= 16 ? 17 : 9;
  auto x = var("data", T({1, 58, 14, 14}));
  auto w1 = constant(relay::testing::random_uniform({co, 58, 1, 1}, -1, 1, 5));
  auto w2 = constant(relay::testing::random_uniform({32, 58, 3, 3}, -1, 1, 6));
  auto y = nn::relu(nn::conv2d(x, w1, {}));
  Function f({x}, tuple({y, nn::conv2d(x, w2, {.padding = {1}})}));
  auto input = relay::testing::random_uniform({1, 58, 14, 14}, -1, 1, 7);
  auto want = reference_run(f, {{"data", input}});
  auto expect_both = [&](const Built& b) {
    auto got = relay_test::run_graph(b, {{"data", input}});
    ASSERT_EQ(got.size(), 2u);
    for (size_t i = 0; i < 2; ++i) relay_test::expect_close(got[i], want[i], 1e-4);
  };
  auto masters = [](const Built& b) {
    std::multiset<std::string> m;
    for (auto& k : b.kernels) m.insert(k.master_op);
    return m;
  };
  // The 3x3 layer stays a conv2d_NCHWc (not Winograd), as the tuning log below leaves it.
  BuildOptions direct;
  direct.winograd = false;
  {
    Built b = build(f, "llvm", {}, direct);
    auto m = masters(b);
    if (topi::cpu::fp32_lanes() >= 8) {
      EXPECT_EQ(m.count("nn.conv2d"), 1u);
      EXPECT_EQ(m.count("nn.contrib_conv2d_NCHWc"), 1u);
    }
    expect_both(b);
  }
  auto tasks = extract_tasks(f, "llvm");
  EXPECT_EQ(weight_of(tasks, "conv2d_NCHWc.x86"), 2);

  // A record of the 1x1 layer's conv2d_NCHWc.x86 task with blocks 2 / 1.
  topi::nn::Conv2dAttrs a;
  Json wl = topi::cpu::conv2d_nchwc_workload({1, 58, 14, 14}, {co, 58, 1, 1}, a);
  autotune::Task task("conv2d_NCHWc.x86", Json(wl.begin() + 1, wl.end()), "llvm");
  const int64_t pick = relay_test::find_config(task, [](const autotune::ConfigEntity& c) {
    return c.split("tile_ic").size.back() == 2 && c.split("tile_oc").size.back() == 1;
  });
  ASSERT_GE(pick, 0);
  autotune::ApplyHistoryBest best = relay_test::one_record(task, pick);
  autotune::DispatchScope scope(best);
  Built b = build(f, "llvm", {}, direct);
  EXPECT_EQ(masters(b).count("nn.contrib_conv2d_NCHWc"), 2u);
  // With Winograd on, the untuned 3x3 layer runs it, the tuned 1x1 one its config.
  {
    WarningCapture warnings;
    Built w = build(f, "llvm");
    EXPECT_EQ(masters(w).count("nn.contrib_conv2d_NCHWc"), 1u);
    EXPECT_EQ(masters(w).count("nn.contrib_conv2d_winograd_NCHWc"), 1u);
    expect_both(w);
    for (auto& m : warnings.messages()) EXPECT_EQ(m.find("instead of Winograd"), std::string::npos);
  }
  expect_both(b);
  // A record for the 3x3 layer too (TVM's rule: a tuned config keeps its direct kernel): the
  // build warns, once, that it displaces Winograd; not under --disable-winograd.
  Json wl3 = topi::cpu::conv2d_nchwc_workload({1, 58, 14, 14}, {32, 58, 3, 3},
                                              topi::nn::Conv2dAttrs{{1, 1}, {1, 1}});
  autotune::Task task3("conv2d_NCHWc.x86", Json(wl3.begin() + 1, wl3.end()), "llvm");
  autotune::MeasureResult r;
  r.costs = {1e-4};
  std::vector<autotune::Record> recs = {
      autotune::make_record(task, task.config(pick), r),
      autotune::make_record(task3, task3.config(task3.config_space().size() - 1), r)};
  autotune::ApplyHistoryBest both(recs);
  autotune::DispatchScope scope2(both);
  for (bool on : {true, false}) {
    WarningCapture warnings;
    BuildOptions o;
    o.winograd = on;
    Built d = build(f, "llvm", {}, o);
    EXPECT_EQ(masters(d).count("nn.contrib_conv2d_NCHWc"), 2u);
    int n = 0;
    for (auto& m : warnings.messages()) n += m.find("1 3x3 stride-1 conv layer(s) run") == 0;
    EXPECT_EQ(n, on ? 1 : 0);
    expect_both(d);
  }
}

// The same half-vector 1x1 layer on a blocked input (the 3x3 conv before it is blocked) is
// blocked too, rather than unpacked to NCHW, run, and packed again: both convs are
// conv2d_NCHWc and no layout_transform runs between them (MnasNet-0.5's 16 -> 8 layer).
TEST(RelayExtractTasks, HalfVectorOneByOneConvOnABlockedInputIsBlocked) {
  using namespace minitvm;
  using namespace minitvm::relay;
  using relay_test::T;
  if (topi::cpu::fp32_lanes() < 8) GTEST_SKIP() << "blocks need 8 or 16 lanes";
  const int64_t co = topi::cpu::fp32_lanes() >= 16 ? 17 : 9;
  auto x = var("data", T({1, 32, 14, 14}));
  auto w1 = constant(relay::testing::random_uniform({32, 32, 3, 3}, -1, 1, 8));
  auto w2 = constant(relay::testing::random_uniform({co, 32, 1, 1}, -1, 1, 9));
  auto y = nn::relu(nn::conv2d(x, w1, {.padding = {1}}));
  Function f({x}, nn::relu(nn::conv2d(y, w2, {})));
  auto input = relay::testing::random_uniform({1, 32, 14, 14}, -1, 1, 10);
  auto want = reference_run(f, {{"data", input}});
  BuildOptions direct;
  direct.winograd = false;
  Built b = build(f, "llvm", {}, direct);
  std::multiset<std::string> m;
  for (auto& k : b.kernels) m.insert(k.master_op);
  EXPECT_EQ(m.count("nn.conv2d"), 0u);
  EXPECT_EQ(m.count("nn.contrib_conv2d_NCHWc"), 2u);
  // layout_transforms: the input packed, the output unpacked; none between the convs
  EXPECT_EQ(m.count("layout_transform"), 2u);
  relay_test::expect_close(relay_test::run_graph(b, {{"data", input}})[0], want[0], 1e-4);
}
