// Dispatch: best-record rule, query order, nested contexts, fallback warnings and reference-log
// fallback.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/fallback.h"
#include "minitvm/autotune/tophub.h"
#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"
#include "minitvm/topi/template_spaces.h"
#include "test_util.h"

using namespace minitvm;
using namespace minitvm::autotune;
using minitvm::autotune::testing::repo;

namespace {
const Json kWorkload = Json::parse(
    R"(["conv2d", [1, 8, 8, 8, "float32"], [8, 8, 3, 3, "float32"], [1, 1], [1, 1], [1, 1], "NCHW", "float32"])");

Record make(const std::string& target, double cost, int error_no = 0,
            const std::string& tkey = "direct", int64_t index = 0) {
  Record r;
  r.version = 0.1;
  r.input.target_str = target;
  r.input.target = parse_target(target);
  // Not a template minitvm knows: these records test the ranking, their single knob "k" is not
  // checked against a space (a real task name would be, and "k" is no conv2d knob).
  r.input.task_name = "test_ranking_task";
  r.input.workload = kWorkload;
  r.input.config.index = index;
  r.input.config.template_key = tkey;
  r.input.config.set("k", OtherOptionEntity{index});
  r.result.costs = {cost, cost};
  r.result.error_no = error_no;
  return r;
}
}  // namespace

TEST(Dispatch, BestRecordRuleTiesAndErrors) {
  ApplyHistoryBest best(
      {make("cuda -model=a", 2.0, 0, "direct", 1), make("cuda -model=a", 1.0, 4, "direct", 2),
       make("cuda -model=a", 2.0, 0, "direct", 3), make("cuda -model=a", 1.5, 0, "winograd", 4),
       make("cuda -model=a", 1.5, 0, "direct", 5)});
  auto cfg = best.query(parse_target("cuda -model=a"), kWorkload);
  // error record (1.0) ignored; ties keep the earlier record; winograd competes with direct
  EXPECT_EQ(cfg->index, 4);
  EXPECT_EQ(cfg->template_key, "winograd");
  EXPECT_EQ(best.num_records(), 4u);
  // the same object is returned by every query
  EXPECT_EQ(best.query(parse_target("cuda"), kWorkload).get(), cfg.get());
}

TEST(Dispatch, QueryOrderModelThenKeysThenOuter) {
  ApplyHistoryBest best({make("cuda -model=titanx", 2.0, 0, "direct", 1),
                         make("cuda -model=1080ti", 1.0, 0, "direct", 2),
                         make("cuda -model=unknown", 0.5, 0, "direct", 3)});
  EXPECT_EQ(best.query(parse_target("cuda -model=titanx"), kWorkload)->index, 1);  // model first
  EXPECT_EQ(best.query(parse_target("cuda -model=1080ti"), kWorkload)->index, 2);
  // 'unknown' is never a model key: it resolves through the 'cuda' key to the fastest overall
  EXPECT_EQ(best.query(parse_target("cuda -model=unknown"), kWorkload)->index, 3);
  EXPECT_EQ(best.query(parse_target("cuda"), kWorkload)->index, 3);
  EXPECT_EQ(best.query(parse_target("cuda -model=v100"), kWorkload)->index, 3);
  // key order: an opencl target reaches the 'gpu' key
  EXPECT_EQ(best.query(parse_target("opencl"), kWorkload)->index, 3);
  // an llvm target has only the 'cpu' key: not found here, so the root fallback answers
  WarningCapture w;
  EXPECT_TRUE(best.query(parse_target("llvm"), kWorkload)->is_fallback());
  const Record* rec = best.best_record(parse_target("cuda -model=titanx"), kWorkload);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->input.config.index, 1);
}

TEST(Dispatch, NestedScopesAndUpdate) {
  ApplyHistoryBest outer({make("cuda -model=a", 1.0, 0, "direct", 7)});
  ApplyHistoryBest inner;  // knows nothing
  Json other = kWorkload;
  other[1][1] = 16;
  ConfigEntity fixed;
  fixed.index = 42;
  ApplyConfig apply(fixed);
  auto t = parse_target("cuda -model=a");
  {
    DispatchScope s1(outer);
    EXPECT_EQ(&DispatchContext::current(), &outer);
    {
      DispatchScope s2(inner);
      EXPECT_EQ(DispatchContext::current().query(t, kWorkload)->index,
                7);                       // falls through to outer
      inner.update(t, kWorkload, fixed);  // user-defined wins inside
      EXPECT_EQ(DispatchContext::current().query(t, kWorkload)->index, 42);
      {
        DispatchScope s3(apply);
        EXPECT_EQ(DispatchContext::current().query(t, other)->index, 42);
      }
      EXPECT_THROW(DispatchScope again(outer), CompileError);
    }
    EXPECT_EQ(&DispatchContext::current(), &outer);
  }
  EXPECT_EQ(&DispatchContext::current(), &root_fallback_context());
}

TEST(Dispatch, FallbackWarnsOncePerTargetAndWorkloadAndSummarises) {
  FallbackContext& root = root_fallback_context();
  root.reset();
  WarningCapture w;
  auto t = parse_target("cuda -model=unknown");
  auto c1 = DispatchContext::current().query(t, kWorkload);
  auto c2 = DispatchContext::current().query(t, kWorkload);
  EXPECT_TRUE(c1->is_fallback());
  EXPECT_EQ(c1.get(), c2.get());  // cached
  DispatchContext::current().query(parse_target("cuda"),
                                   kWorkload);  // other target string: new entry
  ASSERT_EQ(w.messages().size(), 2u);
  EXPECT_EQ(w.messages()[0],
            "Cannot find config for target=cuda -model=unknown, workload=('conv2d', (1, 8, 8, 8, "
            "'float32'), (8, 8, 3, 3, "
            "'float32'), (1, 1), (1, 1), (1, 1), 'NCHW', 'float32'). A fallback configuration is "
            "used, which may bring "
            "great performance regression.");
  EXPECT_EQ(root.fallback_count(), 2u);
  std::ostringstream os;
  root.print_summary(os);
  EXPECT_EQ(os.str().substr(0, 46), "2 workload(s) used a fallback configuration:\n ");
  root.clear_fallback_cache(t, kWorkload);
  EXPECT_NE(DispatchContext::current().query(t, kWorkload).get(), c1.get());
  EXPECT_EQ(w.messages().size(), 2u);  // still warned only once
  root.reset();
}

// TopHub cuda_v0.06, target 'cuda': winners per model.
TEST(Dispatch, CudaV006WinnersForPlainCuda) {
  ApplyHistoryBest best;
  best.load(repo("tophub/cuda_v0.06.log"));
  auto keys = best.workloads_for_key("cuda");
  EXPECT_EQ(keys.size(), 342u);
  std::map<std::string, int> by_model;
  std::map<std::string, int> by_model_tkey;
  for (const auto& k : keys) {
    const Record* r = best.best_for_key("cuda", k);
    ASSERT_NE(r, nullptr);
    ++by_model[r->input.target.model()];
    ++by_model_tkey[r->input.target.model() + "/" + r->input.config.template_key];
  }
  EXPECT_EQ(by_model["1080ti"], 160);
  EXPECT_EQ(by_model["jetson-nano"], 165);
  EXPECT_EQ(by_model["tx2"], 16);
  EXPECT_EQ(by_model["v100"], 1);
  EXPECT_EQ(by_model_tkey["1080ti/direct"], 141);
  EXPECT_EQ(by_model_tkey["1080ti/winograd"], 19);
  EXPECT_EQ(by_model_tkey["tx2/winograd"], 3);
  Json w = Json::parse(
      R"(["conv2d", [1, 2048, 8, 8, "float32"], [192, 2048, 1, 1, "float32"], [1, 1], [0, 0], [1, 1], "NCHW", "float32"])");
  const Record* r = best.best_record(parse_target("cuda"), w);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->input.target.model(), "1080ti");
  EXPECT_EQ(r->input.config.index, 8797896);
  EXPECT_NEAR(r->result.mean_cost(), 3.18e-05, 0.01e-05);
  EXPECT_EQ(best.best_record(parse_target("cuda -model=titanx"), w)->input.target.model(),
            "titanx");
}

TEST(Fallback, SplitExamples) {
  EXPECT_EQ(fallback_split(128, {-1, 8, 4}), (std::vector<int64_t>{4, 8, 4}));
  EXPECT_EQ(fallback_split(49, {-1, 8, 4}), (std::vector<int64_t>{7, 7, 1}));
  EXPECT_EQ(fallback_split(192, {-1, 1, 32, 1}), (std::vector<int64_t>{6, 1, 32, 1}));
  EXPECT_THROW(fallback_split(8, {-1, 0}), CompileError);
}

// TVM's fallback rule, worked by hand: conv2d 1x96x20x20, 128 3x3 filters, s1 p1, titanx,
// cuda_v0.06.
TEST(Fallback, TitanxWorkedExample) {
  auto log = load_records(repo("tophub/cuda_v0.06.log"));
  auto ref =
      select_reference_records(log, "titanx", "conv2d", "direct", ReferenceModelRule::LastRecord);
  EXPECT_EQ(ref.size(), 132u);
  Json w = Json::parse(
      R"(["conv2d", [1, 96, 20, 20, "float32"], [128, 96, 3, 3, "float32"], [1, 1], [1, 1], [1, 1], "NCHW", "float32"])");
  FallbackConfigEntity cfg;
  topi::define_conv2d_direct_space(cfg, *topi::conv_geometry(w),
                                   parse_target("cuda -model=titanx"));
  const Record* best = fallback_with_reference_log(cfg, ref);
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(best->input.config.index, 10006142);
  EXPECT_DOUBLE_EQ(reference_score(cfg.space(), best->input.config), 4.875);
  EXPECT_EQ(cfg.split("tile_f").size, (std::vector<int64_t>{8, 1, 16, 1}));
  EXPECT_EQ(cfg.split("tile_y").size, (std::vector<int64_t>{20, 1, 1, 1}));
  EXPECT_EQ(cfg.split("tile_x").size, (std::vector<int64_t>{4, 1, 5, 1}));
  EXPECT_EQ(cfg.split("tile_rc").size, (std::vector<int64_t>{16, 6}));
  EXPECT_EQ(cfg.split("tile_ry").size, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(cfg.split("tile_rx").size, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(cfg.knob_int("auto_unroll_max_step"), 512);
  EXPECT_EQ(cfg.knob_int("unroll_explicit"), 0);
}

TEST(Fallback, ReferenceModelRules) {
  auto log = load_records(repo("tophub/cuda_v0.06.log"));
  // v0.6 rule: the file ends with a v100 conv2d_transpose record, so unknown models get nothing
  EXPECT_TRUE(
      select_reference_records(log, "unknown", "conv2d", "direct", ReferenceModelRule::LastRecord)
          .empty());
  // v0.7 rule: the model with most records (jetson-nano, 191)
  auto ref = select_reference_records(log, "unknown", "conv2d", "direct",
                                      ReferenceModelRule::MostFrequent);
  ASSERT_FALSE(ref.empty());
  for (auto& r : ref) EXPECT_EQ(r.input.target.model(), "jetson-nano");
  // no reference: the config stays at entity 0
  FallbackConfigEntity cfg;
  Json w = Json::parse(
      R"(["conv2d", [1, 96, 20, 20, "float32"], [128, 96, 3, 3, "float32"], [1, 1], [1, 1], [1, 1], "NCHW", "float32"])");
  topi::define_conv2d_direct_space(cfg, *topi::conv_geometry(w), parse_target("cuda"));
  EXPECT_EQ(fallback_with_reference_log(cfg, {}), nullptr);
  EXPECT_EQ(cfg.split("tile_f").size, (std::vector<int64_t>{-1, 1, 1, 1}));
}

TEST(Tophub, ContextLoadsPackageFileAndExtras) {
  EXPECT_EQ(tophub::package_file("cuda", "v0.6"), "cuda_v0.06.log");
  EXPECT_EQ(tophub::package_file("nvptx", "v0.7"), "cuda_v0.09.log");
  EXPECT_EQ(tophub::package_file("cuda", "v0.8"), "cuda_v0.10.log");
  EXPECT_EQ(tophub::package_file("llvm", "v0.6"), "llvm_v0.03.log");
  EXPECT_EQ(tophub::alias("vulkan"), "opencl");
  auto best = tophub::context("cuda -model=titanx", {repo("tophub/seed/vgg16_bs_1.log")});
  EXPECT_EQ(best->num_records(), 688u + 12u);
  Json w = Json::parse(
      R"(["conv2d", [1, 2048, 8, 8, "float32"], [192, 2048, 1, 1, "float32"], [1, 1], [0, 0], [1, 1], "NCHW", "float32"])");
  EXPECT_EQ(best->query(parse_target("cuda -model=titanx"), w)->index, 8797896);
  tophub::Options v07;
  v07.tvm_version = "v0.7";
  WarningCapture cap;  // cuda_v0.09.log:688 is skipped with a warning
  auto b7 = tophub::context("cuda", {}, v07);
  EXPECT_EQ(b7->num_records(), 687u);
  ASSERT_EQ(cap.messages().size(), 1u);
  EXPECT_NE(cap.messages()[0].find("cuda_v0.09.log:688"), std::string::npos);
  auto cpu = tophub::context("llvm -mcpu=skylake-avx512");
  EXPECT_EQ(cpu->num_records(),
            35u + 16u);  // llvm_v0.03.log + the extra package pool_llvm_v0.03.log
  auto none = tophub::context("opencl -device=mali");  // package not shipped: empty, no error
  EXPECT_EQ(none->num_records(), 0u);
}

TEST(Tophub, ReferenceLogFromPackage) {
  auto ref = tophub::load_reference_log("cuda", "titanx", "conv2d", "direct");
  EXPECT_EQ(ref.size(), 132u);
  tophub::Options v06;
  v06.reference_rule = ReferenceModelRule::LastRecord;
  EXPECT_TRUE(tophub::load_reference_log("cuda", "unknown", "depthwise_conv2d_nchw", "direct", v06)
                  .empty());
}

TEST(Tophub, RootOverrideAndNone) {
  std::string dir = ::testing::TempDir() + "/tophub_root";
  std::filesystem::create_directories(dir);
  {
    std::ofstream idx(dir + "/index.json");
    idx << R"({"tvm_versions": {"v0.6": {"cuda": "mine.log"}}})";
    std::ofstream log(dir + "/mine.log");
    log << "# my log\n" << encode_record(make("cuda -model=x", 1.0, 0, "direct", 5)) << "\n";
  }
  setenv("MINITVM_TOPHUB_ROOT", dir.c_str(), 1);
  EXPECT_EQ(tophub::root(), dir);
  auto best = tophub::context("cuda");
  EXPECT_EQ(best->num_records(), 1u);
  EXPECT_EQ(best->query(parse_target("cuda"), kWorkload)->index, 5);
  setenv("MINITVM_TOPHUB_ROOT", "NONE", 1);
  EXPECT_EQ(tophub::root(), "");
  EXPECT_EQ(tophub::context("cuda")->num_records(), 0u);
  unsetenv("MINITVM_TOPHUB_ROOT");
  EXPECT_EQ(tophub::root(), repo("tophub"));
}
