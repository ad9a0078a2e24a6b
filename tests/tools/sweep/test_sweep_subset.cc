// A representative subset of the TopHub seed workloads through check_workload, emulated:
// conv2d direct (3x3 stride 2, 1x1, batch 8 reduced to 1), depthwise (stride 1/2), dense (batch 1
// and 8) and winograd. Each case is one seed-log line; its best record (over all seed logs of the
// same file) is applied exactly and the emulated output compared with naive loops.
#include <gtest/gtest.h>

#include <minitvm/autotune/record.h>
#include <minitvm/devtools/sweep.h>
#include <minitvm/runtime/nvrtc.h>
#include <minitvm/runtime/ptxas.h>

using namespace minitvm;
namespace sweep = minitvm::topi::sweep;

namespace {

struct Case {
  const char* file;
  int line;
  const char* kind;  // "direct", "depthwise", "dense", "winograd": what the record must select
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << c.file << ":" << c.line;
}

const Case kCases[] = {
    {"mobilenet_v2_bs_1.log", 4, "direct"},     // 3x224x224 -> 32, 3x3 stride 2
    {"mobilenet_v2_bs_1.log", 6, "direct"},     // 1x1, 112x112
    {"mobilenet_v2_bs_1.log", 12, "direct"},    // 1x1, 28x28
    {"mobilenet_v2_bs_1.log", 16, "direct"},    // 1x1, 14x14
    {"mobilenet_v2_bs_1.log", 23, "direct"},    // 1x1, 7x7
    {"resnet50v1_bs_1.log", 5, "direct"},       // 64x56x56 1x1
    {"mobilenet_v2_bs_8.log", 17, "direct"},    // batch 8, emulated at batch 1
    {"mobilenet_v2_bs_1.log", 1, "depthwise"},  // 576x14x14
    {"mobilenet_v2_bs_1.log", 7, "depthwise"},  // stride 2, 112x112
    {"mobilenet_v2_bs_1.log", 15, "depthwise"}, {"mobilenet_v2_bs_1.log", 26, "depthwise"},
    {"mobilenet_v2_bs_8.log", 24, "depthwise"}, {"mobilenet_v2_bs_1.log", 29, "dense"},
    {"resnet50v1_bs_1.log", 24, "dense"},       {"vgg16_bs_1.log", 12, "dense"},
    {"mobilenet_v2_bs_8.log", 31, "dense"},   // batch 8 small-batch template, emulated at batch 1
    {"resnet50v1_bs_1.log", 22, "winograd"},  // 512x7x7 3x3
    {"resnet50v1_bs_1.log", 17, "winograd"},  // 256x14x14 3x3
};

std::string seed(const std::string& f) {
  return std::string(MINITVM_SOURCE_DIR) + "/tophub/seed/" + f;
}

class SeedWorkload : public testing::TestWithParam<Case> {};

TEST_P(SeedWorkload, BuildsCompilesAndMatchesOnEmulator) {
  const Case& c = GetParam();
  if (!runtime::nvrtc_available() || runtime::find_ptxas().empty())
    GTEST_SKIP() << "NVRTC or ptxas not found";
  auto records = autotune::load_records(seed(c.file));
  ASSERT_GE(static_cast<int>(records.size()), c.line);
  std::string why;
  auto w = sweep::decode_workload(records[static_cast<size_t>(c.line - 1)], &why);
  ASSERT_TRUE(w.has_value()) << why;
  autotune::ApplyHistoryBest best(records);
  sweep::CheckOptions opt;
  opt.emulate = true;
  auto r = sweep::check_workload(*w, best, opt);
  std::string kind = c.kind;
  if (kind == "winograd") {
    EXPECT_EQ(r.template_key, "winograd");  // 4 kernels with intermediate global buffers
  } else if (kind == "direct") {
    EXPECT_EQ(r.template_key, "direct");
  }
  ASSERT_TRUE(r.passed) << w->describe() << ": " << r.stage << ": " << r.reason << "\nconfig "
                        << r.config;
  EXPECT_TRUE(r.emulated) << w->describe();
  EXPECT_EQ(r.emulated_batch, w->op == sweep::OpKind::Dense && w->batch >= 32 ? w->batch : 1);
  EXPECT_LT(r.max_rel_error, 1e-3);
  EXPECT_GT(r.registers, 0);
}

INSTANTIATE_TEST_SUITE_P(Seed, SeedWorkload, testing::ValuesIn(kCases));

}  // namespace
