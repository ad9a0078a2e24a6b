// NVRTC/ptxas resource checks and reference comparison for tests/codegen/cuda_schedules.
#include "check.h"

#include <gtest/gtest.h>

#include <iostream>

#include "minitvm/runtime/nvrtc.h"

namespace minitvm::cuda_tests {

CompileCheck check_compiles(const runtime::Module& m) {
  CompileCheck out;
  if (!runtime::nvrtc_available()) {
    out.why = "NVRTC (libnvrtc) not found";
    return out;
  }
  const std::string src = m.get_source("cuda");
  runtime::NvrtcOptions o;
  o.arch = "sm_90";
  runtime::NvrtcResult r;
  try {
    r = runtime::nvrtc_compile(src, o);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "NVRTC rejected the kernel:\n" << e.what();
    return out;
  }
  out.ptx = r.ptx;
  if (runtime::find_ptxas().empty()) {
    out.why = "ptxas not found: only NVRTC was checked";
    return out;
  }
  try {
    out.report = runtime::ptxas_check(r.ptx, "sm_90");
  } catch (const std::exception& e) {
    ADD_FAILURE() << "ptxas rejected the PTX:\n" << e.what();
    return out;
  }
  EXPECT_FALSE(out.report.kernels.empty()) << out.report.output;
  for (const auto& k : out.report.kernels) {
    EXPECT_GT(k.registers, 0) << k.name;
    EXPECT_LE(k.registers, 255) << k.name;
    EXPECT_LE(k.shared_bytes, 227 * 1024) << k.name;
    std::cout << "  [ptxas sm_90] " << k.name << ": " << k.registers << " registers, "
              << k.shared_bytes << " bytes smem, " << k.spill_stores << " bytes spill stores, "
              << k.spill_loads << " bytes spill loads\n";
    if (k.spill_stores || k.spill_loads)
      ::testing::Test::RecordProperty("spills_" + k.name,
                                      std::to_string(k.spill_stores + k.spill_loads));
  }
  out.checked = true;
  return out;
}

std::vector<runtime::ArgValue> run_and_compare(const runtime::Module& m, const CudaCase& c,
                                               Device dev) {
  std::vector<runtime::ArgValue> args;
  std::vector<runtime::NDArray> arrays;
  for (const auto& h : c.host) {
    arrays.push_back(dev.is_cpu() ? h : h.copy_to(dev));
    args.emplace_back(arrays.back());
  }
  m.get_function(c.name).call(args);
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    runtime::NDArray out = arrays[c.outputs[i]];
    if (!dev.is_cpu()) out = out.copy_to(Device::cpu());
    const std::vector<double>* alt = i < c.expected_alt.size() ? &c.expected_alt[i] : nullptr;
    std::string diff = compare(to_doubles(out), c.expected[i], c.rtol, c.atol, alt);
    EXPECT_EQ(diff, "") << c.name << " output " << c.outputs[i] << "\n" << m.get_source("cuda");
  }
  return args;
}

}  // namespace minitvm::cuda_tests
