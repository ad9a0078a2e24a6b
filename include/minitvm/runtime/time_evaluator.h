/** \file
 * time_evaluator: measure a PackedFunc the way TVM's `Module.time_evaluator` does.
 *
 *   auto timer = runtime::time_evaluator(f, Device::cpu(), number, repeat, min_repeat_ms);
 *   runtime::ProfileResult r = timer(a, b, c);   // r.mean, r.median, r.min, r.max, r.results
 *
 * One untimed warm-up call, then `repeat` measurements. Each measurement times `number`
 * consecutive calls and records their average (seconds per call). When min_repeat_ms > 0 and a
 * measurement took less than that, `number` grows (to max(min_repeat_ms / per_call_ms + 1,
 * number * 1.618), as TVM does) and the measurement is redone; the grown `number` carries over to
 * later repeats. CPU timing uses std::chrono::steady_clock; CUDA timing uses driver events recorded
 * on the default stream (the device is synchronised before the first event).
 */
#pragma once

#include <vector>

#include "minitvm/runtime/module.h"

namespace minitvm::runtime {

/** Timing of one time_evaluator call, in seconds per function call. */
struct ProfileResult {
  double mean = 0, median = 0, min = 0, max = 0;
  std::vector<double> results;  ///< one entry per repeat
  int number = 0;               ///< calls per repeat actually used (after min_repeat_ms growth)
};

/** A callable that times a PackedFunc; see the file comment. */
class TimeEvaluator {
 public:
  TimeEvaluator(PackedFunc f, Device dev, int number, int repeat, double min_repeat_ms);
  template <typename... Args>
  ProfileResult operator()(Args&&... args) const {
    return call(std::vector<ArgValue>{to_arg_value(std::forward<Args>(args))...});
  }
  ProfileResult call(const std::vector<ArgValue>& args) const;

 private:
  PackedFunc f_;
  Device dev_;
  int number_, repeat_;
  double min_repeat_ms_;
};

/** TVM-style constructor; number >= 1, repeat >= 1, min_repeat_ms >= 0 (else CompileError). */
TimeEvaluator time_evaluator(PackedFunc f, Device dev, int number = 10, int repeat = 1,
                             double min_repeat_ms = 0);

}  // namespace minitvm::runtime
