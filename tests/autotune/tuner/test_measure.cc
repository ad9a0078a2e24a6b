// Real (llvm) measurement: correct candidates are timed, failing ones become failed records with
// TVM's error numbers, and a tiny end-to-end tune writes a log ApplyHistoryBest loads.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/tuner_session.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/support/error.h"

using namespace minitvm;
using namespace minitvm::autotune;

namespace {

// mode 0: C = A + 1 (correct); 1: InvalidConfig in the template; 2: lowering fails;
// 3: C = A + 2 (wrong answer); 4: lowering takes 8 s (build timeout).
TemplateResult failing_template(ConfigEntity& cfg, const Json& args) {
  cfg.define_knob("mode", {Json(0), Json(1), Json(2), Json(3), Json(4)});
  int64_t mode = cfg.knob_int("mode");
  MINITVM_CONFIG_CHECK(mode != 1) << "mode 1 is not a valid config";
  int64_t n = args.at(0).get<int64_t>();
  te::Tensor A = te::placeholder({Expr(n)}, DataType::Float(32), "A");
  float add = mode == 3 ? 2.0f : 1.0f;
  te::Tensor C = te::compute(
      {Expr(n)}, [&](Var i) { return A(i) + add; }, "C");
  TemplateResult r;
  r.schedule = te::create_schedule({C.op()});
  r.args = {A, C};
  r.bytes = 8.0 * n;
  if (mode == 2)
    r.lower_options.custom_passes.push_back({"fail", [](const ir::Stmt&) -> ir::Stmt {
                                               throw CompileError("injected lowering failure");
                                             }});
  if (mode == 4)
    r.lower_options.custom_passes.push_back({"slow", [](const ir::Stmt& s) {
                                               std::this_thread::sleep_for(std::chrono::seconds(8));
                                               return s;
                                             }});
  return r;
}
MINITVM_REGISTER_TEMPLATE("test_failing.llvm", failing_template);

MeasureOption fast_option() {
  MeasureOption o;
  o.number = 1;
  o.repeat = 1;
  o.min_repeat_ms = 0;
  o.n_parallel = 2;
  o.check_correctness = true;
  return o;
}

}  // namespace

TEST(Measure, MatmulCandidatesAreCheckedAndTimed) {
  Task task("matmul.llvm", Json::array({32, 48, 16}), "llvm");
  LocalMeasurer m(task, fast_option());
  EXPECT_TRUE(m.timed());
  std::vector<ConfigEntity> cfgs = {task.config(0), task.config(task.config_space().size() - 1),
                                    task.config(37)};
  std::vector<MeasureOutcome> outs = m.measure(cfgs);
  ASSERT_EQ(outs.size(), 3u);
  for (size_t i = 0; i < outs.size(); ++i) {
    EXPECT_EQ(outs[i].result.error_no, 0) << outs[i].error;
    ASSERT_EQ(outs[i].result.costs.size(), 1u);
    EXPECT_GT(outs[i].result.costs[0], 0);
    EXPECT_LT(outs[i].result.costs[0], 1.0);
    EXPECT_GT(outs[i].result.timestamp, 1.6e9);
    EXPECT_EQ(outs[i].config.index, cfgs[i].index);
  }
}

TEST(Measure, FailuresBecomeRecordsWithTvmErrorNumbers) {
  Task task("test_failing.llvm", Json::array({100}), "llvm");
  ASSERT_EQ(task.config_space().size(), 5);
  EXPECT_EQ(task.throughput_unit(), "GB/s");
  MeasureOption o = fast_option();
  // Long enough for the other modes' builds on a loaded 2-core machine (a clean-clone test run
  // beside a sanitizer build once took more than 1 s for mode 0), well short of mode 4's 8 s.
  o.build_timeout_s = 3.0;
  LocalMeasurer m(task, o);
  std::vector<ConfigEntity> cfgs;
  for (int64_t i = 0; i < 5; ++i) cfgs.push_back(task.config(i));
  std::vector<MeasureOutcome> outs = m.measure(cfgs);
  ASSERT_EQ(outs.size(), 5u);
  EXPECT_EQ(outs[0].result.error_no, 0) << outs[0].error;
  EXPECT_EQ(outs[1].result.error_no, 1);  // INSTANTIATION_ERROR
  EXPECT_NE(outs[1].error.find("mode 1 is not a valid config"), std::string::npos);
  EXPECT_EQ(outs[2].result.error_no, 2);  // COMPILE_HOST
  EXPECT_NE(outs[2].error.find("injected lowering failure"), std::string::npos);
  EXPECT_EQ(outs[3].result.error_no, 5);  // WRONG_ANSWER
  EXPECT_EQ(outs[4].result.error_no, 6);  // BUILD_TIMEOUT
  for (int i = 1; i < 5; ++i) EXPECT_EQ(outs[i].result.costs, std::vector<double>{1e9});
  // In a tuning run none of them can become the best.
  TuneSessionOptions so;
  so.tuner = "grid";
  so.n_trial = 4;  // leave out the slow one
  so.progress = false;
  so.measure = fast_option();
  TuneSummary s = tune_task(task, so);
  EXPECT_EQ(s.measured, 4);
  EXPECT_EQ(s.failed, 3);
  ASSERT_TRUE(s.best_config.has_value());
  EXPECT_EQ(s.best_config->index, 0);
}

TEST(Measure, TinyRealTuneWritesALoadableLog) {
  Task task("matmul.llvm", Json::array({64, 64, 64}), "llvm");
  std::string log = ::testing::TempDir() + "minitvm_tuner_real.log";
  std::remove(log.c_str());
  TuneSessionOptions o;
  o.tuner = "xgb";
  o.n_trial = 6;
  o.batch_size = 3;
  o.log_file = log;
  o.progress = false;
  o.measure = fast_option();
  TuneSummary s = tune_task(task, o);
  EXPECT_EQ(s.measured, 6);
  EXPECT_EQ(s.failed, 0);
  ASSERT_TRUE(s.best_config.has_value());
  EXPECT_GT(s.best_throughput, 0);
  ApplyHistoryBest best;
  best.load(log);
  ConfigPtr cfg = best.query(task.target(), task.workload());
  ASSERT_TRUE(cfg);
  EXPECT_EQ(cfg->index, s.best_config->index);
  // The best config rebuilds and computes the right product.
  TemplateResult r = task.instantiate(*cfg);
  EXPECT_EQ(r.args.size(), 3u);
}

TEST(Measure, CudaWithoutDeviceIsAClearError) {
  if (runtime::cuda_available()) GTEST_SKIP() << "a CUDA device exists here";
  Task task("test_failing.llvm", Json::array({100}), "cuda");
  try {
    LocalMeasurer m(task, fast_option());
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("cuda -emulate"), std::string::npos) << e.what();
  }
}
