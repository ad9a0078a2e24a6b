// support/target.h on its own: the one parse of a target string (TVM v0.6's keys and model, the
// options the code generators interpret, their errors) and build()'s stricter check.
#include <gtest/gtest.h>

#include <string>

#include "minitvm/support/error.h"
#include "minitvm/support/target.h"

namespace minitvm {
namespace {

std::string error_of(const std::string& s, bool build_check = false) {
  try {
    Target t = parse_target(s);
    if (build_check) check_build_target(t);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Target, KeysAndModelAsTvm) {
  Target c = parse_target("cuda -model=titanx");
  EXPECT_EQ(c.name, "cuda");
  EXPECT_EQ(c.keys, (std::vector<std::string>{"cuda", "gpu"}));
  EXPECT_EQ(c.model(), "titanx");
  EXPECT_EQ(c.str(), "cuda -model=titanx");
  EXPECT_TRUE(c.is_cuda());
  EXPECT_FALSE(c.is_llvm());
  Target l = parse_target("llvm -mcpu=skylake-avx512");
  EXPECT_EQ(l.keys, (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(l.model(), "unknown");
  EXPECT_TRUE(l.is_llvm());
  Target o = parse_target("opencl -device=mali");  // TVM pushes the device key twice
  EXPECT_EQ(o.keys, (std::vector<std::string>{"mali", "mali", "opencl", "gpu"}));
  EXPECT_EQ(o.device_name, "mali");
}

TEST(Target, InterpretedOptionsAndTheOriginalOrder) {
  Target t = parse_target("cuda -arch=sm_80 -model=unknown -emulate -checked");
  EXPECT_EQ(t.arch, "sm_80");
  EXPECT_TRUE(t.emulate);
  EXPECT_TRUE(t.checked);
  EXPECT_EQ(t.option_value("arch"), "sm_80");
  EXPECT_EQ(t.option_value("nothing"), "");
  EXPECT_EQ(t.str(), "cuda -arch=sm_80 -model=unknown -emulate -checked");
  Target l = parse_target("llvm -mcpu=znver4 -mattr=+avx2,-fma -mtriple=x86_64-linux-gnu");
  EXPECT_EQ(l.mcpu, "znver4");
  EXPECT_EQ(l.mattr, (std::vector<std::string>{"+avx2", "-fma"}));
  EXPECT_EQ(l.mtriple, "x86_64-linux-gnu");
  EXPECT_EQ(parse_target("llvm -target=x86_64-linux-gnu").mtriple, "x86_64-linux-gnu");
  for (const char* a : {"sm_90", "sm_90a", "sm_100f", "sm_75"}) EXPECT_TRUE(is_cuda_arch_syntax(a));
  for (const char* a : {"sm_9", "compute_90", "banana", "sm_"})
    EXPECT_FALSE(is_cuda_arch_syntax(a));
}

TEST(Target, BadValuesAndOptionsNameWhatIsWrong) {
  EXPECT_TRUE(has(error_of(""), "empty")) << error_of("");
  std::string m = error_of("cuda -arch=banana");
  EXPECT_TRUE(has(m, "-arch=banana") && has(m, "invalid value 'banana'")) << m;
  m = error_of("llvm -mattr=avx2");
  EXPECT_TRUE(has(m, "invalid feature 'avx2'")) << m;
  // A log's foreign options parse; build()'s check rejects what minitvm cannot compile.
  EXPECT_EQ(error_of("cuda -frobnicate"), "");
  EXPECT_TRUE(has(error_of("cuda -frobnicate", true), "unknown option '-frobnicate'"));
  EXPECT_TRUE(has(error_of("opencl", true), "unknown target 'opencl'"));
  EXPECT_TRUE(has(error_of("cuda -checked", true), "-checked applies to the CPU emulator only"));
  EXPECT_EQ(error_of("cuda -emulate -checked -model=unknown", true), "");
  EXPECT_EQ(error_of("llvm -mcpu=skylake-avx512 -mattr=-fma", true), "");
}

}  // namespace
}  // namespace minitvm
