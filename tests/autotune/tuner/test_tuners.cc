// Each tuner on a small synthetic space (deterministic cost), early stopping, budgets, GBDT.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "autotune/tuner/synthetic.h"
#include "minitvm/autotune/tuner.h"
#include "minitvm/autotune/tuner_model.h"

using namespace minitvm;
using namespace minitvm::autotune;
using namespace minitvm::autotune::testing;

namespace {

void expect_no_repeats(const SyntheticMeasurer& m) {
  for (const auto& [i, n] : m.measured_count)
    EXPECT_EQ(n, 1) << "config " << i << " measured " << n << " times";
}

}  // namespace

TEST(TunerSpace, SyntheticSpaceShape) {
  ConfigSpace s = synthetic_space();
  EXPECT_EQ(s.size(), 7 * 6 * 3);
  // Flat index: first knob least significant (TVM): index 1 is tile_x inner 2.
  EXPECT_EQ(s.get(1).split("tile_x").size[1], 2);
  EXPECT_EQ(s.get(7).split("tile_y").size[1], 2);
  EXPECT_EQ(s.get(42).knob_int("unroll"), 1);
  EXPECT_NEAR(synthetic_optimum(s), 1e-3 * (1 + 0.05 * 3 * 2 / 10), 1e-12);
}

TEST(GridTuner, VisitsEveryConfigInIndexOrder) {
  ConfigSpace s = synthetic_space();
  GridSearchTuner t(s);
  SyntheticMeasurer m;
  TuneOptions o;
  o.n_trial = 1000;
  int n = t.tune(m, o);
  EXPECT_EQ(n, 126);
  ASSERT_EQ(m.order.size(), 126u);
  for (int64_t i = 0; i < 126; ++i) EXPECT_EQ(m.order[i], i);
  EXPECT_DOUBLE_EQ(t.best_cost(), synthetic_optimum(s));
  EXPECT_FALSE(t.has_next());
  // Best config is tile_x inner 8, tile_y inner 4, unroll 1.
  ConfigEntity best = s.get(t.best_index());
  EXPECT_EQ(best.split("tile_x").size[1], 8);
  EXPECT_EQ(best.split("tile_y").size[1], 4);
  EXPECT_EQ(best.knob_int("unroll"), 1);
  EXPECT_EQ(t.best_curve().size(), 126u);
}

TEST(GridTuner, TrialBudgetIsRespected) {
  GridSearchTuner t(synthetic_space());
  SyntheticMeasurer m;
  TuneOptions o;
  o.n_trial = 20;
  o.batch_size = 6;
  EXPECT_EQ(t.tune(m, o), 20);
  EXPECT_EQ(m.order.size(), 20u);
  EXPECT_EQ(m.order.back(), 19);
}

TEST(RandomTuner, NoRepeatsAndFullCoverage) {
  ConfigSpace s = synthetic_space();
  RandomTuner t(s, 7);
  SyntheticMeasurer m;
  TuneOptions o;
  o.n_trial = 126;
  EXPECT_EQ(t.tune(m, o), 126);
  EXPECT_EQ(m.measured_count.size(), 126u);
  expect_no_repeats(m);
  EXPECT_DOUBLE_EQ(t.best_cost(), synthetic_optimum(s));
  // Random order: not the grid order.
  int in_place = 0;
  for (size_t i = 0; i < m.order.size(); ++i) in_place += m.order[i] == static_cast<int64_t>(i);
  EXPECT_LT(in_place, 20);
}

TEST(RandomTuner, SameSeedSameOrder) {
  SyntheticMeasurer a, b;
  TuneOptions o;
  o.n_trial = 30;
  RandomTuner(synthetic_space(), 3).tune(a, o);
  RandomTuner(synthetic_space(), 3).tune(b, o);
  EXPECT_EQ(a.order, b.order);
}

TEST(GATuner, ImprovesOnItsFirstGenerationWithoutRepeats) {
  ConfigSpace s = synthetic_space();
  GATuner t(s, 1, /*pop_size=*/16);
  SyntheticMeasurer m;
  TuneOptions o;
  o.n_trial = 64;
  EXPECT_EQ(t.tune(m, o), 64);
  expect_no_repeats(m);
  double first_gen = 1e30;
  for (int k = 0; k < 16; ++k) {
    auto c = synthetic_cost(s.get(m.order[k]));
    if (c) first_gen = std::min(first_gen, *c);
  }
  EXPECT_LE(t.best_cost(), first_gen);
  EXPECT_LE(t.best_cost(), synthetic_optimum(s) * 1.10);
}

TEST(ModelTuner, FindsNearOptimumWithFewTrials) {
  ConfigSpace s = synthetic_space();
  double opt = synthetic_optimum(s);
  // 25 trials = 20% of the space; the model must get within 5% of the optimum for each seed.
  for (uint64_t seed : {0u, 1u, 2u}) {
    ModelTuner t(s, seed);
    SyntheticMeasurer m;
    TuneOptions o;
    o.n_trial = 25;
    EXPECT_EQ(t.tune(m, o), 25);
    expect_no_repeats(m);
    EXPECT_TRUE(t.model().fitted());
    EXPECT_LE(t.best_cost(), opt * 1.05) << "seed " << seed;
  }
}

TEST(ModelTuner, BeatsRandomOnAverage) {
  ConfigSpace s = synthetic_space();
  double model_sum = 0, random_sum = 0;
  for (uint64_t seed = 0; seed < 5; ++seed) {
    TuneOptions o;
    o.n_trial = 16;
    SyntheticMeasurer a, b;
    ModelTuner mt(s, seed);
    mt.tune(a, o);
    RandomTuner rt(s, seed);
    rt.tune(b, o);
    model_sum += mt.best_cost();
    random_sum += rt.best_cost();
  }
  EXPECT_LT(model_sum, random_sum);
}

TEST(Tuner, EarlyStopping) {
  // Grid order with early_stopping = 10: the run stops 10 trials after the last improvement.
  ConfigSpace s = synthetic_space();
  GridSearchTuner t(s);
  SyntheticMeasurer m;
  TuneOptions o;
  o.n_trial = 126;
  o.early_stopping = 10;
  o.batch_size = 1;
  t.tune(m, o);
  // The unroll = 0 block (indices 0..41) has its best at digit (3, 2) = index 3 + 7 * 2 = 17;
  // the run stops at trial 27 without ever reaching the unroll = 1 block (index 42+).
  EXPECT_EQ(t.best_index(), 17);
  EXPECT_EQ(t.best_trial(), 18);
  EXPECT_EQ(t.trials(), 28);
  EXPECT_EQ(m.order.size(), 28u);
}

TEST(Tuner, LoadHistorySkipsMeasuredConfigs) {
  ConfigSpace s = synthetic_space();
  SyntheticMeasurer first;
  std::vector<std::pair<int64_t, MeasureResult>> hist;
  for (const auto& o : first.measure({s.get(5), s.get(59), s.get(60)}))
    hist.push_back({o.config.index, o.result});
  for (const std::string name : {"grid", "random", "ga", "xgb"}) {
    auto t = make_tuner(name, s, 4);
    t->load_history(hist);
    EXPECT_EQ(t->trials(), 3);
    EXPECT_EQ(t->best_index(), 59);  // 59 = 3 + 7 * 2 + 42 * 1: the optimum
    SyntheticMeasurer m;
    TuneOptions o;
    o.n_trial = 126;
    EXPECT_EQ(t->tune(m, o), 123) << name;
    EXPECT_EQ(m.measured_count.count(5) + m.measured_count.count(59) + m.measured_count.count(60),
              0u)
        << name;
    expect_no_repeats(m);
  }
}

TEST(Tuner, FailedConfigsNeverBecomeBest) {
  GridSearchTuner t(synthetic_space());
  SyntheticMeasurer m;
  TuneOptions o;
  o.n_trial = 1;  // index 0: both inner sizes 1 -> invalid
  t.tune(m, o);
  EXPECT_EQ(t.trials(), 1);
  EXPECT_EQ(t.best_index(), -1);
  EXPECT_TRUE(std::isinf(t.best_cost()));
}

TEST(Tuner, MakeTunerRejectsUnknownNames) {
  EXPECT_THROW(make_tuner("annealing", synthetic_space()), CompileError);
  EXPECT_EQ(make_tuner("xgb", synthetic_space())->name(), "xgb");
  EXPECT_EQ(make_tuner("ga", synthetic_space())->name(), "ga");
}

TEST(Gbdt, FitsASimpleFunction) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  auto f = [](double a, double b) { return a * a + (b > 0.5 ? 3.0 : 0.0); };
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (int i = 0; i < 300; ++i) {
    double a = u(rng), b = u(rng);
    x.push_back({a, b, u(rng)});  // third feature is noise
    y.push_back(f(a, b));
  }
  Gbdt g;
  GbdtOptions o;
  o.n_trees = 100;
  o.learning_rate = 0.2;
  g.fit(x, y, o);
  double sse = 0, sst = 0, mean = 1.5;
  for (int i = 0; i < 200; ++i) {
    double a = u(rng), b = u(rng);
    double want = f(a, b);
    double got = g.predict({a, b, u(rng)});
    sse += (got - want) * (got - want);
    sst += (want - mean) * (want - mean);
  }
  EXPECT_GT(1 - sse / sst, 0.95);
  // The step is learnt: far from the boundary predictions differ by about 3.
  EXPECT_NEAR(g.predict({0.5, 0.9, 0.5}) - g.predict({0.5, 0.1, 0.5}), 3.0, 0.3);
}

TEST(Gbdt, ConstantTargetAndBadInput) {
  Gbdt g;
  g.fit({{1.0}, {2.0}, {3.0}}, {2.5, 2.5, 2.5});
  EXPECT_NEAR(g.predict({10.0}), 2.5, 1e-12);
  EXPECT_THROW(g.fit({{1.0}, {2.0, 3.0}}, {1, 2}), CompileError);
  EXPECT_THROW(g.fit({}, {}), CompileError);
}

TEST(KnobFeatures, SplitsAsLog2AndKnobsAsPositionAndValue) {
  ConfigSpace s = synthetic_space();
  // index 59: tile_x digit 3 (inner 8), tile_y digit 2 (inner 4), unroll digit 1 (value 1).
  std::vector<double> f = knob_features(s, 59);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_DOUBLE_EQ(f[0], 3.0);
  EXPECT_DOUBLE_EQ(f[1], 2.0);
  EXPECT_DOUBLE_EQ(f[2], 1.0);
  EXPECT_DOUBLE_EQ(f[3], 1.0);
}
