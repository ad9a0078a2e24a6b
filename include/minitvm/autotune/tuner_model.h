/** \file
 * The model-based tuner (TVM XGBTuner's scheme, with our own small gradient-boosted trees).
 *
 * Features of a config (knob_features): for a split knob, log2 of each size after the first; for
 * any other knob, the candidate's position and, for numeric candidates, its value. The cost model
 * (Gbdt) is a squared-loss gradient-boosted ensemble of depth-limited regression trees, fitted to
 * the measured scores normalised by the best score (failed configs score 0).
 *
 * ModelTuner: the first batch is random; afterwards, every time a batch has been measured it
 * refits the model and plans 4 * `plan_size` unvisited configs by simulated annealing over the knob
 * digits (TVM SimulatedAnnealingOptimizer: parallel random walks that change one knob per step,
 * accepting worse points with probability exp((new - old) / temperature), temperature falling
 * linearly to 0, keeping the best unvisited points seen). A batch is picked from the plan greedily
 * by predicted score plus a bonus for knob values not yet in the batch (TVM's diversity-aware
 * submodular pick); with probability `eps_greedy` a slot is filled with a random config instead.
 * Targets are log(score / best score), failed configs a little below the worst success.
 */
#pragma once

#include <cstdint>
#include <vector>

#include "minitvm/autotune/tuner.h"

namespace minitvm::autotune {

/** Feature vector of a config of `space` given by its flat index. */
std::vector<double> knob_features(const ConfigSpace& space, int64_t index);

/** Options of Gbdt::fit. */
struct GbdtOptions {
  int n_trees = 80;
  int max_depth = 4;
  int min_samples_leaf = 2;
  double learning_rate = 0.15;
  /** L2 regularisation of leaf values (XGBoost's lambda). */
  double lambda = 1.0;
};

/** Gradient-boosted regression trees with squared loss. */
class Gbdt {
 public:
  /** Fit to rows x (all of equal length) and targets y. Refitting discards the old model. */
  void fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
           const GbdtOptions& opt = {});
  double predict(const std::vector<double>& x) const;
  bool fitted() const { return fitted_; }
  size_t num_trees() const { return trees_.size(); }

 private:
  struct Node {
    int feature = -1;  ///< -1: leaf
    double threshold = 0, value = 0;
    int left = -1, right = -1;
  };
  using Tree = std::vector<Node>;
  int build(Tree& t, const std::vector<std::vector<double>>& x, const std::vector<double>& g,
            std::vector<size_t>& rows, int depth, const GbdtOptions& opt);
  static double eval(const Tree& t, const std::vector<double>& x);
  std::vector<Tree> trees_;
  double base_ = 0, lr_ = 0.1;
  bool fitted_ = false;
};

/** The model-based tuner ("xgb"); see the file comment. */
class ModelTuner : public Tuner {
 public:
  ModelTuner(ConfigSpace space, uint64_t seed = 0, int plan_size = 8, double eps_greedy = 0.05);
  std::string name() const override { return "xgb"; }
  std::vector<int64_t> next_batch(int n) override;
  void update(const std::vector<int64_t>& indices,
              const std::vector<MeasureResult>& results) override;
  int preferred_batch_size() const override { return plan_size_; }
  const Gbdt& model() const { return model_; }
  /**
   * Transfer learning between similar tasks (TVM XGBTuner's cross-task history): rows of
   * knob_features from other tasks of the same template and knobs, with targets on this tuner's
   * scale (log of the score relative to that task's best; failures below its worst success). They
   * are fitted together with this task's own measurements; before its first measurement the model
   * plans from them alone instead of the random initial design. Rows of another length are ignored.
   */
  void set_transfer_data(std::vector<std::vector<double>> xs, std::vector<double> targets);
  /** Rows given by set_transfer_data that are used. */
  size_t num_transfer_rows() const { return transfer_x_.size(); }
  /** This task's measured rows and targets on the transfer scale (for another task's tuner). */
  void transfer_rows(std::vector<std::vector<double>>& xs, std::vector<double>& targets) const;

  /** Simulated-annealing settings. */
  int sa_parallel = 128;
  int sa_iters = 300;
  /** Weight of knob-value diversity when picking a batch from the plan (targets are log scores). */
  double diversity_weight = 0.3;
  GbdtOptions gbdt;

 private:
  void replan();
  int plan_size_;
  double eps_;
  Gbdt model_;
  std::vector<std::vector<double>> xs_;
  std::vector<double> scores_;
  std::vector<int64_t> plan_;
  std::vector<std::vector<double>> transfer_x_;
  std::vector<double> transfer_y_;
  bool dirty_ = false;
};

}  // namespace minitvm::autotune
