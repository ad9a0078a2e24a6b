// A large subset of the PyTorch 1.13 golden suite (every 12th case of every op file, about 155
// cases) through kernels built for "cuda -emulate": the CUDA schedules of topi/pool.h run by the
// CUDA emulator, checked with the golden README's tolerances.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "minitvm/devtools/pool_conformance.h"
#include "minitvm/frontend/pool_compiled.h"
#include "minitvm/frontend/pool_executor.h"
#include "minitvm/frontend/pool_plan.h"

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

// One-byte window taps (topi::IndexBase::WindowTap) through the CUDA schedules: the emulated
// forward writes the reference's taps, and the backward that reads them gives the reference's
// gradient from per-plane indices, bit for bit (disjoint and overlapping padded windows).
TEST(PoolCudaEmulate, WindowTapsMatchTheReference) {
  CompiledPoolExecutor exec("cuda -emulate");
  ReferencePoolExecutor ref;
  struct Case {
    int64_t k, s, pad;
  };
  for (const Case& c : {Case{3, 3, 0}, Case{3, 2, 1}, Case{2, 2, 0}}) {
    MaxPoolParams p;
    p.kernel_size = {c.k};
    p.stride = {c.s};
    p.padding = {c.pad};
    p.return_indices = true;
    const topi::PoolPlan flat = plan_max_pool(
        2, PoolInput{{2, 3, 11, 13}, DataType::Float(32), topi::PoolLayout::ChannelsFirst}, p);
    topi::PoolPlan plan = flat;
    plan.index_base = topi::IndexBase::WindowTap;
    SCOPED_TRACE(plan.str());
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-2, 2);
    std::vector<double> xv(2 * 3 * 11 * 13), gv(static_cast<size_t>(
                                                 2 * 3 * flat.axes[0].out * flat.axes[1].out));
    for (auto& v : xv) v = std::round(u(rng) * 4) / 4;  // ties
    for (auto& v : gv) v = u(rng);
    HostArray x = HostArray::from_doubles(DataType::Float(32), flat.input_shape(), xv);
    HostArray gy = HostArray::from_doubles(DataType::Float(32), flat.output_shape(), gv);
    PoolForwardResult want = ref.forward(plan, x), want_flat = ref.forward(flat, x);
    PoolForwardResult got = exec.forward(plan, x);
    ASSERT_EQ(got.indices.dtype(), DataType::UInt(8));
    for (int64_t i = 0; i < got.indices.numel(); ++i) {
      ASSERT_EQ(got.indices.get_int(i), want.indices.get_int(i)) << i;
      ASSERT_EQ(got.output.get(i), want.output.get(i)) << i;
    }
    HostArray gx = exec.backward(plan, x, gy, &got.indices);
    HostArray gx_want = ref.backward(flat, x, gy, &want_flat.indices);
    for (int64_t i = 0; i < gx.numel(); ++i) ASSERT_EQ(gx.get(i), gx_want.get(i)) << i;
  }
}
