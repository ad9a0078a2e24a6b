// TVM-compatible timing loop (see time_evaluator.h for the semantics).
#include "minitvm/runtime/time_evaluator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "minitvm/support/error.h"
#include "runtime/cuda/cuda_driver.h"

namespace minitvm::runtime {

namespace {

// Milliseconds taken by `number` calls of f, measured on dev's clock.
double time_calls_ms(const PackedFunc& f, const std::vector<ArgValue>& args, Device dev,
                     int number) {
  if (dev.is_cpu()) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < number; ++i) f.call(args);
    auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
  }
  auto& drv = cuda::CudaDriver::get();
  drv.synchronize(dev.id);
  cuda::CUevent start = drv.event_create(dev.id);
  cuda::CUevent stop = nullptr;
  try {
    stop = drv.event_create(dev.id);
    drv.event_record(start);
    for (int i = 0; i < number; ++i) f.call(args);
    drv.event_record(stop);
    double ms = drv.event_elapsed_ms(start, stop);
    drv.event_destroy(start);
    drv.event_destroy(stop);
    return ms;
  } catch (...) {
    drv.event_destroy(start);
    drv.event_destroy(stop);
    throw;
  }
}

}  // namespace

TimeEvaluator::TimeEvaluator(PackedFunc f, Device dev, int number, int repeat, double min_repeat_ms)
    : f_(std::move(f)), dev_(dev), number_(number), repeat_(repeat), min_repeat_ms_(min_repeat_ms) {
  MINITVM_USER_CHECK(static_cast<bool>(f_)) << "time_evaluator: empty function";
  MINITVM_USER_CHECK(number >= 1) << "time_evaluator: number must be >= 1, got " << number;
  MINITVM_USER_CHECK(repeat >= 1) << "time_evaluator: repeat must be >= 1, got " << repeat;
  MINITVM_USER_CHECK(min_repeat_ms >= 0) << "time_evaluator: min_repeat_ms must be >= 0";
}

ProfileResult TimeEvaluator::call(const std::vector<ArgValue>& args) const {
  f_.call(args);  // warm-up: first-call costs (page faults, module load) are not measured
  if (dev_.is_cuda()) cuda::CudaDriver::get().synchronize(dev_.id);
  ProfileResult r;
  int number = number_;
  for (int k = 0; k < repeat_; ++k) {
    double ms = time_calls_ms(f_, args, dev_, number);
    while (ms < min_repeat_ms_) {
      const double per_call_ms = std::max(ms, 1e-6) / number;
      const double grown = std::max(min_repeat_ms_ / per_call_ms + 1, number * 1.618);
      number = static_cast<int>(std::min<double>(grown, 1e9));
      ms = time_calls_ms(f_, args, dev_, number);
    }
    r.results.push_back(ms / 1e3 / number);
  }
  r.number = number;
  std::vector<double> sorted = r.results;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  r.min = sorted.front();
  r.max = sorted.back();
  r.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  r.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  return r;
}

TimeEvaluator time_evaluator(PackedFunc f, Device dev, int number, int repeat,
                             double min_repeat_ms) {
  return TimeEvaluator(std::move(f), dev, number, repeat, min_repeat_ms);
}

}  // namespace minitvm::runtime
