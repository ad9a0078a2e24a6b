/** \file
 * Tuning logs and progress output: the callbacks tune() calls, resuming, and pick_best.
 *
 * log_to_file() appends one TVM record line per measurement (0.2 by default, 0.1 on request) and
 * flushes after every line, so a killed run loses at most the batch being measured.
 * history_from_log() reads back the records of one task (same task name, args and target string;
 * any format) so that a resumed tuner skips them (Tuner::load_history). pick_best() reduces a log
 * to the best error-free record per (target, workload), as TVM's `autotvm.record.pick_best`.
 */
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "minitvm/autotune/record.h"
#include "minitvm/autotune/task.h"
#include "minitvm/autotune/tuner.h"

namespace minitvm::autotune {

/** Callback appending each outcome of `task` to `path` as a record line (created if missing). */
TuneCallback log_to_file(const Task& task, const std::string& path, double version = 0.2);

/** (index, result) of the records in `path` that belong to `task`; missing file: empty. Records
 *  whose config is not in the task's space are skipped. Later duplicates of an index are dropped.
 */
std::vector<std::pair<int64_t, MeasureResult>> history_from_log(const Task& task,
                                                                const std::string& path);

/** Best error-free record per (target string, workload) of `records`, in first-seen order. */
std::vector<Record> pick_best(const std::vector<Record>& records);
/** pick_best of a file, written to `out_path` (in each record's own format). Returns the count. */
size_t pick_best(const std::string& in_path, const std::string& out_path);

/**
 * Progress bar on a terminal: `[=====>     ] 40/200  best 95.31 GFLOP/s  elapsed 0:12  ETA 0:48`,
 * redrawn in place after every batch; prints nothing when `os` is not a TTY (or `enabled` is
 * false). `unit_scale` converts a cost in seconds to throughput (Task::throughput), `unit` names
 * it.
 */
class ProgressBar {
 public:
  ProgressBar(std::ostream& os, bool enabled, std::function<double(double)> unit_scale,
              std::string unit);
  /** The callback to pass to tune(). */
  TuneCallback callback();
  /** Draw the final state and end the line (no-op when disabled). */
  void finish(const Tuner& t);
  /** Text of one bar (exposed for tests). */
  std::string render(int done, int total, double best_cost, double elapsed_s) const;

 private:
  std::ostream& os_;
  bool enabled_;
  std::function<double(double)> scale_;
  std::string unit_;
  double start_;
  bool drawn_ = false;
};

/** Whether stderr is a terminal. */
bool stderr_is_tty();

}  // namespace minitvm::autotune
