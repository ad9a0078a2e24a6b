// The PyTorch 1.13 golden suite (tests/data/pool/*.jsonl) through compiled llvm kernels
// (CompiledPoolExecutor): every case with the golden README's tolerances, one test per op file.
// A channels-last pass over every 5th max_pool2d/avg_pool2d case checks the NHWC computes too.
#include <gtest/gtest.h>

#include <sstream>

#include "minitvm/frontend/pool_compiled.h"
#include "minitvm/frontend/pool_conformance.h"

using namespace minitvm;
using namespace minitvm::frontend;

namespace {

std::string golden_path(const std::string& op) {
  return std::string(MINITVM_SOURCE_DIR) + "/tests/data/pool/" + op + ".jsonl";
}

// One executor for the whole binary: its kernel cache is shared by the files.
CompiledPoolExecutor& llvm_executor() {
  static CompiledPoolExecutor exec("llvm");
  return exec;
}

// every_nth > 1 runs a deterministic subset (keeps the channels-last pass short).
void run_file(const std::string& op, PoolLayout layout, size_t every_nth = 1) {
  std::vector<GoldenCase> all = read_golden_file(golden_path(op)), cases;
  for (size_t i = 0; i < all.size(); i += every_nth) cases.push_back(all[i]);
  ASSERT_FALSE(cases.empty()) << op;
  ConformanceOptions opts;
  opts.layout = layout;
  std::ostringstream log;
  ConformanceSummary s = run_pool_cases(cases, llvm_executor(), opts, &log);
  EXPECT_EQ(s.failed, 0) << op << ": " << log.str();
  EXPECT_EQ(s.passed, static_cast<int>(cases.size()));
}

}  // namespace

TEST(PoolGoldenLlvm, MaxPool1d) { run_file("max_pool1d", PoolLayout::ChannelsFirst); }
TEST(PoolGoldenLlvm, MaxPool2d) { run_file("max_pool2d", PoolLayout::ChannelsFirst); }
TEST(PoolGoldenLlvm, MaxPool3d) { run_file("max_pool3d", PoolLayout::ChannelsFirst); }
TEST(PoolGoldenLlvm, AvgPool1d) { run_file("avg_pool1d", PoolLayout::ChannelsFirst); }
TEST(PoolGoldenLlvm, AvgPool2d) { run_file("avg_pool2d", PoolLayout::ChannelsFirst); }
TEST(PoolGoldenLlvm, AvgPool3d) { run_file("avg_pool3d", PoolLayout::ChannelsFirst); }
TEST(PoolGoldenLlvm, AdaptiveAvgPool2d) { run_file("adaptive_avg_pool2d", PoolLayout::ChannelsFirst); }
TEST(PoolGoldenLlvm, AdaptiveMaxPool2d) { run_file("adaptive_max_pool2d", PoolLayout::ChannelsFirst); }
TEST(PoolGoldenLlvm, MaxPool2dChannelsLast) { run_file("max_pool2d", PoolLayout::ChannelsLast, 5); }
TEST(PoolGoldenLlvm, AvgPool2dChannelsLast) { run_file("avg_pool2d", PoolLayout::ChannelsLast, 5); }
