// Tests that need a real GPU (ctest label `gpu`). Without a CUDA driver or device each test
// skips and says why.
#include <gtest/gtest.h>

#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/runtime/time_evaluator.h"

using namespace minitvm;
using runtime::ArgSpec;
using runtime::NDArray;

#define REQUIRE_GPU()             \
  if (!runtime::cuda_available()) \
  GTEST_SKIP() << "no CUDA GPU: " << runtime::cuda_unavailable_reason()

namespace {
const char* kSaxpy = R"(extern "C" __global__ void saxpy(float* Y, const float* X, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) Y[i] = a * X[i] + Y[i];
}
)";

runtime::CudaFunctionInfo saxpy_info(int64_t n) {
  DataType f32 = DataType::Float(32);
  runtime::CudaFunctionInfo info;
  info.signature = {"saxpy",
                    {{"Y", ArgSpec::Kind::Buffer, f32, {n}},
                     {"X", ArgSpec::Kind::Buffer, f32, {n}},
                     {"a", ArgSpec::Kind::Scalar, f32, {}},
                     {"n", ArgSpec::Kind::Scalar, DataType::Int(32), {}}}};
  runtime::KernelLaunch l;
  l.kernel = "saxpy";
  l.args = {0, 1, 2, 3};
  l.grid = {(n + 255) / 256, 1, 1};
  l.block = {256, 1, 1};
  info.launches = {l, l};  // two launches in order: Y = 2aX + Y
  return info;
}
}  // namespace

TEST(Gpu, NDArrayHostDeviceRoundTrip) {
  REQUIRE_GPU();
  std::vector<float> v(1000);
  for (int i = 0; i < 1000; ++i) v[i] = 0.5f * i;
  NDArray h = NDArray::from_vector(v, {10, 100});
  NDArray d = h.copy_to(Device::cuda(0));
  EXPECT_EQ(d.device(), Device::cuda(0));
  NDArray d2 = NDArray::empty({10, 100}, DataType::Float(32), Device::cuda(0));
  d2.copy_from(d);  // device to device
  EXPECT_EQ(d2.to_vector<float>(), v);
  EXPECT_EQ(runtime::NDArray::from_dlpack(d2.to_dlpack()).to_vector<float>(), v);
}

TEST(Gpu, NvrtcModuleRunsAndTimes) {
  REQUIRE_GPU();
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC is not installed";
  const int n = 10000;
  auto r = runtime::nvrtc_compile(kSaxpy);  // arch from the device
  auto [major, minor] = runtime::cuda_compute_capability(0);
  EXPECT_EQ(r.arch,
            "sm_" + std::to_string(major) + std::to_string(minor));  // unless NVRTC is older
  runtime::Module m = runtime::make_cuda_module(r.ptx, {saxpy_info(n)}, kSaxpy, r.arch);
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 17);
    y[i] = float(i % 5) - 2.0f;
  }
  NDArray X = NDArray::from_vector(x, {n}).copy_to(Device::cuda(0));
  NDArray Y = NDArray::from_vector(y, {n}).copy_to(Device::cuda(0));
  m.get_function("saxpy")(Y, X, 1.5f, n);
  auto out = Y.to_vector<float>();
  for (int i = 0; i < n; ++i) ASSERT_FLOAT_EQ(out[i], y[i] + 3.0f * x[i]) << i;
  auto timing =
      runtime::time_evaluator(m.get_function("saxpy"), Device::cuda(0), 10, 3)(Y, X, 0.0f, n);
  EXPECT_EQ(timing.results.size(), 3u);
  EXPECT_GT(timing.min, 0.0);
  EXPECT_LT(timing.max, 0.1);
}

TEST(Gpu, MissingKernelNamesCudaError) {
  REQUIRE_GPU();
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC is not installed";
  auto info = saxpy_info(16);
  info.launches[0].kernel = "no_such_kernel";
  runtime::Module m = runtime::make_cuda_module(runtime::nvrtc_compile(kSaxpy).ptx, {info}, kSaxpy);
  NDArray Y = NDArray::empty({16}, DataType::Float(32), Device::cuda(0));
  try {
    m.get_function("saxpy")(Y, Y, 1.0f, 16);
    FAIL() << "no throw";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA_ERROR_NOT_FOUND"), std::string::npos) << e.what();
  }
}
