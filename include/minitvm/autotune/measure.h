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

#include <functional>
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
  int number = 1;             ///< calls per timed repeat
  int repeat = 3;             ///< timed repeats (costs keep them; >2 drop max and min, as TVM)
  double min_repeat_ms = 20;  ///< grow `number` until one repeat takes this long
  double build_timeout_s = 30;
  double run_timeout_s = 30;
  int n_parallel = 0;  ///< build threads (0 = hardware threads)
  /** Compare outputs with the reference before a result may count as error free. */
  bool check_correctness = false;
  double rtol = 1e-3, atol = 1e-4;
  /** When set, every timed run holds an exclusive lock (flock) on this file, so that processes
   *  sharing a device (MPI ranks on one host) never time two candidates at once. The run deadline
   *  counts from when the lock is held; a lock not free within 2 x (build + run timeout) + 30 s
   *  makes the candidate a RUN_TIMEOUT. */
  std::string run_lock_file;
  /** With run_lock_file: each batch's build phase holds the lock shared, so that builds of other
   *  processes never overlap a timing (CPU targets: a build takes the cores the kernel runs on).
   *  Builds of all processes still run in parallel with each other. */
  bool builds_exclude_timing = false;
};

/** Where a measurement ran: the host name and the device ("cpu AMD EPYC 9B45", "cuda:0",
 *  "cuda-emulator"). Written into records as "measured_on" so that mixed logs can be told apart. */
struct MeasuredOn {
  std::string host;
  std::string device;
  bool empty() const { return host.empty() && device.empty(); }
};

/** This machine's host name. */
std::string host_name();
/** The device a target's candidates are measured on here (see MeasuredOn::device). */
std::string local_device_name(const Target& target);

/** One measured candidate. */
struct MeasureOutcome {
  ConfigEntity config;
  MeasureResult result;
  std::string error;  ///< message of the failure ("" when error_no == 0)
  MeasuredOn where;   ///< empty for synthetic measurers
};

/** Anything that turns configs into results; tests plug in synthetic cost functions. */
class Measurer {
 public:
  virtual ~Measurer() = default;
  /** Measure a batch; returns one result per config, in order. Must not throw for bad configs. */
  virtual std::vector<MeasureOutcome> measure(const std::vector<ConfigEntity>& configs) = 0;
  /** Called with each outcome as soon as it is final, before measure() returns, on the thread
   *  that called measure() (a network tuner logs it at once, so that a job killed mid-batch keeps
   *  every finished measurement). Measurers that never call it are reported after measure(). */
  std::function<void(const MeasureOutcome&)> on_outcome;
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
                   double version = 0.2, const MeasuredOn& where = {});

/** Classify an exception thrown while compiling for `target_name` into an error number. */
MeasureErrorNo classify_build_error(const std::exception& e, bool in_template);

}  // namespace minitvm::autotune
