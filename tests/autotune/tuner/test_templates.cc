// The template API as TVM users write it (get_config, define_split on an axis, cfg["k"].apply),
// TVM's CUDA templates registered for tuning (task extraction, records that dispatch in the layer
// builds, emulator-checked tuning, timing refused without a GPU), records of registered templates
// checked against their spaces, and the error summary of a tuning run.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/record.h"
#include "minitvm/autotune/tuner_session.h"
#include "minitvm/codegen/build.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"
#include "minitvm/topi/layer.h"
#include "minitvm/transform/lower.h"

using namespace minitvm;
using namespace minitvm::autotune;

namespace {

// C[M, N] = A[M, K] * B[K, N], written as a TVM template: no config parameter, the knobs defined on
// the schedule's axes and applied with cfg["..."].apply.
TemplateResult tvm_style_matmul(const Json& args) {
  int m = args.at(0).get<int>(), n = args.at(1).get<int>(), k = args.at(2).get<int>();
  te::Tensor A = te::placeholder({Expr(m), Expr(k)}, DataType::Float(32), "A");
  te::Tensor B = te::placeholder({Expr(k), Expr(n)}, DataType::Float(32), "B");
  te::IterVar rk = te::reduce_axis({0, Expr(k)}, "k");
  te::Tensor C = te::compute(
      {Expr(m), Expr(n)}, [&](Var i, Var j) { return te::sum(A(i, rk) * B(rk, j), {rk}); }, "C");
  te::Schedule s = te::create_schedule({C.op()});
  IterVar y = C.op().axis()[0], x = C.op().axis()[1];

  ConfigEntity& cfg = get_config();
  cfg.define_split("tile_y", y);
  cfg.define_split("tile_x", x);
  cfg.define_split("tile_k", rk);
  auto [yo, yi] = cfg["tile_y"].apply<2>(s, C, y);
  auto [xo, xi] = cfg["tile_x"].apply<2>(s, C, x);
  auto [ko, ki] = cfg["tile_k"].apply<2>(s, C, rk);
  cfg.define_reorder("order", {yo, xo, ko, yi, ki, xi}, "candidate",
                     {{0, 1, 2, 3, 4, 5}, {0, 1, 2, 4, 3, 5}});
  cfg["order"].apply(s, C, {yo, xo, ko, yi, ki, xi});
  cfg.define_annotate("ann", {xi}, "try_vec");
  cfg["ann"].apply(s, C, {xi});
  return TemplateResult{s, {A, B, C}, 2.0 * double(m) * n * k};
}
MINITVM_REGISTER_TEMPLATE("test_tvm_matmul.llvm", tvm_style_matmul);

std::string temp_path(const std::string& name) {
  std::string p = ::testing::TempDir() + "minitvm_templates_" + name;
  std::remove(p.c_str());
  return p;
}

std::vector<float> random_vec(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

runtime::NDArray array(const std::vector<int64_t>& shape, const std::vector<float>& v) {
  runtime::NDArray a = runtime::NDArray::empty(shape, DataType::Float(32), Device::cpu());
  a.copy_from_bytes(v.data(), v.size() * sizeof(float));
  return a;
}

int64_t split_inner(const ConfigEntity& c, const std::string& k) {
  return std::get<SplitEntity>(c.get(k)).size.at(1);
}

MeasureOption quick() {
  MeasureOption o;
  o.number = 1;
  o.repeat = 1;
  o.min_repeat_ms = 0;
  o.n_parallel = 2;
  return o;
}

}  // namespace

// ---- item 2: the TVM-style template API ---------------------------------------------------------

TEST(TemplateApi, TunedThenAppliedUnderApplyHistoryBestMatchesNaiveLoops) {
  const int64_t M = 24, N = 32, K = 16;
  const Json args = Json::array({M, N, K});
  Task task("test_tvm_matmul.llvm", args, "llvm");
  // tile_y: factors of 24 (8), tile_x: of 32 (6), tile_k: of 16 (5), order 2, ann 2
  EXPECT_EQ(task.config_space().size(), 8 * 6 * 5 * 2 * 2);
  ASSERT_NE(task.config_space().find("ann"), nullptr);
  EXPECT_EQ(task.config_space().find("ann")->size(), 2u);

  const std::string log = temp_path("tvm_matmul.log");
  TuneSessionOptions o;
  o.tuner = "random";
  o.n_trial = 6;
  o.log_file = log;
  o.progress = false;
  o.measure = quick();
  o.measure.check_correctness = true;
  TuneSummary sum = tune_task(task, o);
  EXPECT_EQ(sum.measured, 6);
  EXPECT_EQ(sum.failed, 0) << sum.error_summary();
  ASSERT_TRUE(sum.best_config.has_value());

  ApplyHistoryBest best;
  best.load(log);
  DispatchScope scope(best);
  AppliedTemplate applied = apply_template("test_tvm_matmul.llvm", args, "llvm");
  EXPECT_FALSE(applied.is_fallback);
  EXPECT_EQ(applied.config.index, sum.best_config->index);
  const int64_t ty = split_inner(applied.config, "tile_y"),
                tx = split_inner(applied.config, "tile_x"),
                tk = split_inner(applied.config, "tile_k");

  ir::PrimFunc f = lower(applied.result.schedule, applied.result.args, "mm");
  std::ostringstream ir;
  ir << f;
  // The splits of the tuned config are the loop extents of the lowered IR.
  // (A split whose outer extent is 1 leaves no outer loop: the random tuner may pick such a
  // config.)
  if (M / ty > 1)
    EXPECT_NE(ir.str().find("for (i0.outer, 0, " + std::to_string(M / ty) + ")"), std::string::npos)
        << ir.str();
  if (K / tk > 1)
    EXPECT_NE(ir.str().find("for (k.outer, 0, " + std::to_string(K / tk) + ")"), std::string::npos)
        << ir.str();
  if (ty > 1)
    EXPECT_NE(ir.str().find("for (i0.inner, 0, " + std::to_string(ty) + ")"), std::string::npos)
        << ir.str();
  (void)tx;

  runtime::Module mod = build(std::vector<ir::PrimFunc>{f}, "llvm");
  std::vector<float> a = random_vec(M * K, 1), b = random_vec(K * N, 2);
  runtime::NDArray A = array({M, K}, a), B = array({K, N}, b),
                   C = array({M, N}, std::vector<float>(M * N, 0));
  mod.get_function("mm")(A, B, C);
  std::vector<float> c = C.to_vector<float>();
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double ref = 0;
      for (int64_t r = 0; r < K; ++r) ref += double(a[i * K + r]) * double(b[r * N + j]);
      ASSERT_NEAR(c[i * N + j], ref, 1e-4) << i << "," << j;
    }
  std::remove(log.c_str());
}

TEST(TemplateApi, ApplyReadsEachEntityAsTvm) {
  ConfigEntity cfg;
  cfg.set("tile_x", SplitEntity{{-1, 2, 4}});
  cfg.set("order", ReorderEntity{{1, 0}});
  cfg.set("ann", AnnotateEntity{Json::array({"fuse", "unroll"})});
  te::Tensor A = te::placeholder({Expr(64), Expr(8)}, DataType::Float(32), "A");
  te::Tensor C = te::compute(
      {Expr(64), Expr(8)}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "C");
  te::Schedule s = te::create_schedule({C.op()});
  IterVar x = C.op().axis()[0], y = C.op().axis()[1];
  // split: factors 8 then 4 -> extents 8, 2, 4
  auto [x0, x1, x2] = cfg["tile_x"].apply<3>(s, C, x);
  std::vector<IterVar> order = cfg["order"].apply(s, C, {x0, y});
  ASSERT_EQ(order.size(), 2u);
  EXPECT_TRUE(order[0].same_as(y));
  EXPECT_TRUE(order[1].same_as(x0));
  std::vector<IterVar> ann = cfg["ann"].apply(s, C, {x1, x2});
  ir::PrimFunc f = lower(s, {A, C}, "f");
  std::ostringstream os;
  os << f;
  // reordered: j outermost, then the fused-and-unrolled 2x4 inner part, then i0.outer innermost
  EXPECT_NE(os.str().find("for (i1, 0, 8)"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("for (i0.outer, 0, 8)"), std::string::npos) << os.str();
  EXPECT_LT(os.str().find("for (i1, 0, 8)"), os.str().find("for (i0.outer, 0, 8)")) << os.str();
  // x1 (2) fused into x2 (4), then unrolled: 8 copies of the inner loop, no inner loop variable
  EXPECT_EQ(os.str().find("i0.inner"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("+ 56)]"), std::string::npos) << os.str();
  EXPECT_EQ(ann.size(), 2u);

  te::Schedule s2 = te::create_schedule({C.op()});
  EXPECT_THROW(cfg["tile_x"].apply<2>(s2, C, C.op().axis()[0]), InvalidConfig);  // 3 parts
  EXPECT_THROW(cfg["tile_x"].apply(s, C, {x0, y}), InvalidConfig);  // a split takes one axis
  EXPECT_THROW(cfg["nope"], InvalidConfig);
  ConfigEntity odd;
  odd.set("ann", AnnotateEntity{Json::array({"spin"})});
  EXPECT_THROW(odd["ann"].apply(s, C, {x2}), InvalidConfig);
}

TEST(TemplateApi, GetConfigOutsideATemplateIsAnError) {
  EXPECT_THROW(get_config(), CompileError);
}

TEST(TemplateApi, ApplyTemplateRejectsAConfigThatDoesNotFit) {
  ConfigEntity bad = Task("test_tvm_matmul.llvm", Json::array({8, 8, 8}), "llvm").config(0);
  bad.set("tile_y", SplitEntity{{-1, 2, 2}});
  ApplyConfig ctx(bad);
  DispatchScope scope(ctx);
  try {
    apply_template("test_tvm_matmul.llvm", Json::array({8, 8, 8}), "llvm");
    ADD_FAILURE() << "applied a 3-part tile_y";
  } catch (const InvalidConfig& e) {
    EXPECT_NE(std::string(e.what()).find("knob 'tile_y'"), std::string::npos) << e.what();
  }
}

TEST(TemplateApi, ApplyTemplateWithoutRecordsFallsBack) {
  root_fallback_context().silent = true;
  AppliedTemplate a = apply_template("test_tvm_matmul.llvm", Json::array({8, 8, 8}), "llvm");
  root_fallback_context().silent = false;
  EXPECT_TRUE(a.is_fallback);
  EXPECT_EQ(std::get<SplitEntity>(a.config.get("tile_y")).size, (std::vector<int64_t>{-1, 1}));
}

// ---- item 3: TVM's CUDA templates registered for tuning ----------------------------------------

namespace {
Json tensor(std::vector<int64_t> shape) {
  return Json::array({"TENSOR", Json(shape), "float32"});
}

Json cuda_net() {
  return Json::parse(R"({"layers": [
    {"op": "conv2d", "args": [["TENSOR", [1, 16, 14, 14], "float32"], ["TENSOR", [32, 16, 3, 3], "float32"], [1, 1], [1, 1], [1, 1], "float32"]},
    {"op": "conv2d", "args": [["TENSOR", [1, 32, 14, 14], "float32"], ["TENSOR", [32, 32, 1, 1], "float32"], 2, 0, 1, "float32"]},
    {"op": "depthwise_conv2d", "args": [["TENSOR", [1, 32, 14, 14], "float32"], ["TENSOR", [32, 1, 3, 3], "float32"], [1, 1], [1, 1, 1, 1], [1, 1], "float32"]},
    {"op": "dense", "args": [["TENSOR", [1, 512], "float32"], ["TENSOR", [10, 512], "float32"], null, "float32"]},
    {"op": "dense", "args": [["TENSOR", [64, 256], "float32"], ["TENSOR", [128, 256], "float32"], ["TENSOR", [128], "float32"], "float32"]},
    {"op": "pool2d_nchw_fwd", "args": [["TENSOR", [1, 32, 14, 14], "float32"], "max", [2, 2], [2, 2], [0, 0], [0, 0], [1, 1], [7, 7], "div0,idx0"]}
  ]})");
}
}  // namespace

TEST(CudaTemplates, TaskExtractionListsTvmTasks) {
  std::vector<std::string> skipped;
  std::vector<Task> tasks = extract_tasks(cuda_net(), "cuda -emulate", &skipped);
  EXPECT_TRUE(skipped.empty());
  std::vector<std::string> names;
  for (const auto& t : tasks) names.push_back(t.name());
  EXPECT_EQ(names, (std::vector<std::string>{"conv2d_nchw.cuda", "conv2d_nchw_winograd.cuda",
                                             "conv2d_nchw.cuda", "depthwise_conv2d_nchw.cuda",
                                             "dense_small_batch.cuda", "dense_small_batch.cuda",
                                             "dense_large_batch.cuda", "pool2d_nchw_fwd.cuda"}));
  // TVM's argument form: strides and dilation as pairs, padding as 4 values
  EXPECT_EQ(tasks[2].args()[2], Json::array({2, 2}));
  EXPECT_EQ(tasks[2].args()[3], Json::array({0, 0, 0, 0}));
  EXPECT_EQ(tasks[0].args()[3], Json::array({1, 1, 1, 1}));
  // The spaces are TVM's (template_space re-derives them from the workload alone).
  for (const auto& t : tasks) {
    if (t.name().rfind("pool", 0) == 0) {
      EXPECT_EQ(t.config_space().size(), 5 * 4 * 2);  // threads, per_thread, unroll_win
      continue;
    }
    auto ref = template_space(t.name(), "", t.workload(), t.target());
    ASSERT_TRUE(ref.has_value()) << t.name();
    EXPECT_EQ(t.config_space().size(), ref->size()) << t.name();
    ASSERT_EQ(t.config_space().knobs().size(), ref->knobs().size()) << t.name();
    for (size_t i = 0; i < ref->knobs().size(); ++i)
      EXPECT_EQ(t.config_space().knobs()[i].name, ref->knobs()[i].name);
    EXPECT_GT(t.flop(), 0) << t.name();
  }
  EXPECT_DOUBLE_EQ(tasks[4].flop(), 2.0 * 1 * 512 * 10);
  EXPECT_DOUBLE_EQ(tasks[0].flop(), 2.0 * 1 * 32 * 14 * 14 * 16 * 3 * 3);
}

TEST(CudaTemplates, TunedRecordsDispatchInTheLayerBuilds) {
  // A record of each task (config #k of its space) is what the layer build applies for that layer.
  std::vector<Task> tasks = extract_tasks(cuda_net(), "cuda -emulate");
  std::vector<Record> recs;
  std::vector<int64_t> chosen;
  for (const auto& t : tasks) {
    int64_t k = t.config_space().size() / 3;
    chosen.push_back(k);
    MeasureResult r;
    r.costs = {1e-4};
    recs.push_back(make_record(t, t.config(k), r));
  }
  ApplyHistoryBest best(recs);
  DispatchScope scope(best);
  topi::LayerOptions lo;
  lo.lower_only = true;
  WarningCapture quiet;
  topi::LayerBuild conv = topi::build_conv2d({1, 16, 14, 14}, {32, 16, 3, 3},
                                             {{1, 1}, {1, 1}, {1, 1}}, "cuda -emulate", lo);
  EXPECT_FALSE(conv.is_fallback);
  // direct and winograd records have the same cost: the first (direct) answers
  EXPECT_EQ(conv.template_key, "direct");
  EXPECT_EQ(conv.config.index, chosen[0]);
  topi::LayerBuild conv1 = topi::build_conv2d({1, 32, 14, 14}, {32, 32, 1, 1},
                                              {{2, 2}, {0, 0}, {1, 1}}, "cuda -emulate", lo);
  EXPECT_FALSE(conv1.is_fallback);
  EXPECT_EQ(conv1.config.index, chosen[2]);
  topi::LayerBuild dw = topi::build_depthwise_conv2d({1, 32, 14, 14}, {32, 1, 3, 3},
                                                     {{1, 1}, {1, 1}, {1, 1}}, "cuda -emulate", lo);
  EXPECT_FALSE(dw.is_fallback);
  EXPECT_EQ(dw.config.index, chosen[3]);
  topi::LayerBuild d = topi::build_dense(1, 512, 10, false, "cuda -emulate", lo);
  EXPECT_FALSE(d.is_fallback);
  EXPECT_EQ(d.config.index, chosen[4]);
}

TEST(CudaTemplates, EmulatedTuningChecksCandidatesAgainstHostLoops) {
  Task task("dense_small_batch.cuda",
            Json::array({tensor({1, 64}), tensor({16, 64}), nullptr, "float32"}), "cuda -emulate");
  TuneSessionOptions o;
  o.tuner = "grid";
  o.n_trial = 2;
  o.progress = false;
  o.measure = quick();
  TuneSummary s = tune_task(task, o);
  // Each candidate ran in the emulator and matched the llvm loops (else WRONG_ANSWER); none is
  // timed, so none becomes "best" (the placeholder cost never competes).
  EXPECT_EQ(s.measured, 2);
  EXPECT_EQ(s.failed, 0) << s.error_summary();
  EXPECT_TRUE(s.first_errors.empty());
}

TEST(CudaTemplates, TimingACudaTaskWithoutAGpuIsRefusedWithTheReason) {
  if (runtime::cuda_available()) GTEST_SKIP() << "a GPU is present: cuda tasks are timed";
  Task task("conv2d_nchw.cuda",
            Json::array({tensor({1, 16, 14, 14}), tensor({32, 16, 3, 3}), Json::array({1, 1}),
                         Json::array({1, 1, 1, 1}), Json::array({1, 1}), "float32"}),
            "cuda");
  try {
    TuneSessionOptions o;
    o.progress = false;
    tune_task(task, o);
    ADD_FAILURE() << "timed a cuda task without a GPU";
  } catch (const CompileError& e) {
    EXPECT_NE(
        std::string(e.what()).find("timing needs a GPU; cuda -emulate only checks correctness"),
        std::string::npos)
        << e.what();
  }
}

// On a machine with a GPU: a real tuning run of a registered CUDA template, timed on the device.
TEST(CudaTemplates, TimedOnTheGpuWhenOneExists) {
  if (!runtime::cuda_available()) GTEST_SKIP() << "no GPU: " << runtime::cuda_unavailable_reason();
  Task task("conv2d_nchw.cuda",
            Json::array({tensor({1, 64, 56, 56}), tensor({64, 64, 3, 3}), Json::array({1, 1}),
                         Json::array({1, 1, 1, 1}), Json::array({1, 1}), "float32"}),
            "cuda");
  TuneSessionOptions o;
  o.tuner = "random";
  o.n_trial = 8;
  o.progress = false;
  o.measure = quick();
  o.measure.check_correctness = true;
  TuneSummary s = tune_task(task, o);
  EXPECT_EQ(s.measured, 8);
  ASSERT_TRUE(s.best_config.has_value()) << s.error_summary();
  EXPECT_GT(s.best_cost, 0);
  EXPECT_LT(s.best_cost, 1.0);
  std::printf("conv2d_nchw.cuda 1x64x56x56 k3: best %.4f ms (%.1f GFLOP/s), %d of 8 failed\n%s",
              s.best_cost * 1e3, s.best_throughput, s.failed, s.error_summary().c_str());
}

// ---- item 1: records of registered templates are checked against their spaces -------------------

TEST(RegisteredRecordCheck, CorruptedNchwcAndPoolRecordsAreSkipped) {
  // tophub/llvm_v0.04.log line 3 and tophub/pool_llvm_v0.03.log line 1, as shipped (both fit) ...
  std::ifstream fl(std::string(MINITVM_SOURCE_DIR) + "/tophub/llvm_v0.04.log");
  std::string l, nchwc;
  while (std::getline(fl, l))
    if (l.find("conv2d_NCHWc.x86") != std::string::npos &&
        l.find("\"unroll_kw\", \"ot\", false") != std::string::npos) {
      nchwc = l;
      break;
    }
  std::ifstream fp(std::string(MINITVM_SOURCE_DIR) + "/tophub/pool_llvm_v0.03.log");
  std::string pool;
  while (std::getline(fp, pool))
    if (!pool.empty() && pool[0] == '{') break;
  ASSERT_FALSE(nchwc.empty());
  ASSERT_FALSE(pool.empty());
  EXPECT_EQ(check_record(decode_record(nchwc)), "");
  EXPECT_EQ(check_record(decode_record(pool)), "");
  auto sub = [](std::string s, const std::string& from, const std::string& to) {
    auto p = s.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    if (p != std::string::npos) s.replace(p, from.size(), to);
    return s;
  };
  // ... and corrupted: a 3-part tile_ic, unroll_kw not a bool, a pool vec of 2, an unknown knob
  std::vector<std::pair<std::string, std::string>> bad = {
      {sub(nchwc, "[\"tile_ic\", \"sp\", [", "[\"tile_ic\", \"sp\", [1, "), "knob 'tile_ic'"},
      {sub(nchwc, "\"unroll_kw\", \"ot\", false", "\"unroll_kw\", \"ot\", 2"), "knob 'unroll_kw'"},
      {sub(pool, "[\"vec\", \"ot\", ", "[\"vec\", \"ot\", 2], [\"vec_old\", \"ot\", "),
       "knob 'vec'"},
      {sub(pool, "\"entity\": [", "\"entity\": [[\"tile_zz\", \"ot\", 1], "),
       "unknown knob 'tile_zz'"},
  };
  for (const auto& [line, knob] : bad) {
    WarningCapture w;
    LoadReport rep;
    auto recs = load_records_from_string(nchwc + "\n" + line + "\n", "reg.log", {}, &rep);
    EXPECT_EQ(recs.size(), 1u) << line;
    ASSERT_EQ(rep.skipped.size(), 1u) << line;
    EXPECT_EQ(rep.skipped[0].line, 2);
    EXPECT_NE(rep.skipped[0].reason.find(knob), std::string::npos) << rep.skipped[0].reason;
  }
}

TEST(RegisteredRecordCheck, BadConfigReachingTheCudaTemplateIsAnErrorNotACrash) {
  // ApplyConfig answers every query without a check: the template itself must refuse a 2-part
  // tile_f before binding four axes.
  Task task("conv2d_nchw.cuda",
            Json::array({tensor({1, 16, 14, 14}), tensor({32, 16, 3, 3}), Json::array({1, 1}),
                         Json::array({1, 1, 1, 1}), Json::array({1, 1}), "float32"}),
            "cuda -emulate");
  ConfigEntity cfg = task.config(0);
  cfg.set("tile_f", SplitEntity{{-1, 8}});
  ApplyConfig ctx(cfg);
  DispatchScope scope(ctx);
  topi::LayerOptions lo;
  lo.lower_only = true;
  try {
    topi::build_conv2d({1, 16, 14, 14}, {32, 16, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}, "cuda -emulate",
                       lo);
    ADD_FAILURE() << "a 2-part tile_f was applied";
  } catch (const InvalidConfig& e) {
    EXPECT_NE(std::string(e.what()).find("knob 'tile_f'"), std::string::npos) << e.what();
  }
}

// ---- item 4: why candidates failed
// ----------------------------------------------------------------

TEST(TuneErrors, FirstErrorOfEachKindAndVerboseLines) {
  // An llvm template has no thread binding: every candidate fails to build for cuda -emulate.
  Task task("matmul.llvm", Json::array({16, 16, 16}), "cuda -emulate");
  TuneSessionOptions o;
  o.tuner = "grid";
  o.n_trial = 3;
  o.progress = false;
  o.measure = quick();
  o.verbose = true;
  std::ostringstream vout;
  o.verbose_out = &vout;
  TuneSummary s = tune_task(task, o);
  EXPECT_EQ(s.measured, 3);
  EXPECT_EQ(s.failed, 3);
  EXPECT_FALSE(s.best_config.has_value());
  ASSERT_EQ(s.first_errors.size(), 1u);
  ASSERT_EQ(s.first_errors.count(static_cast<int>(MeasureErrorNo::CompileHost)), 1u);
  EXPECT_NE(s.first_errors.at(2).find("Did you forget to bind"), std::string::npos)
      << s.first_errors.at(2);
  EXPECT_EQ(s.error_counts.at(2), 3);
  EXPECT_NE(s.error_summary().find("3 x COMPILE_HOST (2): "), std::string::npos)
      << s.error_summary();
  std::string v = vout.str();
  EXPECT_NE(v.find("trial 1 config #0 "), std::string::npos) << v;
  EXPECT_NE(v.find("trial 3 config #2 "), std::string::npos) << v;
  EXPECT_EQ(std::count(v.begin(), v.end(), '\n'), 3) << v;
  EXPECT_NE(v.find("COMPILE_HOST (2): "), std::string::npos) << v;
}

TEST(TuneErrors, TargetIsCheckedBeforeAnyTrial) {
  EXPECT_NO_THROW(check_tuning_target("llvm -mcpu=core-avx2"));
  EXPECT_NO_THROW(check_tuning_target("cuda -emulate"));
  try {
    check_tuning_target("opencl -device=mali");
    ADD_FAILURE();
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown tuning target 'opencl -device=mali'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(check_tuning_target(""), CompileError);
  EXPECT_EQ(std::string(measure_error_name(7)), "RUN_TIMEOUT");
}

TEST(RegisteredRecordCheck, ShippedLlvmAndPoolLogsLoseNoRecord) {
  // With the x86 conv2d and pool templates registered, their shipped records are checked too.
  for (const char* f : {"llvm_v0.01.log", "llvm_v0.02.log", "llvm_v0.03.log", "llvm_v0.04.log",
                        "pool_llvm_v0.03.log"}) {
    WarningCapture w;
    LoadReport rep;
    auto recs = load_records(std::string(MINITVM_SOURCE_DIR) + "/tophub/" + f, {}, &rep);
    EXPECT_GT(recs.size(), 0u) << f;
    EXPECT_TRUE(rep.skipped.empty())
        << f << ": " << (rep.skipped.empty() ? "" : rep.skipped[0].reason);
  }
}
