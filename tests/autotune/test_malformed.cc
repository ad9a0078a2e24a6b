// Bad input: every malformed line is skipped with a warning naming file:line and the reason, the
// other lines still load, and strict mode rejects instead.
#include <gtest/gtest.h>

#include <fstream>

#include "minitvm/autotune/record.h"
#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"
#include "test_util.h"

using namespace minitvm;
using namespace minitvm::autotune;
using minitvm::autotune::testing::repo;

namespace {
// A valid 0.1 line (first record of cuda_v0.04.log, shortened) and a valid 0.2 line.
const std::string kGood01 =
    R"({"i": ["cuda -model=titanx", "topi_nn_conv2d", [["TENSOR", [1, 2048, 8, 8], "float32"], ["TENSOR", [192, 2048, 1, 1], "float32"], [1, 1], [0, 0], [1, 1], "NCHW", "float32"], {}, ["conv2d", [1, 2048, 8, 8, "float32"], [192, 2048, 1, 1, "float32"], [1, 1], [0, 0], [1, 1], "NCHW", "float32"], {"i": 8797896, "c": null, "e": [["tile_f", "sp", [6, 1, 32, 1]], ["tile_y", "sp", [4, 1, 2, 1]], ["tile_x", "sp", [1, 1, 8, 1]], ["tile_rc", "sp", [64, 32]], ["tile_ry", "sp", [1, 1]], ["tile_rx", "sp", [1, 1]], ["auto_unroll_max_step", "ot", 1500], ["unroll_explicit", "ot", 1]], "t": "direct"}], "r": [[5.69732536806342e-05], 0, 14.116215467453003, 1535423916.7184713], "v": 0.1})";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

struct Case {
  std::string line, reason;
};

std::vector<Case> bad_cases() {
  return {
      {"{\"i\": [", "bad JSON"},
      {"[1, 2, 3]", "not a JSON object"},
      {"{\"x\": 1}", "neither"},
      {replace(kGood01, "\"NCHW\", \"float32\"], {}, [\"conv2d\"",
               "\"NCHW\", \"float32\"], [\"conv2d\""),
       "6 elements"},
      {replace(kGood01, "[\"unroll_explicit\", \"ot\", 1]", "[\"unroll_explicit\", \"xx\", 1]"),
       "unknown knob type 'xx'"},
      {replace(kGood01, "[\"TENSOR\", [1, 2048, 8, 8], \"float32\"]",
               "[\"TENSOR\", [1, 2048, 8, 8], \"float32\", [0, 0]]"),
       "tensor argument has 4 fields"},
      {replace(kGood01, "[[5.69732536806342e-05]", "[[NaN]"), "bad JSON"},
      {replace(kGood01, "[[5.69732536806342e-05]", "[[1e999]"), "bad JSON"},
      {replace(kGood01, "[[5.69732536806342e-05]", "[[-1.0]"), "negative cost"},
      {replace(kGood01, "[[5.69732536806342e-05]", "[[]"), "costs list is empty"},
      {replace(kGood01, "[\"tile_y\", \"sp\", [4, 1, 2, 1]]", "[\"tile_y\", \"sp\", [4, 0, 2, 1]]"),
       "not positive"},
      {replace(kGood01, "[\"tile_y\", \"sp\", [4, 1, 2, 1]]",
               "[\"tile_y\", \"sp\", [4, -2, 2, 1]]"),
       "not positive"},
      {replace(kGood01, "{\"i\": 8797896", "{\"i\": 9676800"), "outside the space"},
      {replace(kGood01, "{\"i\": 8797896", "{\"i\": -3"), "negative config index"},
      {replace(kGood01, "\"v\": 0.1", "\"v\": 0.3"), "unsupported record version"},
      {replace(kGood01, "\"cuda -model=titanx\"", "\"\""), "bad target"},
      {replace(kGood01, "0, 14.116215467453003", "\"0\", 14.116215467453003"),
       "error_no must be an integer"},
      {std::string(100, '[') + std::string(100, ']'), "nested deeper"},
  };
}
}  // namespace

TEST(Malformed, EachCaseSkippedWithFileLineAndReason) {
  for (const auto& c : bad_cases()) {
    std::string text = "# comment\n" + kGood01 + "\n" + c.line + "\n" + kGood01 + "\n";
    WarningCapture w;
    LoadReport rep;
    auto recs = load_records_from_string(text, "mem.log", {}, &rep);
    EXPECT_EQ(recs.size(), 2u) << c.reason;
    EXPECT_EQ(rep.comments, 1);
    ASSERT_EQ(rep.skipped.size(), 1u) << c.reason;
    EXPECT_EQ(rep.skipped[0].line, 3);
    EXPECT_NE(rep.skipped[0].reason.find(c.reason), std::string::npos)
        << rep.skipped[0].reason << " vs " << c.reason;
    ASSERT_EQ(w.messages().size(), 1u);
    EXPECT_NE(w.messages()[0].find("mem.log:3: "), std::string::npos) << w.messages()[0];
    LoadOptions strict;
    strict.strict = true;
    EXPECT_THROW(load_records_from_string(text, "mem.log", strict), CompileError) << c.reason;
  }
}

TEST(Malformed, BlankAndCRLFLinesAndNoTrailingNewline) {
  WarningCapture w;
  LoadReport rep;
  auto recs = load_records_from_string("\n" + kGood01 + "\r\n   \n" + kGood01, "x.log", {}, &rep);
  EXPECT_EQ(recs.size(), 2u);
  EXPECT_EQ(rep.blank, 2);
  EXPECT_TRUE(w.messages().empty());
  EXPECT_EQ(recs[1].line, 4);
}

TEST(Malformed, CudaV009Line688) {
  WarningCapture w;
  LoadReport rep;
  auto recs = load_records(repo("tophub/cuda_v0.09.log"), {}, &rep);
  EXPECT_EQ(recs.size(), 687u);
  ASSERT_EQ(rep.skipped.size(), 1u);
  EXPECT_EQ(rep.skipped[0].line, 688);
  EXPECT_NE(rep.skipped[0].reason.find("tensor argument has 4 fields"), std::string::npos);
}

TEST(Malformed, HostileInputsDoNotCrashOrBlowUp) {
  WarningCapture w;
  std::vector<std::string> lines = {
      std::string(2 << 20, ' ') + "{}",  // over the line-length limit
      replace(kGood01, "[1, 2048, 8, 8, \"float32\"]",
              "[1, 2048, 4611686018427387904, 8, \"float32\"]"),
      replace(kGood01, "[192, 2048, 1, 1, \"float32\"]", "[2147483647, 2048, 1, 1, \"float32\"]"),
      replace(kGood01, "{\"i\": 8797896", "{\"i\": 99999999999999999999999"),
      "{\"i\": [\"cuda\", \"t\", [], {}, [\"w\"], {\"i\": 0, \"c\": null, \"t\": \"x\", \"e\": "
      "[[\"a\", \"sp\", [-1, 99999999999]]]}], \"r\": [[1.0], 0, 0.0, 0.0], \"v\": 0.1}",
      "{\"i\": [\"cuda\", \"t\", [], {}, [\"w\"], {\"i\": 0, \"c\": null, \"t\": \"x\", \"e\": "
      "[]}], \"r\": [[1.0], 0, 0.0, 0.0], \"v\": 0.1, \"zz\": [1]}",
  };
  std::string text;
  for (auto& l : lines) text += l + "\n";
  LoadReport rep;
  auto recs = load_records_from_string(text, "hostile.log", {}, &rep);
  EXPECT_EQ(recs.size() + rep.skipped.size(), lines.size());
  // the last line has an unknown extra key: accepted (TVM ignores it) and kept for re-encoding
  ASSERT_FALSE(recs.empty());
  EXPECT_EQ(encode_record(recs.back()), lines.back());
}
