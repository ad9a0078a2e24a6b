/** \file
 * One call that tunes a task end to end: the C++ API behind `minitvm tune`.
 *
 *   Task task("matmul.llvm", Json::array({512, 512, 512}), "llvm");
 *   TuneSessionOptions o;
 *   o.tuner = "xgb"; o.n_trial = 60; o.log_file = "matmul.log";
 *   TuneSummary s = tune_task(task, o);        // resumes from matmul.log if it exists
 *   ApplyHistoryBest best; best.load("matmul.log");
 *
 * Tuning curves are written as SVG with minitvm/devtools/tuner_plot.h (minitvm_devtools).
 */
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/task.h"
#include "minitvm/autotune/tuner.h"

namespace minitvm::autotune {

struct TuneSessionOptions {
  std::string tuner = "xgb";
  int n_trial = 100;
  int early_stopping = -1;
  int batch_size = 0;
  uint64_t seed = 0;
  /** Log file ("" = no log). Existing records of the task are loaded first (resume). */
  std::string log_file;
  bool resume = true;
  double log_version = 0.2;
  MeasureOption measure{};
  /** Progress bar: drawn on stderr when it is a terminal. */
  bool progress = true;
  /** Print every failed candidate's error as it is measured ("trial 3 config #17 [...]:
   *  COMPILE_HOST (2): <message>") on `verbose_out` (std::cerr when null). */
  bool verbose = false;
  std::ostream* verbose_out = nullptr;
};

struct TuneSummary {
  int resumed = 0;             ///< trials read back from the log
  int measured = 0;            ///< trials measured in this call
  int failed = 0;              ///< of those, results with error_no != 0
  double best_cost = 0;        ///< seconds; 0 when nothing succeeded
  double best_throughput = 0;  ///< GFLOP/s or GB/s
  std::string unit;
  std::optional<ConfigEntity> best_config;
  std::vector<double> best_curve;  ///< best cost after each trial (resumed ones first)
  /** Per TVM error kind (MeasureErrorNo) among the trials measured now: the message of its first
   *  failure, and how many failed with it. */
  std::map<int, std::string> first_errors;
  std::map<int, int> error_counts;
  /** One line per error kind, e.g. "4 x COMPILE_HOST (2): build: function ... has no thread_extent
   *  binding ..." (first message of that kind); "" when nothing failed. */
  std::string error_summary() const;
};

/** TVM's name of an error number: "INSTANTIATION_ERROR", "COMPILE_HOST", ... ("UNKNOWN_ERROR" for
 *  numbers outside MeasureErrorNo). */
const char* measure_error_name(int error_no);

/** Check a target string before any trial: its kind must be one the builder compiles for (llvm,
 *  cuda, nvptx; "cuda -emulate"). Throws CompileError naming the target otherwise. tune_task calls
 *  it; a command line can call it before building the Task. */
void check_tuning_target(const std::string& target);

/** Tune with a measurer of your own (tests use synthetic ones). */
TuneSummary tune_task(const Task& task, const TuneSessionOptions& opt, Measurer& measurer);
/** Tune with a LocalMeasurer built from opt.measure. */
TuneSummary tune_task(const Task& task, const TuneSessionOptions& opt);

}  // namespace minitvm::autotune
