// Task registry, record writing (0.2 / 0.1), ApplyHistoryBest on our logs, resume, pick_best,
// progress bar and SVG text. Synthetic measurer: nothing is compiled.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "autotune/tuner/synthetic.h"
#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/json_text.h"
#include "minitvm/autotune/tuner_log.h"
#include "minitvm/autotune/tuner_session.h"
#include "minitvm/devtools/tuner_plot.h"
#include "minitvm/support/logging.h"

using namespace minitvm;
using namespace minitvm::autotune;
using namespace minitvm::autotune::testing;

namespace {

// A template that only defines the synthetic knobs (its schedule is never built here).
MINITVM_REGISTER_TEMPLATE("test_synthetic.llvm", [](ConfigEntity& cfg, const Json& args) {
  define_synthetic_space(cfg);
  TemplateResult r;
  r.flop = 1e6 * args.at(0).get<double>();
  return r;
});

Task synthetic_task() {
  return Task("test_synthetic.llvm", Json::array({2, "float32"}), "llvm -mcpu=core-avx2");
}

// A real TVM v0.7 record (tophub-real/cuda_v0.09.log, first line): the field layout we must match.
const char* kTvmLine =
    R"({"input": ["cuda -model=titanx", "conv2d_nchw.cuda", [["TENSOR", [1, 2048, 8, 8], "float32"], ["TENSOR", [192, 2048, 1, 1], "float32"], [1, 1], [0, 0, 0, 0], [1, 1], "float32"], {}], "config": {"index": 8797896, "code_hash": null, "entity": [["tile_f", "sp", [6, 1, 32, 1]], ["tile_y", "sp", [4, 1, 2, 1]], ["tile_x", "sp", [1, 1, 8, 1]], ["tile_rc", "sp", [64, 32]], ["tile_rx", "sp", [1, 1]], ["tile_ry", "sp", [1, 1]], ["auto_unroll_max_step", "ot", 1500], ["unroll_explicit", "ot", 1]]}, "result": [[5.69732536806342e-05], 0, 14.116215467453003, 1535423916.7184713], "version": 0.2, "tvm_version": "0.7.dev0"})";

/** Same keys in the same order and the same JSON types, recursively (arrays: element 0 pattern). */
void expect_same_layout(const Json& ours, const Json& theirs, const std::string& where) {
  ASSERT_EQ(ours.type(), theirs.type()) << where;
  if (ours.is_object()) {
    std::vector<std::string> a, b;
    for (auto it = ours.begin(); it != ours.end(); ++it) a.push_back(it.key());
    for (auto it = theirs.begin(); it != theirs.end(); ++it) b.push_back(it.key());
    ASSERT_EQ(a, b) << where;
    for (const auto& k : a) expect_same_layout(ours[k], theirs[k], where + "." + k);
  }
}

}  // namespace

TEST(Task, RegistryAndSpace) {
  EXPECT_NE(find_template("matmul.llvm"), nullptr);
  EXPECT_NE(find_template("test_synthetic.llvm"), nullptr);
  Task t = synthetic_task();
  EXPECT_EQ(t.config_space().size(), 126);
  EXPECT_EQ(t.workload().dump(), R"(["test_synthetic.llvm",2,"float32"])");
  EXPECT_EQ(t.workload_key(), "('test_synthetic.llvm', 2, 'float32')");
  EXPECT_DOUBLE_EQ(t.flop(), 2e6);
  EXPECT_EQ(t.throughput_unit(), "GFLOP/s");
  EXPECT_DOUBLE_EQ(t.throughput(1e-3), 2.0);
  EXPECT_THROW(Task("no_such.llvm", Json::array(), "llvm"), CompileError);
}

TEST(Task, MatmulTemplateSpace) {
  Task t("matmul.llvm", Json::array({512, 512, 512}), "llvm");
  EXPECT_EQ(t.config_space().size(), 6 * 7 * 7);
  EXPECT_DOUBLE_EQ(t.flop(), 2.0 * 512 * 512 * 512);
  ASSERT_EQ(t.config_space().knobs().size(), 3u);
  EXPECT_EQ(t.config_space().knobs()[0].name, "tile_y");
  EXPECT_THROW(Task("matmul.llvm", Json::array({512, -1, 512}), "llvm"), CompileError);
}

TEST(Task, ExtractTasksFromANetwork) {
  Json net = Json::parse(R"({"layers": [
      {"op": "matmul", "args": [64, 64, 64]},
      {"op": "matmul", "args": [64, 64, 64]},
      {"template": "test_synthetic.llvm", "args": [3]},
      {"op": "depthwise_conv2d", "args": [[1, 3, 8, 8]]},
      {"op": "matmul", "args": [32, 64, 16]}]})");
  std::vector<std::string> skipped;
  WarningCapture cap;
  std::vector<Task> tasks = extract_tasks(net, "llvm", &skipped);
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks[0].name(), "matmul.llvm");
  EXPECT_EQ(tasks[1].name(), "test_synthetic.llvm");
  EXPECT_EQ(tasks[2].args().dump(), "[32,64,16]");
  EXPECT_EQ(tasks[2].config_space().size(), 6 * 7 * 5);  // K = 16: inner 1, 2, 4, 8, 16
  ASSERT_EQ(skipped.size(), 1u);                         // no llvm template for depthwise conv2d
  EXPECT_EQ(skipped[0], "depthwise_conv2d.llvm");
  EXPECT_EQ(cap.messages().size(), 1u);
  EXPECT_THROW(extract_tasks(Json::parse(R"({"layers": [{"args": []}]})"), "llvm"), CompileError);
}

TEST(TuneLog, RecordsAreTvm02LinesThatApplyHistoryBestLoads) {
  Task task = synthetic_task();
  std::string log = temp_path("v02.log");
  TuneSessionOptions o;
  o.tuner = "grid";
  o.n_trial = 30;
  o.log_file = log;
  o.progress = false;
  SyntheticMeasurer m;
  TuneSummary s = tune_task(task, o, m);
  EXPECT_EQ(s.measured, 30);
  EXPECT_EQ(s.resumed, 0);
  EXPECT_EQ(s.failed, 1);  // index 0 is invalid
  std::vector<std::string> lines = read_lines(log);
  ASSERT_EQ(lines.size(), 30u);
  Json tvm = Json::parse(kTvmLine);
  for (size_t i = 0; i < lines.size(); ++i) {
    Json j = Json::parse(lines[i]);
    expect_same_layout(j, tvm, "line " + std::to_string(i + 1));
    EXPECT_EQ(j["input"][0], "llvm -mcpu=core-avx2");
    EXPECT_EQ(j["input"][1], "test_synthetic.llvm");
    EXPECT_EQ(j["config"]["index"], static_cast<int64_t>(i));
    Record r = decode_record(lines[i]);     // our own strict decoder accepts it
    EXPECT_EQ(encode_record(r), lines[i]);  // and it is Python json.dumps text
  }
  // Failed record: error 1 with cost 1e9, as TVM writes failures.
  Json first = Json::parse(lines[0]);
  EXPECT_EQ(first["result"][1], 1);
  EXPECT_EQ(first["result"][0][0].get<double>(), 1e9);
  EXPECT_NE(lines[0].find("[[1000000000.0], 1,"), std::string::npos);

  ApplyHistoryBest best;
  best.load(log);
  ConfigPtr cfg = best.query(task.target(), task.workload());
  ASSERT_TRUE(cfg);
  EXPECT_FALSE(cfg->is_fallback());
  ASSERT_TRUE(s.best_config.has_value());
  EXPECT_EQ(cfg->index, s.best_config->index);
  EXPECT_EQ(cfg->split("tile_x").size, s.best_config->split("tile_x").size);
}

TEST(TuneLog, Version01OnRequest) {
  Task task = synthetic_task();
  std::string log = temp_path("v01.log");
  TuneSessionOptions o;
  o.tuner = "random";
  o.n_trial = 5;
  o.log_file = log;
  o.log_version = 0.1;
  o.progress = false;
  SyntheticMeasurer m;
  tune_task(task, o, m);
  std::vector<std::string> lines = read_lines(log);
  ASSERT_EQ(lines.size(), 5u);
  for (const auto& l : lines) {
    Json j = Json::parse(l);
    EXPECT_EQ(j["v"], 0.1);
    EXPECT_EQ(j["i"][4].dump(), R"(["test_synthetic.llvm",2,"float32"])");
    EXPECT_EQ(j["i"][5]["t"], "direct");
    EXPECT_EQ(decode_record(l).version, 0.1);
  }
  // Resume reads 0.1 logs too.
  EXPECT_EQ(history_from_log(task, log).size(), 5u);
}

TEST(TuneLog, ResumeNeverRemeasures) {
  Task task = synthetic_task();
  std::string log = temp_path("resume.log");
  TuneSessionOptions o;
  o.tuner = "xgb";
  o.n_trial = 20;
  o.log_file = log;
  o.progress = false;
  SyntheticMeasurer first;
  tune_task(task, o, first);
  ASSERT_EQ(read_lines(log).size(), 20u);
  // A run killed mid-line leaves a partial record: it is skipped (with a warning) on resume.
  { std::ofstream(log, std::ios::app) << R"({"input": ["llvm -mcpu=core-avx2", "test_sy)"; }
  std::ofstream(log, std::ios::app) << "\n";
  o.n_trial = 40;
  SyntheticMeasurer second;
  WarningCapture cap;
  TuneSummary s = tune_task(task, o, second);
  EXPECT_EQ(s.resumed, 20);
  EXPECT_EQ(s.measured, 20);
  for (const auto& [i, n] : second.measured_count)
    EXPECT_EQ(first.measured_count.count(i), 0u) << i;
  EXPECT_EQ(s.best_curve.size(), 40u);
  // Nothing left to do: a third run with the same budget measures nothing.
  SyntheticMeasurer third;
  EXPECT_EQ(tune_task(task, o, third).measured, 0);
  EXPECT_TRUE(third.order.empty());
  // A different target is a different task: nothing of the log is reused.
  Task other("test_synthetic.llvm", Json::array({2, "float32"}), "llvm");
  EXPECT_TRUE(history_from_log(other, log).empty());
}

TEST(TuneLog, PickBestKeepsOneRecordPerWorkload) {
  Task a = synthetic_task();
  Task b("test_synthetic.llvm", Json::array({3, "float32"}), "llvm -mcpu=core-avx2");
  std::string log = temp_path("all.log"), out = temp_path("best.log");
  for (const Task* t : {&a, &b}) {
    TuneSessionOptions o;
    o.tuner = "random";
    o.n_trial = 40;
    o.log_file = log;
    o.progress = false;
    SyntheticMeasurer m;
    tune_task(*t, o, m);
  }
  EXPECT_EQ(pick_best(log, out), 2u);
  std::vector<Record> all = load_records(log), best = load_records(out);
  ASSERT_EQ(best.size(), 2u);
  for (const Record& r : best) {
    EXPECT_EQ(r.result.error_no, 0);
    for (const Record& x : all)
      if (x.input.args == r.input.args && x.result.error_no == 0)
        EXPECT_LE(r.result.mean_cost(), x.result.mean_cost());
  }
}

TEST(Progress, RendersBarAndIsQuietWhenDisabled) {
  std::ostringstream os;
  ProgressBar bar(
      os, true, [](double c) { return 2e6 / c / 1e9; }, "GFLOP/s");
  EXPECT_EQ(bar.render(10, 40, 1e-3, 30.0),
            "[=======>                      ] 10/40  best 2.00 GFLOP/s  elapsed 0:30  ETA 1:30");
  EXPECT_EQ(bar.render(0, 40, 1e30, 0.0).find("best -") != std::string::npos, true);
  std::ostringstream quiet;
  ProgressBar off(quiet, false, nullptr, "GB/s");
  GridSearchTuner t(synthetic_space());
  SyntheticMeasurer m;
  TuneOptions o;
  o.n_trial = 5;
  t.tune(m, o, {off.callback()});
  off.finish(t);
  EXPECT_TRUE(quiet.str().empty());
}

TEST(Plot, SvgHasOnePolylinePerCurve) {
  std::vector<TuningCurve> curves = {{"xgb", {0, 1, 5, 5}}, {"grid", {1, 1, 2, 6, 6, 6}}};
  std::string svg = tuning_curves_svg(curves, "matmul <512>", "best GFLOP/s");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  size_t n = 0;
  for (size_t p = svg.find("<polyline"); p != std::string::npos; p = svg.find("<polyline", p + 1))
    ++n;
  EXPECT_EQ(n, 2u);
  EXPECT_NE(svg.find("matmul &lt;512&gt;"), std::string::npos);
  EXPECT_NE(svg.find(">xgb</text>"), std::string::npos);
  // Records -> curve: best so far in GFLOP/s from the registered template's flop.
  Task task = synthetic_task();
  std::vector<Record> recs;
  for (double c : {2e-3, 1e-3, 4e-3}) {
    MeasureResult r;
    r.costs = {c};
    recs.push_back(make_record(task, task.config(5), r));
  }
  std::string unit;
  TuningCurve c = curve_from_records(recs, "x", &unit);
  EXPECT_EQ(unit, "GFLOP/s");
  ASSERT_EQ(c.best.size(), 3u);
  EXPECT_DOUBLE_EQ(c.best[0], 1.0);
  EXPECT_DOUBLE_EQ(c.best[1], 2.0);
  EXPECT_DOUBLE_EQ(c.best[2], 2.0);
}
