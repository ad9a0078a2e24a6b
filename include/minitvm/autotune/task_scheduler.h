/** \file
 * Tuning the tasks of a whole network together (Ansor's task scheduler, for AutoTVM templates).
 *
 * A network's tunable layers become weighted tasks: the weight is how many times one inference
 * calls the task's kernel. The objective is the estimated network latency
 *
 *     f = sum_i weight_i * best_cost_i
 *
 * (the tuned kernels only; the rest of the network does not depend on the configs). The trial
 * budget is spent in rounds of `round_trials` trials on one task at a time. Strategies:
 *   - "gradient" (default): after one warm-up round per task, the next round goes to the task
 *     whose next trials are expected to lower f most (Ansor's gradient: weight x (alpha x the
 *     recent improvement per round + (1 - alpha) x the optimistic forward step, the smaller of
 *     best - best/rounds and beta x flop / the best throughput of a similar task)), with
 *     probability eps_random a random task;
 *   - "round-robin": rounds go to the tasks in turn;
 *   - "sequential": TVM's tune_tasks loop, the baseline: one task after the other, each an equal
 *     share of the budget.
 * Every strategy first measures each task's fallback config (the config relay::build would use
 * without a log), so that f is defined from the start and the fallback network estimate is known.
 *
 * Similar tasks (same template, same knobs) share their measurements with the model-based tuner
 * ("xgb"): each round's model is fitted to the task's own trials and its siblings' (transfer).
 *
 * Records are appended to the log as each measurement finishes (Measurer::on_outcome, else after
 * the batch); a rerun with the same log resumes every task's history and spends only the rest of
 * the budget (n_trial counts resumed trials). Tasks with no config left, or no improvement for
 * `early_stopping` trials, get no further rounds.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/task.h"

namespace minitvm::autotune {

/** One task of a network and how much it counts. */
struct WeightedTask {
  Task task;
  double weight = 1;  ///< calls per inference
  std::string label;  ///< shown in progress lines ("" = the workload)
};

struct SchedulerOptions {
  std::string strategy = "gradient";  ///< "gradient", "round-robin" or "sequential"
  int n_trial = 200;                  ///< total over all tasks, resumed trials included
  int round_trials = 8;               ///< trials per round
  std::string tuner = "xgb";
  uint64_t seed = 0;
  bool transfer = true;          ///< share similar tasks' measurements with "xgb"
  bool measure_fallback = true;  ///< first trial of every task: its fallback config
  int early_stopping = -1;       ///< trials without improvement after which a task stops
  double alpha = 0.2, beta = 2.0, eps_random = 0.05;
  int backward_window = 3;  ///< rounds over which the recent improvement is taken
  std::string log_file;     ///< "" = no log
  bool resume = true;
  double log_version = 0.2;
  /** One line per round (nullptr: none). */
  std::ostream* progress = nullptr;
};

/** Where one task stands. */
struct TaskTuneState {
  int trials = 0;  ///< resumed + measured
  int resumed = 0;
  int measured = 0;
  int failed = 0;  ///< of the measured
  int rounds = 0;  ///< rounds given to it in this call (the fallback trial not counted)
  double best_cost = std::numeric_limits<double>::infinity();  ///< seconds
  int64_t best_index = -1;
  double fallback_cost = 0;  ///< seconds; 0 when not measured or failed
  std::optional<int64_t> fallback_index;
  bool done = false;  ///< no further rounds (space exhausted or early stopped)
};

/** The estimated network latency after some number of trials. */
struct SchedulerPoint {
  int trials = 0;
  double estimate = 0;  ///< seconds
};

struct NetworkTuneSummary {
  std::vector<TaskTuneState> tasks;
  int resumed = 0, measured = 0, failed = 0;
  /** sum weight x fallback cost; 0 unless every task's fallback was measured successfully. */
  double fallback_estimate = 0;
  /** sum weight x best cost; +inf while some task has no successful trial. */
  double estimate = std::numeric_limits<double>::infinity();
  /** The estimate after each round (from the first point at which it is finite). */
  std::vector<SchedulerPoint> curve;
  /** Task index of each round, in order (the fallback round not included). */
  std::vector<int> round_tasks;
  double seconds = 0;  ///< wall time of tune()
  /** A table: task, weight, trials, fallback and best ms, throughput, share of the estimate. */
  std::string table(const std::vector<WeightedTask>& tasks) const;
};

/** Makes the measurer of a task (called once per task, when its first trial is due). */
using MeasurerFactory = std::function<std::unique_ptr<Measurer>(const Task&)>;

/** sum_i weight_i x costs_i (seconds; +inf when a cost is not finite). */
double estimated_latency(const std::vector<WeightedTask>& tasks, const std::vector<double>& costs);

/** Index in the task's space of the config a dispatch without records gives it (the fallback),
 *  or nullopt when the template's fallback is not a point of its space. */
std::optional<int64_t> fallback_config_index(const Task& task);

/** Tune the tasks together; see the file comment. Throws CompileError for bad options. */
NetworkTuneSummary tune_tasks(const std::vector<WeightedTask>& tasks, const SchedulerOptions& opt,
                              const MeasurerFactory& make_measurer);
/** Same, measuring on this machine with LocalMeasurer(task, measure). */
NetworkTuneSummary tune_tasks(const std::vector<WeightedTask>& tasks, const SchedulerOptions& opt,
                              const MeasureOption& measure = {});

}  // namespace minitvm::autotune
