// `minitvm tophub check` (run_sweep) on small logs: llvm records through their registered
// templates, malformed lines counted apart.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/record.h"
#include "minitvm/autotune/task.h"
#include "minitvm/devtools/sweep.h"
#include "minitvm/support/logging.h"

namespace {

using namespace minitvm;
namespace at = minitvm::autotune;
namespace fs = std::filesystem;

std::string data(const std::string& name) {
  return std::string(MINITVM_SOURCE_DIR) + "/tests/data/tophub_check/" + name;
}

// `tophub check` on a log of llvm pool records: the good record is built and compared with the
// template's reference; a cut line and a record whose config is not in the template's space are
// reported as malformed with file:line and counted apart from failures.
TEST(TophubCheck, MalformedLinesAreCountedApartFromFailures) {
  topi::sweep::SweepOptions opt;
  std::ostringstream out;
  std::string path = data("pool_malformed.log");
  auto s = topi::sweep::run_sweep({path}, opt, out);
  std::string text = out.str();
  EXPECT_EQ(s.passed, 1) << text;
  EXPECT_EQ(s.failed, 0) << text;
  EXPECT_EQ(s.malformed, 2) << text;
  EXPECT_NE(text.find("MALFORMED " + path + ":3: "), std::string::npos) << text;
  EXPECT_NE(text.find("MALFORMED " + path + ":4: "), std::string::npos) << text;
  EXPECT_NE(text.find("knob 'vec' value 7"), std::string::npos)
      << text;  // the reason names the knob
  EXPECT_NE(text.rfind("1 passed, 0 failed, 2 malformed\n"), std::string::npos) << text;
}

// The llvm logs it can build are checked: a conv2d_NCHWc.x86 record (the template of
// tophub/llvm_v0.04.log, written here by the tuner's own make_record for a small layer) is built
// with its config and compared with the template's reference. Before, such logs gave
// "0 passed, 0 failed" (the workload was skipped as not covered).
TEST(TophubCheck, ChecksConv2dNCHWcRecords) {
  at::Json args = at::Json::parse(
      R"([["TENSOR", [1, 8, 8, 8], "float32"], ["TENSOR", [8, 8, 3, 3], "float32"], [1, 1], [1, 1, 1, 1], [1, 1],
          "NCHW", "NCHW", "float32"])");
  at::Task task("conv2d_NCHWc.x86", args, "llvm");
  ASSERT_GT(task.config_space().size(), 2);
  at::MeasureResult ok;
  ok.costs = {1e-5};
  ok.timestamp = 1.0;
  std::string path = testing::TempDir() + "/nchwc_small.log";
  {
    std::ofstream f(path);
    f << at::encode_record(
             at::make_record(task, task.config_space().get(task.config_space().size() - 1), ok))
      << "\n";
  }
  topi::sweep::SweepOptions opt;
  opt.verbose = true;
  std::ostringstream out;
  auto s = topi::sweep::run_sweep({path}, opt, out);
  std::string text = out.str();
  EXPECT_EQ(s.passed, 1) << text;
  EXPECT_EQ(s.failed, 0) << text;
  EXPECT_EQ(s.malformed, 0) << text;
  EXPECT_EQ(s.skipped, 0) << text;
  EXPECT_NE(text.find("PASS conv2d_NCHWc.x86 "), std::string::npos) << text;
}

// TVM's 0.1 llvm packages (tophub/llvm_v0.01.log: topi_x86_conv2d_NCHWc) have no registered
// template: their workloads are reported as skipped, neither passed nor failed.
TEST(TophubCheck, UnregisteredLlvmTasksAreSkippedNotPassed) {
  std::string path = testing::TempDir() + "/llvm_v01_like.log";
  {
    std::ifstream in(std::string(MINITVM_SOURCE_DIR) + "/tophub/llvm_v0.01.log");
    std::ofstream f(path);
    std::string l;
    while (std::getline(in, l))
      if (!l.empty() && l[0] != '#') {
        f << l << "\n";
        break;
      }
  }
  topi::sweep::SweepOptions opt;
  std::ostringstream out;
  auto s = topi::sweep::run_sweep({path}, opt, out);
  EXPECT_EQ(s.passed + s.failed + s.malformed, 0) << out.str();
  EXPECT_EQ(s.skipped, 1) << out.str();
  EXPECT_NE(out.str().find("is not a registered template"), std::string::npos) << out.str();
}

}  // namespace
