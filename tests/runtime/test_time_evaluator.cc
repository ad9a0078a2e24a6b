#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "minitvm/runtime/time_evaluator.h"

using namespace minitvm;
using runtime::ArgValue;

namespace {
// A PackedFunc that sleeps `ms` milliseconds per call and counts its calls.
runtime::PackedFunc sleeper(double ms, int* calls) {
  return runtime::PackedFunc(
      [ms, calls](const std::vector<ArgValue>&) {
        ++*calls;
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
      },
      {"sleeper", {}});
}
}  // namespace

TEST(TimeEvaluator, MeasuresSecondsPerCall) {
  int calls = 0;
  auto timer =
      runtime::time_evaluator(sleeper(2.0, &calls), Device::cpu(), /*number=*/3, /*repeat=*/4);
  runtime::ProfileResult r = timer();
  EXPECT_EQ(calls, 1 + 3 * 4);  // one warm-up call, then number * repeat
  ASSERT_EQ(r.results.size(), 4u);
  EXPECT_EQ(r.number, 3);
  for (double s : r.results) {
    EXPECT_GE(s, 0.002);
    EXPECT_LT(s, 0.1);
  }
  EXPECT_LE(r.min, r.median);
  EXPECT_LE(r.median, r.max);
  EXPECT_GE(r.mean, r.min);
  EXPECT_LE(r.mean, r.max);
}

TEST(TimeEvaluator, MinRepeatMsGrowsNumberLikeTvm) {
  int calls = 0;
  // 1 ms per call, at least 20 ms per repeat: number must grow from 1 to >= 20.
  auto timer = runtime::time_evaluator(sleeper(1.0, &calls), Device::cpu(), 1, 2, 20.0);
  runtime::ProfileResult r = timer();
  // ~21 by TVM's rule; sleeps that overshoot on a loaded machine make the estimate smaller, but a
  // repeat must still last min_repeat_ms.
  EXPECT_GT(r.number, 1);
  EXPECT_LE(r.number, 30);
  ASSERT_EQ(r.results.size(), 2u);
  for (double s : r.results) EXPECT_GE(s * r.number, 0.020);
}

TEST(TimeEvaluator, StatisticsAndValidation) {
  int calls = 0;
  EXPECT_THROW(runtime::time_evaluator(sleeper(0, &calls), Device::cpu(), 0, 1), CompileError);
  EXPECT_THROW(runtime::time_evaluator(sleeper(0, &calls), Device::cpu(), 1, 0), CompileError);
  EXPECT_THROW(runtime::time_evaluator(runtime::PackedFunc(), Device::cpu(), 1, 1), CompileError);
  // Arguments reach the function.
  int64_t seen = 0;
  runtime::PackedFunc f(
      [&seen](const std::vector<ArgValue>& a) { seen = std::get<int64_t>(a.at(0)); }, {"f", {}});
  runtime::time_evaluator(f, Device::cpu(), 1, 1)(42);
  EXPECT_EQ(seen, 42);
}
