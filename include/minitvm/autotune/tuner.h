/** \file
 * Tuners: which configs of a space to measure next (TVM `autotvm.tuner`).
 *
 * A Tuner walks the flat indices of a ConfigSpace. tune() repeatedly asks next_batch() for
 * unvisited indices, measures them through a Measurer, feeds the results back with update() and
 * calls the callbacks (logging, progress), until the trial budget is spent, the space is exhausted,
 * or `early_stopping` trials passed without improvement.
 *
 * Scores: a result's score is 1 / mean cost (higher is better), 0 for failed measurements, so
 * tuners never need the task's flop count. The best config is the error-free result with the
 * smallest mean cost (ties: the earlier one), as ApplyHistoryBest picks.
 *
 * Implemented here: RandomTuner ("random"), GridSearchTuner ("grid") and GATuner ("ga");
 * the model-based ModelTuner ("xgb") is in tuner_model.h. make_tuner() builds any of them by name.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/space.h"

namespace minitvm::autotune {

/** Options of Tuner::tune(). */
struct TuneOptions {
  /** Trial budget, counting results given to load_history(). */
  int n_trial = 100;
  /** Stop after this many trials without a better config (<= 0: never). */
  int early_stopping = -1;
  /** Configs measured per batch (<= 0: the tuner's preferred batch size). */
  int batch_size = 0;
};

class Tuner;
/** Called after every measured batch with that batch's outcomes. */
using TuneCallback = std::function<void(const Tuner&, const std::vector<MeasureOutcome>&)>;

/** Score of a result: 1 / mean cost for error-free results, else 0. */
double result_score(const MeasureResult& r);

/** Base class; see the file comment. */
class Tuner {
 public:
  Tuner(ConfigSpace space, uint64_t seed);
  virtual ~Tuner() = default;
  /** "random", "grid", "ga", "xgb". */
  virtual std::string name() const = 0;
  /** Up to n unvisited indices to measure next (fewer only when the space runs out). */
  virtual std::vector<int64_t> next_batch(int n) = 0;
  /** Learn from measured indices (default: nothing beyond the bookkeeping done by tune()). */
  virtual void update(const std::vector<int64_t>& indices,
                      const std::vector<MeasureResult>& results);
  /** Batch size used when TuneOptions::batch_size is not set. */
  virtual int preferred_batch_size() const { return 8; }
  /** Whether unvisited configs remain. */
  bool has_next() const { return static_cast<int64_t>(visited_.size()) < space_.size(); }

  /**
   * Treat earlier results (e.g. read from a log) as measured: they are never proposed again,
   * count toward the trial budget and the best config, and are given to update().
   */
  void load_history(const std::vector<std::pair<int64_t, MeasureResult>>& history);

  /** Run the tuning loop; see the file comment. Returns the number of configs measured now. */
  int tune(Measurer& measurer, const TuneOptions& opt,
           const std::vector<TuneCallback>& callbacks = {});

  const ConfigSpace& space() const { return space_; }
  bool visited(int64_t index) const { return visited_.count(index) > 0; }
  /** Trials so far (history included). */
  int trials() const { return trials_; }
  /** Best error-free mean cost so far (+inf when none). */
  double best_cost() const { return best_cost_; }
  /** Index of the best config (-1 when none). */
  int64_t best_index() const { return best_index_; }
  /** Trial number (1-based) at which the best was found (0 when none). */
  int best_trial() const { return best_trial_; }
  /** Best cost after each trial, in trial order (+inf before the first success). */
  const std::vector<double>& best_curve() const { return curve_; }
  /** Trials to run in total (the budget of the current tune() call, capped by the space). */
  int planned_trials() const { return planned_; }

 protected:
  /** A uniformly random unvisited index (the caller must check has_next()). */
  int64_t random_unvisited();
  void mark_visited(int64_t index) { visited_.insert(index); }
  /** Knob digits of an index (first knob first) and back. */
  std::vector<int64_t> digits(int64_t index) const;
  int64_t index_of_digits(const std::vector<int64_t>& d) const;

  ConfigSpace space_;
  std::vector<int64_t> dims_;
  std::mt19937_64 rng_;

 private:
  void record(int64_t index, const MeasureResult& r);
  std::unordered_set<int64_t> visited_;
  int trials_ = 0;
  double best_cost_;
  int64_t best_index_ = -1;
  int best_trial_ = 0;
  int planned_ = 0;
  std::vector<double> curve_;
};

/** Random order, without repetition. */
class RandomTuner : public Tuner {
 public:
  explicit RandomTuner(ConfigSpace space, uint64_t seed = 0) : Tuner(std::move(space), seed) {}
  std::string name() const override { return "random"; }
  std::vector<int64_t> next_batch(int n) override;
};

/** Flat-index order 0, 1, 2, ... (skipping visited indices). */
class GridSearchTuner : public Tuner {
 public:
  explicit GridSearchTuner(ConfigSpace space, uint64_t seed = 0) : Tuner(std::move(space), seed) {}
  std::string name() const override { return "grid"; }
  std::vector<int64_t> next_batch(int n) override;

 private:
  int64_t counter_ = 0;
};

/** Genetic algorithm over knob digits: elitism, fitness-proportional parents, one-point crossover,
 *  per-knob mutation (TVM GATuner's scheme). */
class GATuner : public Tuner {
 public:
  GATuner(ConfigSpace space, uint64_t seed = 0, int pop_size = 32, int elite_num = 3,
          double mutation_prob = 0.1);
  std::string name() const override { return "ga"; }
  std::vector<int64_t> next_batch(int n) override;
  void update(const std::vector<int64_t>& indices,
              const std::vector<MeasureResult>& results) override;
  int preferred_batch_size() const override { return pop_size_; }

 private:
  void next_generation();
  int pop_size_, elite_num_;
  double mutation_prob_;
  std::vector<int64_t> pending_;
  std::vector<std::pair<double, int64_t>> scored_;  // (score, index) of everything measured
};

/** A tuner by name: "random", "grid", "ga", "xgb" (model-based). Throws CompileError otherwise. */
std::unique_ptr<Tuner> make_tuner(const std::string& name, const ConfigSpace& space,
                                  uint64_t seed = 0);

}  // namespace minitvm::autotune
