// The PyTorch 1.13 golden suite (tests/data/pool/*.jsonl) through compiled llvm kernels
// (CompiledPoolExecutor): every case with the golden README's tolerances, one test per op file.
// A channels-last pass over every 5th max_pool2d/avg_pool2d case checks the NHWC computes too.
// Kernels are compiled up front per file, 64 per LLVM module (CompiledPoolExecutor::precompile).
#include <gtest/gtest.h>

#include <sstream>

#include "minitvm/devtools/pool_conformance.h"
#include "minitvm/frontend/pool_compiled.h"
#include "runtime/cpu/guarded_memory.h"

using namespace minitvm;
using namespace minitvm::frontend;
using topi::PoolLayout;
using topi::PoolPlan;

namespace {

std::string golden_path(const std::string& op) {
  return std::string(MINITVM_SOURCE_DIR) + "/tests/data/pool/" + op + ".jsonl";
}

// One executor for the whole binary: its kernel cache is shared by the files.
CompiledPoolExecutor& llvm_executor() {
  static CompiledPoolExecutor exec("llvm");
  return exec;
}

// Cases i with i % every_nth == first run (every_nth > 1: a deterministic subset, or one part of
// a file split over several tests so that ctest -j spreads the big files over the cores).
void run_file(const std::string& op, PoolLayout layout, size_t every_nth = 1, size_t first = 0) {
  std::vector<GoldenCase> all = read_golden_file(golden_path(op)), cases;
  for (size_t i = first; i < all.size(); i += every_nth) cases.push_back(all[i]);
  ASSERT_FALSE(cases.empty()) << op;
  ConformanceOptions opts;
  opts.layout = layout;
  // Compile the file's kernels up front, many per module (one JIT pass per batch instead of one
  // per kernel); the cases then find them in the executor's cache.
  std::vector<PoolPlan> plans;
  for (auto& c : cases) {
    if (c.kind == GoldenCase::Kind::Rejected) continue;
    try {
      plans.push_back(plan_golden_case(c, layout));
    } catch (const CompileError&) {
    }
  }
  llvm_executor().precompile(plans, /*backward=*/true);
  std::ostringstream log;
  ConformanceSummary s = run_pool_cases(cases, llvm_executor(), opts, &log);
  EXPECT_EQ(s.failed, 0) << op << ": " << log.str();
  EXPECT_EQ(s.passed, static_cast<int>(cases.size()));
}

}  // namespace

TEST(PoolGoldenLlvm, MaxPool1d) {
  run_file("max_pool1d", PoolLayout::ChannelsFirst);
}
// max_pool2d and avg_pool2d are the big files: two halves each (every case is still run).
TEST(PoolGoldenLlvm, MaxPool2dEven) {
  run_file("max_pool2d", PoolLayout::ChannelsFirst, 2, 0);
}
TEST(PoolGoldenLlvm, MaxPool2dOdd) {
  run_file("max_pool2d", PoolLayout::ChannelsFirst, 2, 1);
}
TEST(PoolGoldenLlvm, MaxPool3d) {
  run_file("max_pool3d", PoolLayout::ChannelsFirst);
}
TEST(PoolGoldenLlvm, AvgPool1d) {
  run_file("avg_pool1d", PoolLayout::ChannelsFirst);
}
TEST(PoolGoldenLlvm, AvgPool2dEven) {
  run_file("avg_pool2d", PoolLayout::ChannelsFirst, 2, 0);
}
TEST(PoolGoldenLlvm, AvgPool2dOdd) {
  run_file("avg_pool2d", PoolLayout::ChannelsFirst, 2, 1);
}
TEST(PoolGoldenLlvm, AvgPool3d) {
  run_file("avg_pool3d", PoolLayout::ChannelsFirst);
}
TEST(PoolGoldenLlvm, AdaptiveAvgPool2d) {
  run_file("adaptive_avg_pool2d", PoolLayout::ChannelsFirst);
}
TEST(PoolGoldenLlvm, AdaptiveMaxPool2d) {
  run_file("adaptive_max_pool2d", PoolLayout::ChannelsFirst);
}
TEST(PoolGoldenLlvm, MaxPool2dChannelsLast) {
  run_file("max_pool2d", PoolLayout::ChannelsLast, 5);
}
TEST(PoolGoldenLlvm, AvgPool2dChannelsLast) {
  run_file("avg_pool2d", PoolLayout::ChannelsLast, 5);
}

// Every 5th max_pool2d case (overlapping windows among them), forward and backward, with each
// array against an inaccessible page after it and then before it: a kernel that reads outside an
// array faults. (The backward once compared the index of a window slot past the last window,
// read past the end of the indices.)
TEST(PoolGoldenLlvm, MaxPool2dReadsNothingOutsideItsArrays) {
  using runtime::GuardPages;
  for (GuardPages g : {GuardPages::After, GuardPages::Before}) {
    runtime::ScopedGuardPages guard(g);
    run_file("max_pool2d", PoolLayout::ChannelsFirst, 5, 3);
  }
}
