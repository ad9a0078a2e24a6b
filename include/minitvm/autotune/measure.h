/** \file
 * Measuring tuning candidates (TVM `autotvm.measure`): build in parallel, then run one by one.
 *
 * The builder instantiates the template for each config, lowers and compiles it on a pool of
 * threads (`n_parallel`), each candidate with a deadline (`build_timeout_s`, counted from when its
 * worker starts). The runner then calls
 * the compiled functions one at a time with time_evaluator (llvm on the CPU; cuda on a GPU when a
 * driver and device exist). Targets whose code runs in the CUDA emulator ("cuda -emulate") are
 * never timed: their candidates are only checked for correctness, and an error-free result carries
 * the placeholder cost kEmulatedCost so that it can never look faster than a timed record.
 *
 * Failures become results with TVM's error numbers (record.h MeasureErrorNo): InvalidConfig or any
 * error while running the template -> 1 INSTANTIATION_ERROR; lowering or host code generation
 * errors -> 2 COMPILE_HOST; device compilation (NVRTC/ptxas) -> 3 COMPILE_DEVICE; errors while
 * running -> 4 RUNTIME_DEVICE; outputs differing from the reference -> 5 WRONG_ANSWER; deadlines ->
 * 6 BUILD_TIMEOUT / 7 RUN_TIMEOUT. As TVM writes them, failed results have costs [1e9].
 *
 * A build that passes its deadline cannot be interrupted (LLVM and NVRTC have no cancellation):
 * its thread is left to finish in the background and its result is discarded. A run past its
 * deadline is likewise abandoned on its thread; the caller should not rely on such threads ending.
 */
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "minitvm/autotune/record.h"
#include "minitvm/autotune/task.h"

namespace minitvm::autotune {

/** Cost written for error-free candidates that were not timed (emulator runs). */
inline constexpr double kEmulatedCost = 1e9;

/** Options of the builder and the runner (TVM `measure_option(LocalBuilder, LocalRunner)`). */
struct MeasureOption {
  int number = 1;              ///< calls per timed repeat
  int repeat = 3;              ///< timed repeats (costs keep them; >2 drop max and min, as TVM)
  double min_repeat_ms = 20;   ///< grow `number` until one repeat takes this long
  double build_timeout_s = 30;
  double run_timeout_s = 30;
  int n_parallel = 0;          ///< build threads (0 = hardware threads)
  /** Compare outputs with the reference before a result may count as error free. */
  bool check_correctness = false;
  double rtol = 1e-3, atol = 1e-4;
};

/** One measured candidate. */
struct MeasureOutcome {
  ConfigEntity config;
  MeasureResult result;
  std::string error;  ///< message of the failure ("" when error_no == 0)
};

/** Anything that turns configs into results; tests plug in synthetic cost functions. */
class Measurer {
 public:
  virtual ~Measurer() = default;
  /** Measure a batch; returns one result per config, in order. Must not throw for bad configs. */
  virtual std::vector<MeasureOutcome> measure(const std::vector<ConfigEntity>& configs) = 0;
};

/** Builds with the task's template and runs on this machine. */
class LocalMeasurer : public Measurer {
 public:
  LocalMeasurer(Task task, MeasureOption opt = {});
  ~LocalMeasurer() override;
  std::vector<MeasureOutcome> measure(const std::vector<ConfigEntity>& configs) override;
  /** Whether this target's candidates are timed (false for the emulator). */
  bool timed() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/** The TVM record of one measurement of a task's config (format 0.2 or 0.1). */
Record make_record(const Task& task, const ConfigEntity& cfg, const MeasureResult& result,
                   double version = 0.2);

/** Classify an exception thrown while compiling for `target_name` into an error number. */
MeasureErrorNo classify_build_error(const std::exception& e, bool in_template);

}  // namespace minitvm::autotune
