// The PyTorch 1.13 golden suite (tests/data/pool/*.jsonl) through the reference executor: one test
// per op file, every case bit-exact (except the mean() path), every rejection with the golden kind.
#include <gtest/gtest.h>

#include <sstream>

#include "minitvm/devtools/pool_conformance.h"

using namespace minitvm;
using namespace minitvm::frontend;
using topi::PoolLayout;

namespace {

std::string golden_path(const std::string& op) {
  return std::string(MINITVM_SOURCE_DIR) + "/tests/data/pool/" + op + ".jsonl";
}

void run_file(const std::string& op, PoolLayout layout, size_t expected_cases) {
  std::vector<GoldenCase> cases = read_golden_file(golden_path(op));
  ASSERT_EQ(cases.size(), expected_cases) << op;
  ReferencePoolExecutor ref;
  ConformanceOptions opts;
  opts.exact = true;
  opts.check_error_kind = true;
  opts.layout = layout;
  std::ostringstream log;
  ConformanceSummary s = run_pool_cases(cases, ref, opts, &log);
  EXPECT_EQ(s.failed, 0) << op << ": " << log.str();
  EXPECT_EQ(s.passed, static_cast<int>(expected_cases));
}

}  // namespace

// Case counts per file guard against a truncated copy of the data.
TEST(PoolGolden, MaxPool1d) {
  run_file("max_pool1d", PoolLayout::ChannelsFirst, 96);
}
TEST(PoolGolden, MaxPool2d) {
  run_file("max_pool2d", PoolLayout::ChannelsFirst, 580);
}
TEST(PoolGolden, MaxPool3d) {
  run_file("max_pool3d", PoolLayout::ChannelsFirst, 61);
}
TEST(PoolGolden, AvgPool1d) {
  run_file("avg_pool1d", PoolLayout::ChannelsFirst, 73);
}
TEST(PoolGolden, AvgPool2d) {
  run_file("avg_pool2d", PoolLayout::ChannelsFirst, 511);
}
TEST(PoolGolden, AvgPool3d) {
  run_file("avg_pool3d", PoolLayout::ChannelsFirst, 54);
}
TEST(PoolGolden, AdaptiveAvgPool2d) {
  run_file("adaptive_avg_pool2d", PoolLayout::ChannelsFirst, 245);
}
TEST(PoolGolden, AdaptiveMaxPool2d) {
  run_file("adaptive_max_pool2d", PoolLayout::ChannelsFirst, 245);
}

// The same cases in channels-last layout (NLC/NHWC/NDHWC) must give the same results.
TEST(PoolGoldenChannelsLast, MaxPool1d) {
  run_file("max_pool1d", PoolLayout::ChannelsLast, 96);
}
TEST(PoolGoldenChannelsLast, MaxPool2d) {
  run_file("max_pool2d", PoolLayout::ChannelsLast, 580);
}
TEST(PoolGoldenChannelsLast, MaxPool3d) {
  run_file("max_pool3d", PoolLayout::ChannelsLast, 61);
}
TEST(PoolGoldenChannelsLast, AvgPool1d) {
  run_file("avg_pool1d", PoolLayout::ChannelsLast, 73);
}
TEST(PoolGoldenChannelsLast, AvgPool2d) {
  run_file("avg_pool2d", PoolLayout::ChannelsLast, 511);
}
TEST(PoolGoldenChannelsLast, AvgPool3d) {
  run_file("avg_pool3d", PoolLayout::ChannelsLast, 54);
}
TEST(PoolGoldenChannelsLast, AdaptiveAvgPool2d) {
  run_file("adaptive_avg_pool2d", PoolLayout::ChannelsLast, 245);
}
TEST(PoolGoldenChannelsLast, AdaptiveMaxPool2d) {
  run_file("adaptive_max_pool2d", PoolLayout::ChannelsLast, 245);
}
