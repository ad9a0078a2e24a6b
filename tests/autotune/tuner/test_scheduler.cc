// The network task scheduler (autotune::tune_tasks): budget allocation by strategy, the network
// estimate, fallback-first, resume from the log, transfer between similar tasks, option errors and
// the measured_on field of records. Synthetic measurers: nothing is compiled.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <set>

#include "autotune/tuner/synthetic.h"
#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/json_text.h"
#include "minitvm/autotune/task_scheduler.h"
#include "minitvm/autotune/tuner_model.h"
#include "minitvm/support/error.h"

using namespace minitvm;
using namespace minitvm::autotune;
using namespace minitvm::autotune::testing;

namespace {

// args: [scale, id]. The synthetic knobs; flop proportional to scale.
MINITVM_REGISTER_TEMPLATE("test_sched.llvm", [](ConfigEntity& cfg, const Json& args) {
  define_synthetic_space(cfg);
  TemplateResult r;
  r.flop = 1e6 * args.at(0).get<double>();
  return r;
});

// Cost of a task's config: synthetic_cost x the task's scale (args[0]).
struct Measured {
  std::map<std::string, std::vector<int64_t>> order;  // workload key -> indices in measuring order
  std::map<std::string, double> best;                 // workload key -> lowest successful cost
};

class ScaledMeasurer : public Measurer {
 public:
  ScaledMeasurer(const Task& t, Measured& log, bool report_each)
      : task_(t), log_(log), each_(report_each) {}
  std::vector<MeasureOutcome> measure(const std::vector<ConfigEntity>& configs) override {
    std::vector<MeasureOutcome> out;
    const std::string key = task_.workload_key();
    const double scale = task_.args().at(0).get<double>();
    for (const auto& c : configs) {
      log_.order[key].push_back(c.index);
      MeasureOutcome o;
      o.config = c;
      if (auto cost = synthetic_cost(c)) {
        o.result.costs = {*cost * scale};
        auto it = log_.best.find(key);
        if (it == log_.best.end() || o.result.costs[0] < it->second)
          log_.best[key] = o.result.costs[0];
      } else {
        o.result.error_no = static_cast<int>(MeasureErrorNo::InstantiationError);
        o.result.costs = {1e9};
        o.error = "invalid";
      }
      o.result.timestamp = 1.7e9;
      o.where = {"testhost", "cpu test"};
      if (each_ && on_outcome) on_outcome(o);
      out.push_back(o);
    }
    return out;
  }

 private:
  Task task_;
  Measured& log_;
  bool each_;
};

std::vector<WeightedTask> three_tasks(double w0, double w1, double w2) {
  return {{Task("test_sched.llvm", Json::array({1.0, 0}), "llvm"), w0, "heavy"},
          {Task("test_sched.llvm", Json::array({1.0, 1}), "llvm"), w1, "light a"},
          {Task("test_sched.llvm", Json::array({1.0, 2}), "llvm"), w2, "light b"}};
}

MeasurerFactory factory(Measured& m, bool each = true) {
  return [&m, each](const Task& t) { return std::make_unique<ScaledMeasurer>(t, m, each); };
}

// The estimate recomputed from what the measurer saw: sum of weight x best cost.
double independent_estimate(const std::vector<WeightedTask>& tasks, const Measured& m) {
  double e = 0;
  for (const auto& t : tasks) e += t.weight * m.best.at(t.task.workload_key());
  return e;
}

}  // namespace

TEST(TaskScheduler, FallbackIndexIsTheConfigADispatchWithoutRecordsGives) {
  Task t("test_sched.llvm", Json::array({1.0, 0}), "llvm");
  std::optional<int64_t> fb = fallback_config_index(t);
  ASSERT_TRUE(fb.has_value());
  // Every knob at its first candidate (TVM's FallbackConfigEntity: splits [-1, 1]) is flat index 0.
  EXPECT_EQ(*fb, 0);
  ConfigEntity c = t.config(*fb);
  EXPECT_EQ(c.split("tile_x").size, (std::vector<int64_t>{-1, 1}));
  EXPECT_EQ(c.split("tile_y").size, (std::vector<int64_t>{-1, 1}));
  EXPECT_EQ(c.knob_int("unroll"), 0);
}

TEST(TaskScheduler, GradientSpendsTheBudgetWhereTheNetworkGainsMost) {
  auto tasks = three_tasks(20, 1, 1);
  Measured m;
  SchedulerOptions o;
  o.n_trial = 96;
  o.round_trials = 8;
  o.tuner = "random";
  o.eps_random = 0;
  NetworkTuneSummary s = tune_tasks(tasks, o, factory(m));
  int total = 0;
  for (const auto& t : s.tasks) total += t.trials;
  EXPECT_EQ(total, 96);
  EXPECT_EQ(s.measured, 96);
  // The task that counts 20 times gets most rounds.
  EXPECT_GT(s.tasks[0].trials, s.tasks[1].trials);
  EXPECT_GT(s.tasks[0].trials, s.tasks[2].trials);
  EXPECT_GT(s.tasks[0].trials, 96 / 2);
  // Every task measured its fallback config first.
  for (const auto& t : tasks)
    EXPECT_EQ(m.order.at(t.task.workload_key()).front(), *fallback_config_index(t.task));
  EXPECT_NEAR(s.estimate, independent_estimate(tasks, m), 1e-15);
  // The curve falls monotonically and ends at the estimate.
  ASSERT_FALSE(s.curve.empty());
  for (size_t i = 1; i < s.curve.size(); ++i) {
    EXPECT_LE(s.curve[i].estimate, s.curve[i - 1].estimate + 1e-18);
    EXPECT_GE(s.curve[i].trials, s.curve[i - 1].trials);
  }
  EXPECT_DOUBLE_EQ(s.curve.back().estimate, s.estimate);
  EXPECT_EQ(s.curve.back().trials, 96);
  // The synthetic fallback (index 0) is invalid: no fallback estimate.
  EXPECT_EQ(s.tasks[0].fallback_cost, 0.0);
  EXPECT_EQ(s.fallback_estimate, 0.0);
}

TEST(TaskScheduler, SequentialGivesEqualSharesInTaskOrder) {
  auto tasks = three_tasks(20, 1, 1);
  Measured m;
  SchedulerOptions o;
  o.strategy = "sequential";
  o.n_trial = 61;
  o.tuner = "random";
  NetworkTuneSummary s = tune_tasks(tasks, o, factory(m));
  EXPECT_EQ(s.tasks[0].trials, 21);
  EXPECT_EQ(s.tasks[1].trials, 20);
  EXPECT_EQ(s.tasks[2].trials, 20);
  EXPECT_TRUE(std::is_sorted(s.round_tasks.begin(), s.round_tasks.end()));
  EXPECT_NEAR(s.estimate, independent_estimate(tasks, m), 1e-15);
}

TEST(TaskScheduler, RoundRobinAlternates) {
  auto tasks = three_tasks(20, 1, 1);
  Measured m;
  SchedulerOptions o;
  o.strategy = "round-robin";
  o.n_trial = 3 + 6 * 4;  // fallbacks, then six rounds of 4
  o.round_trials = 4;
  o.tuner = "random";
  NetworkTuneSummary s = tune_tasks(tasks, o, factory(m));
  EXPECT_EQ(s.round_tasks, (std::vector<int>{0, 1, 2, 0, 1, 2}));
  for (const auto& t : s.tasks) EXPECT_EQ(t.trials, 9);
}

TEST(TaskScheduler, ResumesFromTheLogAndSpendsOnlyTheRest) {
  auto tasks = three_tasks(4, 2, 1);
  std::string log = temp_path("resume.log", "minitvm_sched_");
  SchedulerOptions o;
  o.n_trial = 40;
  o.tuner = "xgb";
  o.log_file = log;
  Measured first;
  NetworkTuneSummary a = tune_tasks(tasks, o, factory(first));
  EXPECT_EQ(a.measured, 40);
  ASSERT_EQ(read_lines(log).size(),
            40u);  // each outcome logged once (on_outcome, not again after the batch)

  o.n_trial = 70;
  Measured second;
  NetworkTuneSummary b = tune_tasks(tasks, o, factory(second, /*report_each=*/false));
  EXPECT_EQ(b.resumed, 40);
  EXPECT_EQ(b.measured, 30);
  std::vector<std::string> lines = read_lines(log);
  ASSERT_EQ(lines.size(), 70u);
  // Nothing measured twice over the two runs, and every line is a valid record of one of the tasks.
  std::map<std::string, std::set<int64_t>> seen;
  for (const auto& l : lines) {
    Record r = decode_record(l);
    std::string key = workload_key(r.input.workload);
    EXPECT_TRUE(seen[key].insert(r.input.config.index).second)
        << "measured twice: " << key << " #" << r.input.config.index;
    ASSERT_TRUE(r.extra.contains("measured_on"));
    EXPECT_EQ(r.extra["measured_on"]["host"], "testhost");
  }
  EXPECT_EQ(seen.size(), 3u);
  // The resumed run's estimate covers the first run's bests too.
  double e = 0;
  for (const auto& t : tasks) {
    std::string k = t.task.workload_key();
    double best = first.best.at(k);
    if (second.best.count(k)) best = std::min(best, second.best.at(k));
    e += t.weight * best;
  }
  EXPECT_NEAR(b.estimate, e, 1e-15);
  // A third run with the same budget measures nothing and leaves the log alone.
  Measured third;
  NetworkTuneSummary c = tune_tasks(tasks, o, factory(third));
  EXPECT_EQ(c.measured, 0);
  EXPECT_EQ(read_lines(log).size(), 70u);
  std::remove(log.c_str());
}

TEST(TaskScheduler, TransferRowsSteerTheFirstBatchOfASimilarTask) {
  ConfigSpace space = synthetic_space();
  // A sibling measured the whole space.
  ModelTuner sibling(space, 1, 16);
  std::vector<int64_t> all(static_cast<size_t>(space.size()));
  std::iota(all.begin(), all.end(), 0);
  std::vector<MeasureResult> res;
  for (int64_t i : all) {
    MeasureResult r;
    auto c = synthetic_cost(space.get(i));
    if (c)
      r.costs = {*c};
    else {
      r.error_no = 1;
      r.costs = {1e9};
    }
    res.push_back(r);
  }
  sibling.update(all, res);
  std::vector<std::vector<double>> xs;
  std::vector<double> ys;
  sibling.transfer_rows(xs, ys);
  ASSERT_EQ(xs.size(), all.size());

  auto batch_mean = [&](ModelTuner& t) {
    std::vector<int64_t> b = t.next_batch(8);
    EXPECT_EQ(b.size(), 8u);
    double sum = 0;
    for (int64_t i : b) sum += synthetic_cost(space.get(i)).value_or(0.01);
    return sum / b.size();
  };
  ModelTuner cold(space, 7, 16), warm(space, 7, 16);
  warm.set_transfer_data(xs, ys);
  EXPECT_EQ(warm.num_transfer_rows(), xs.size());
  double opt = synthetic_optimum(space);
  double mw = batch_mean(warm), mc = batch_mean(cold);
  EXPECT_LT(mw, mc);
  EXPECT_LT(mw, 1.5 * opt);  // the model's picks sit near the optimum from the first batch
  // Rows of another width are ignored.
  ModelTuner other(space, 7, 16);
  other.set_transfer_data({{1.0, 2.0}}, {0.0});
  EXPECT_EQ(other.num_transfer_rows(), 0u);
}

TEST(TaskScheduler, BadOptionsAreErrorsNamingTheOption) {
  auto tasks = three_tasks(1, 1, 1);
  Measured m;
  SchedulerOptions o;
  o.strategy = "banana";
  try {
    tune_tasks(tasks, o, factory(m));
    FAIL() << "no error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("banana"), std::string::npos);
  }
  o = {};
  o.round_trials = 0;
  EXPECT_THROW(tune_tasks(tasks, o, factory(m)), CompileError);
  o = {};
  tasks[1].weight = 0;
  try {
    tune_tasks(tasks, o, factory(m));
    FAIL() << "no error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("weight"), std::string::npos);
  }
  EXPECT_TRUE(m.order.empty());  // nothing measured
}

TEST(Records, MeasuredOnIsAnExtraKeyThatRoundTripsAndLoads) {
  Task t("test_sched.llvm", Json::array({1.0, 0}), "llvm");
  MeasureResult r;
  r.costs = {1e-3};
  r.timestamp = 1.7e9;
  Record rec = make_record(t, t.config(5), r, 0.2, {"node7", "cpu AMD EPYC"});
  std::string line = encode_record(rec);
  EXPECT_NE(line.find(R"("measured_on": {"host": "node7", "device": "cpu AMD EPYC"})"),
            std::string::npos)
      << line;
  Record back = decode_record(line);
  EXPECT_EQ(encode_record(back), line);
  EXPECT_EQ(back.input.config.index, 5);
  // Without a place the record is exactly TVM's layout (no extra key).
  EXPECT_EQ(encode_record(make_record(t, t.config(5), r, 0.2)).find("measured_on"),
            std::string::npos);
  // 0.1 too.
  std::string l01 = encode_record(make_record(t, t.config(5), r, 0.1, {"node7", "cuda:0"}));
  EXPECT_NE(l01.find("measured_on"), std::string::npos);
  EXPECT_EQ(decode_record(l01).input.config.index, 5);
}
