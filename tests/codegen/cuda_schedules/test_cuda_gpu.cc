// tests/codegen/cuda_schedules, label gpu: the kernels of cases.h built for target "cuda" and run
// on a real device, with time_evaluator timings. Every test skips with the reason when there is no
// CUDA driver/device.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include "cases.h"
#include "check.h"
#include "minitvm/codegen/build.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/time_evaluator.h"

namespace minitvm::cuda_tests {
namespace {

#define MINITVM_REQUIRE_GPU()                                                \
  do {                                                                       \
    if (!runtime::cuda_available())                                          \
      GTEST_SKIP() << "no CUDA GPU: " << runtime::cuda_unavailable_reason(); \
  } while (0)

class CudaGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaGpu, RunsOnDeviceAndMatchesReference) {
  MINITVM_REQUIRE_GPU();
  CudaCase c = make_case(GetParam());
  runtime::Module m = build(c.sch, c.args, "cuda", c.name);
  EXPECT_EQ(m.type_key(), "cuda");
  check_compiles(m);
  Device dev = Device::cuda(0);
  auto args = run_and_compare(m, c, dev);
  auto timer = runtime::time_evaluator(m.get_function(c.name), dev, 10, 3, 1.0);
  runtime::ProfileResult r = timer.call(args);
  EXPECT_GT(r.mean, 0.0);
  EXPECT_EQ(r.results.size(), 3u);
  double us = r.median * 1e6;
  std::printf("GPU_RESULT kernel=%s median_us=%.3f min_us=%.3f", c.name.c_str(), us, r.min * 1e6);
  if (c.flops > 0) std::printf(" gflops=%.2f", c.flops / r.median * 1e-9);
  std::printf("\n");
  RecordProperty("median_us", std::to_string(us));
}

INSTANTIATE_TEST_SUITE_P(Kernels, CudaGpu, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

TEST(CudaGpuModule, SaveLoadRunsOnDevice) {
  MINITVM_REQUIRE_GPU();
  CudaCase c = make_case("tiled_matmul");
  runtime::Module m = build(c.sch, c.args, "cuda", c.name);
  auto dir =
      std::filesystem::temp_directory_path() / ("minitvm_cuda_gpu_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "mm.ptx").string();
  m.save(path);
  runtime::Module loaded = runtime::load_cuda_module(path);
  EXPECT_EQ(loaded.get_source("ptx"), m.get_source("ptx"));
  run_and_compare(loaded, c, Device::cuda(0));
  std::filesystem::remove_all(dir);
}

TEST(CudaGpuModule, PreloadedOnAnotherThreadRuns) {
  MINITVM_REQUIRE_GPU();
  CudaCase c = make_case("tiled_matmul");
  runtime::Module m = build(c.sch, c.args, "cuda", c.name);
  std::thread loader([&] { runtime::cuda_module_load(m, Device::cuda(0)); });
  loader.join();
  runtime::cuda_module_load(m, Device::cuda(0));  // already loaded: nothing to do
  run_and_compare(m, c, Device::cuda(0));
}

TEST(CudaGpuModule, LargeTiledMatmulThroughput) {
  MINITVM_REQUIRE_GPU();
  CudaCase c = make_tiled_matmul(1024, /*with_reference=*/false);
  runtime::Module m = build(c.sch, c.args, "cuda", c.name);
  std::vector<runtime::ArgValue> args;
  for (const auto& h : c.host) args.emplace_back(h.copy_to(Device::cuda(0)));
  runtime::ProfileResult r =
      runtime::time_evaluator(m.get_function(c.name), Device::cuda(0), 5, 3, 10.0).call(args);
  double gflops = c.flops / r.median * 1e-9;
  std::printf("GPU_RESULT kernel=tiled_matmul_1024 median_us=%.3f gflops=%.2f\n", r.median * 1e6,
              gflops);
  EXPECT_GT(gflops, 1.0);  // anything slower means the launch or the schedule is broken
}

}  // namespace
}  // namespace minitvm::cuda_tests
