// Every test kernel also compiles for a real GPU: nvcc --ptx -arch=sm_90 then ptxas -arch=sm_90.
// Skipped (visibly) when the CUDA toolkit is not installed. The runtime's NVRTC wrapper has its own
// tests; this check keeps the emulator's test kernels honest CUDA.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "runtime/emulator/kernels.h"

namespace fs = std::filesystem;

namespace {
std::string find_tool(const std::string& name) {
  for (const char* dir : {"/usr/local/cuda/bin", "/usr/bin"}) {
    fs::path p = fs::path(dir) / name;
    if (fs::exists(p)) return p.string();
  }
  return "";
}
}  // namespace

TEST(EmulatorKernelsOnCuda, NvccAndPtxasAcceptEveryTestKernel) {
  const std::string nvcc = find_tool("nvcc"), ptxas = find_tool("ptxas");
  if (nvcc.empty() || ptxas.empty()) GTEST_SKIP() << "CUDA toolkit (nvcc, ptxas) not installed";
  const fs::path dir =
      fs::temp_directory_path() / ("minitvm-emu-ptxas-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream f(dir / "kernels.cu");
    f << minitvm_test::all_kernels_source();
  }
  const std::string log = (dir / "log.txt").string();
  const std::string cmd1 = nvcc + " --ptx -arch=sm_90 -o " + (dir / "kernels.ptx").string() + " " +
                           (dir / "kernels.cu").string() + " > " + log + " 2>&1";
  const int rc1 = std::system(cmd1.c_str());
  std::stringstream out1;
  out1 << std::ifstream(log).rdbuf();
  ASSERT_EQ(rc1, 0) << cmd1 << "\n" << out1.str();
  const std::string cmd2 = ptxas + " -arch=sm_90 -v -o " + (dir / "kernels.cubin").string() + " " +
                           (dir / "kernels.ptx").string() + " > " + log + " 2>&1";
  const int rc2 = std::system(cmd2.c_str());
  std::stringstream out2;
  out2 << std::ifstream(log).rdbuf();
  ASSERT_EQ(rc2, 0) << cmd2 << "\n" << out2.str();
  // ptxas -v reports each kernel; all nine must be there and none may spill.
  const std::string report = out2.str();
  for (const char* k :
       {"vadd_kernel0", "rowsum_kernel0", "matmul_kernel0", "vcopy_kernel0", "hadd_relu_kernel0",
        "hmean_kernel0", "act_kernel0", "bf16_madd_relu_kernel0", "bf16_conv_kernel0"})
    EXPECT_NE(report.find(k), std::string::npos) << k << "\n" << report;
  const std::regex spill(R"((\d+) bytes spill stores)");
  int lines = 0;
  for (std::sregex_iterator it(report.begin(), report.end(), spill), end; it != end; ++it, ++lines)
    EXPECT_EQ((*it)[1].str(), "0") << report;
  EXPECT_GE(lines, 9) << report;
  fs::remove_all(dir);
}
