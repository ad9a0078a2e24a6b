// A large subset of the PyTorch 1.13 golden suite (every 12th case of every op file, about 155
// cases) through kernels built for "cuda -emulate": the CUDA schedules of topi/pool.h run by the
// CUDA emulator, checked with the golden README's tolerances.
#include <gtest/gtest.h>

#include <sstream>

#include "minitvm/devtools/pool_conformance.h"
#include "minitvm/frontend/pool_compiled.h"

using namespace minitvm;
using namespace minitvm::frontend;

namespace {

constexpr size_t kEveryNth = 12;

void run_file(const std::string& op) {
  static CompiledPoolExecutor exec("cuda -emulate");
  std::vector<GoldenCase> all =
      read_golden_file(std::string(MINITVM_SOURCE_DIR) + "/tests/data/pool/" + op + ".jsonl");
  std::vector<GoldenCase> cases;
  for (size_t i = 0; i < all.size(); i += kEveryNth) cases.push_back(all[i]);
  ASSERT_FALSE(cases.empty()) << op;
  std::ostringstream log;
  ConformanceSummary s = run_pool_cases(cases, exec, ConformanceOptions{}, &log);
  EXPECT_EQ(s.failed, 0) << op << ": " << log.str();
  EXPECT_EQ(s.passed, static_cast<int>(cases.size()));
}

}  // namespace

TEST(PoolGoldenCudaEmulate, MaxPool1d) {
  run_file("max_pool1d");
}
TEST(PoolGoldenCudaEmulate, MaxPool2d) {
  run_file("max_pool2d");
}
TEST(PoolGoldenCudaEmulate, MaxPool3d) {
  run_file("max_pool3d");
}
TEST(PoolGoldenCudaEmulate, AvgPool1d) {
  run_file("avg_pool1d");
}
TEST(PoolGoldenCudaEmulate, AvgPool2d) {
  run_file("avg_pool2d");
}
TEST(PoolGoldenCudaEmulate, AvgPool3d) {
  run_file("avg_pool3d");
}
TEST(PoolGoldenCudaEmulate, AdaptiveAvgPool2d) {
  run_file("adaptive_avg_pool2d");
}
TEST(PoolGoldenCudaEmulate, AdaptiveMaxPool2d) {
  run_file("adaptive_max_pool2d");
}
