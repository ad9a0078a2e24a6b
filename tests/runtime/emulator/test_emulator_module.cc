// The "cuda-emulator" module: checked mode (outputs no kernel wrote) and unloading of compiled
// objects when the last module using them dies.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "minitvm/runtime/cuda_emulator.h"
#include "minitvm/runtime/ndarray.h"

using namespace minitvm;
using runtime::NDArray;
using runtime::emulator::EmulatorModuleOptions;

namespace {

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << "message: " << (msg)

// B[i] = A[i] * 2 for the first `blocks_written` blocks of 64 threads only.
std::string partial_copy(int blocks_written) {
  return "extern \"C\" __global__ void __launch_bounds__(64) part_kernel0( float* __restrict__ B,  "
         "float* __restrict__ A) {\n"
         "  if (((int)blockIdx.x) < " +
         std::to_string(blocks_written) +
         ") {\n"
         "    B[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = (A[((((int)blockIdx.x) * 64) + "
         "((int)threadIdx.x))] * 2.000000e+00f);\n"
         "  }\n"
         "}\n";
}

runtime::CudaFunctionInfo copy_info(const std::string& name, const std::string& kernel, DataType dt,
                                    int64_t n) {
  runtime::CudaFunctionInfo info;
  info.signature.name = name;
  for (const char* arg : {"B", "A"}) {
    runtime::ArgSpec a;
    a.name = arg;
    a.kind = runtime::ArgSpec::Kind::Buffer;
    a.dtype = dt;
    a.shape = {n};
    info.signature.args.push_back(a);
  }
  runtime::KernelLaunch l;
  l.kernel = kernel;
  l.args = {0, 1};
  l.grid = {n / 64, 1, 1};
  l.block = {64, 1, 1};
  info.launches.push_back(l);
  return info;
}

std::string call_error(const runtime::Module& m, const std::string& fn, NDArray& b, NDArray& a) {
  try {
    m.get_function(fn)(b, a);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(EmulatorChecked, ReportsOutputElementsNoKernelWrote) {
  const int64_t n = 1024;
  std::vector<float> av(n);
  for (int64_t i = 0; i < n; ++i) av[i] = static_cast<float>(i);
  EmulatorModuleOptions opt;
  opt.checked = true;
  opt.outputs = {{0}};
  auto checked = runtime::emulator::make_cuda_emulator_module(
      partial_copy(8), {copy_info("part", "part_kernel0", DataType::Float(32), n)}, opt);
  NDArray A = NDArray::from_vector(av, {n}), B = NDArray::empty({n}, DataType::Float(32));
  std::string m = call_error(checked, "part", B, A);
  EXPECT_HAS(m, "function part: output 'B' [1024]: 512 of 1024 elements were never written");
  EXPECT_HAS(m, "part_kernel0");
  EXPECT_HAS(m, "first unwritten element: flat index 512");
  // Unchecked, the same kernel runs without a word (what the checked mode exists for).
  auto plain = runtime::emulator::make_cuda_emulator_module(
      partial_copy(8), {copy_info("part", "part_kernel0", DataType::Float(32), n)});
  EXPECT_EQ(call_error(plain, "part", B, A), "");
  // A kernel writing every element passes the checked mode with the right values.
  auto full = runtime::emulator::make_cuda_emulator_module(
      partial_copy(16), {copy_info("part", "part_kernel0", DataType::Float(32), n)}, opt);
  EXPECT_EQ(call_error(full, "part", B, A), "");
  auto b = B.to_vector<float>();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(b[i], av[i] * 2.0f) << i;
}

TEST(EmulatorChecked, KernelWritingThePoisonPatternIsNotBlamed) {
  // Every element is written with -1 (all bytes 0xff, the first poison): the rerun with 0x00
  // shows that they were written.
  const int64_t n = 256;
  const char* src =
      R"(extern "C" __global__ void __launch_bounds__(64) neg_kernel0( int* __restrict__ B,  int* __restrict__ A) {
  B[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = (A[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] - 1);
}
)";
  EmulatorModuleOptions opt;
  opt.checked = true;
  opt.outputs = {{0}};
  auto m = runtime::emulator::make_cuda_emulator_module(
      src, {copy_info("neg", "neg_kernel0", DataType::Int(32), n)}, opt);
  std::vector<int32_t> zeros(n, 0);
  NDArray A = NDArray::from_vector(zeros, {n}, DataType::Int(32)),
          B = NDArray::empty({n}, DataType::Int(32));
  EXPECT_EQ(call_error(m, "neg", B, A), "");
  for (int32_t v : B.to_vector<int32_t>()) ASSERT_EQ(v, -1);
}

int64_t maps_lines() {
  std::ifstream f("/proc/self/maps");
  int64_t n = 0;
  for (std::string line; std::getline(f, line);) ++n;
  return n;
}
int64_t rss_kb() {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::strtoll(line.c_str() + 6, nullptr, 10);
  return -1;
}

TEST(EmulatorMemory, FreedModulesUnloadTheirObjects) {
  // MINITVM_EMU_MEMORY_KERNELS=500 for the measurement in docs/EMULATOR.md; a few by default.
  int kernels = 12;
  if (const char* e = std::getenv("MINITVM_EMU_MEMORY_KERNELS")) kernels = std::atoi(e);
  const int64_t n = 256;
  std::vector<float> av(n, 1.5f);
  auto build_and_run = [&](int k) {
    std::string src = partial_copy(4);
    src.replace(src.find("2.000000e+00f"), 13,
                std::to_string(k) + ".0f");  // a distinct source each time
    auto m = runtime::emulator::make_cuda_emulator_module(
        src, {copy_info("part", "part_kernel0", DataType::Float(32), n)});
    NDArray A = NDArray::from_vector(av, {n}), B = NDArray::empty({n}, DataType::Float(32));
    m.get_function("part")(B, A);
    ASSERT_EQ(B.to_vector<float>()[3], 1.5f * k);
  };
  build_and_run(1);  // warm up: prelude, fiber stacks, allocator pools
  const int64_t objects0 = runtime::emulator::loaded_objects();
  const int64_t maps0 = maps_lines(), rss0 = rss_kb();
  for (int k = 2; k < kernels + 2; ++k) build_and_run(k);
  const int64_t maps1 = maps_lines(), rss1 = rss_kb();
  std::printf(
      "emulator memory: %d distinct kernels built, run and freed: RSS %lld -> %lld kB, "
      "/proc/self/maps %lld -> %lld lines, loaded objects %lld -> %lld\n",
      kernels, static_cast<long long>(rss0), static_cast<long long>(rss1),
      static_cast<long long>(maps0), static_cast<long long>(maps1),
      static_cast<long long>(objects0),
      static_cast<long long>(runtime::emulator::loaded_objects()));
  EXPECT_EQ(runtime::emulator::loaded_objects(), objects0);
  // Each object left loaded costs ~6 mappings; all unloaded, the count stays where it was.
  EXPECT_LT(maps1 - maps0, 16);
  // A module alive keeps its object; the same source compiled while it lives shares it.
  {
    auto a = runtime::emulator::make_cuda_emulator_module(
        partial_copy(3), {copy_info("part", "part_kernel0", DataType::Float(32), n)});
    EXPECT_EQ(runtime::emulator::loaded_objects(), objects0 + 1);
    auto b = runtime::emulator::make_cuda_emulator_module(
        partial_copy(3), {copy_info("part", "part_kernel0", DataType::Float(32), n)});
    EXPECT_EQ(runtime::emulator::loaded_objects(), objects0 + 1);
    runtime::PackedFunc f = b.get_function("part");
    b = runtime::Module();
    a = runtime::Module();
    EXPECT_EQ(runtime::emulator::loaded_objects(), objects0 + 1);  // the function still holds it
    NDArray A = NDArray::from_vector(av, {n}), B = NDArray::empty({n}, DataType::Float(32));
    f(B, A);
    EXPECT_EQ(B.to_vector<float>()[0], 3.0f);
  }
  EXPECT_EQ(runtime::emulator::loaded_objects(), objects0);
}

}  // namespace
