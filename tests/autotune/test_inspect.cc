// `tophub inspect` logic (the command-line tool calls tophub_inspect).
#include <gtest/gtest.h>

#include <sstream>

#include "minitvm/autotune/record.h"
#include "minitvm/devtools/inspect.h"
#include "test_util.h"

using namespace minitvm::autotune;
using minitvm::autotune::testing::repo;

TEST(Inspect, SummaryOfCudaV009) {
  std::ostringstream out, err;
  EXPECT_EQ(tophub_inspect({repo("tophub/cuda_v0.09.log")}, out, err), 0);
  std::string s = out.str();
  EXPECT_NE(s.find("records: 687 (lines 688, comments 0, blank 0, skipped 1)"), std::string::npos)
      << s;
  EXPECT_NE(s.find("format: 0.2"), std::string::npos);
  EXPECT_NE(s.find("cuda -model=jetson-nano (191)"), std::string::npos) << s;
  EXPECT_NE(s.find("cuda_v0.09.log:688: tensor argument has 4 fields"), std::string::npos);
}

TEST(Inspect, BestJsonForSeedLog) {
  std::ostringstream out, err;
  ASSERT_EQ(
      tophub_inspect({repo("tophub/seed/vgg16_bs_1.log"), "--best", "cuda", "--json"}, out, err),
      0);
  std::istringstream lines(out.str());
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    Json o = Json::parse(line);
    EXPECT_EQ(o["task"].get<std::string>().substr(0, 7), "topi_nn");
    EXPECT_EQ(o["model"], "unknown");
    EXPECT_TRUE(o["entity"].is_array());
    EXPECT_GT(o["mean_cost"].get<double>(), 0);
    ++n;
  }
  EXPECT_EQ(n, 12);  // vgg16: 12 distinct workloads, each tuned once
  // first line is the first record of the file
  auto first = load_records(repo("tophub/seed/vgg16_bs_1.log"))[0];
  Json o = Json::parse(out.str().substr(0, out.str().find('\n')));
  EXPECT_EQ(o["workload"], first.input.workload);
  EXPECT_EQ(o["config_index"], first.input.config.index);
  EXPECT_EQ(o["entity"], first.input.config.entity_json());
}

TEST(Inspect, EveryFileOfEveryTargetAndBadArgs) {
  std::ostringstream out, err;
  EXPECT_EQ(tophub_inspect({repo("tophub"), repo("tests/data/autotune/other_targets"), "--best",
                            "llvm -mcpu=skylake-avx512"},
                           out, err),
            0);
  EXPECT_NE(out.str().find("have a record for this target"), std::string::npos);
  std::ostringstream o2, e2;
  EXPECT_EQ(tophub_inspect({}, o2, e2), 2);
  EXPECT_EQ(tophub_inspect({"x.log", "--json"}, o2, e2), 2);
  EXPECT_EQ(tophub_inspect({repo("no/such.log")}, o2, e2), 1);
}
