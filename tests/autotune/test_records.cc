// Records: targets, workload keys, decode/encode of both formats, byte-exact round trip of every
// shipped log line.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "minitvm/autotune/json_text.h"
#include "minitvm/autotune/record.h"
#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"
#include "test_util.h"

using namespace minitvm;
using namespace minitvm::autotune;
using minitvm::autotune::testing::logs_in;
using minitvm::autotune::testing::repo;

TEST(Target, KeysAndModel) {
  auto t = parse_target("cuda -model=titanx");
  EXPECT_EQ(t.keys, (std::vector<std::string>{"cuda", "gpu"}));
  EXPECT_EQ(t.model(), "titanx");
  EXPECT_EQ(t.str(), "cuda -model=titanx");
  EXPECT_EQ(t.max_num_threads, 1024);
  auto plain = parse_target("cuda");
  EXPECT_EQ(plain.model(), "unknown");
  EXPECT_EQ(plain.str(), "cuda");
  auto mali = parse_target("opencl -device=mali");
  EXPECT_EQ(mali.keys, (std::vector<std::string>{"mali", "mali", "opencl", "gpu"}));
  auto cpu = parse_target("llvm -mcpu=skylake-avx512");
  EXPECT_EQ(cpu.keys, (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(cpu.option_value("mcpu"), "skylake-avx512");
  EXPECT_EQ(cpu.model(), "unknown");
  auto k = parse_target("opencl -keys=adreno,opencl,gpu -device=adreno -max_num_threads=256");
  EXPECT_EQ(k.keys, (std::vector<std::string>{"adreno", "opencl", "gpu", "adreno", "adreno",
                                              "opencl", "gpu"}));
  auto libs = parse_target("cuda  -libs=cublas,cudnn   -model=v100");
  EXPECT_EQ(libs.libs, (std::vector<std::string>{"cublas", "cudnn"}));
  EXPECT_EQ(libs.str(), "cuda -libs=cublas,cudnn -model=v100");
  EXPECT_THROW(parse_target("   "), CompileError);
}

TEST(Json, PythonFloatRepr) {
  EXPECT_EQ(py_float_repr(5.69732536806342e-05), "5.69732536806342e-05");
  EXPECT_EQ(py_float_repr(1e9), "1000000000.0");
  EXPECT_EQ(py_float_repr(1e16), "1e+16");
  EXPECT_EQ(py_float_repr(0.0001), "0.0001");
  EXPECT_EQ(py_float_repr(0.00001), "1e-05");
  EXPECT_EQ(py_float_repr(1535423916.7184713), "1535423916.7184713");
  EXPECT_EQ(py_float_repr(0.1), "0.1");
  EXPECT_EQ(py_float_repr(-2.5), "-2.5");
  EXPECT_EQ(py_json_dumps(Json::parse(R"({"a": [1, 2.0, "x\u00e9\"", null, true]})")),
            R"({"a": [1, 2.0, "x\u00e9\"", null, true]})");
}

TEST(Records, WorkloadKeysBothFormats) {
  const std::string v01 =
      R"({"i": ["cuda -model=titanx", "topi_nn_conv2d", [["TENSOR", [1, 2048, 8, 8], "float32"], ["TENSOR", [192, 2048, 1, 1], "float32"], [1, 1], [0, 0], [1, 1], "NCHW", "float32"], {}, ["conv2d", [1, 2048, 8, 8, "float32"], [192, 2048, 1, 1, "float32"], [1, 1], [0, 0], [1, 1], "NCHW", "float32"], {"i": 8797896, "c": null, "e": [["tile_f", "sp", [6, 1, 32, 1]], ["auto_unroll_max_step", "ot", 1500]], "t": "direct"}], "r": [[5.69732536806342e-05], 0, 14.116215467453003, 1535423916.7184713], "v": 0.1})";
  Record r = decode_record(v01);
  EXPECT_EQ(r.version, 0.1);
  EXPECT_EQ(r.input.target.model(), "titanx");
  EXPECT_EQ(r.input.config.template_key, "direct");
  EXPECT_EQ(r.input.config.index, 8797896);
  EXPECT_FALSE(r.input.config.code_hash.has_value());
  EXPECT_EQ(r.input.config.split("tile_f").size, (std::vector<int64_t>{6, 1, 32, 1}));
  EXPECT_EQ(workload_key(r.input.workload),
            "('conv2d', (1, 2048, 8, 8, 'float32'), (192, 2048, 1, 1, 'float32'), (1, 1), (0, 0), "
            "(1, 1), 'NCHW', 'float32')");
  // the 0.1 workload is what TVM computes from the args (tensor -> shape + dtype, prefixed name)
  EXPECT_EQ(workload_v01("conv2d", r.input.args), r.input.workload);
  EXPECT_EQ(encode_record(r), v01);

  const std::string v02 =
      R"({"input": ["cuda -model=titanx", "conv2d_nchw.cuda", [["TENSOR", [1, 2048, 8, 8], "float32"], ["TENSOR", [192, 2048, 1, 1], "float32"], [1, 1], [0, 0, 0, 0], [1, 1], "float32"], {}], "config": {"index": 8797896, "code_hash": null, "entity": [["tile_f", "sp", [6, 1, 32, 1]]]}, "result": [[5.69732536806342e-05, 6e-05], 0, 14.116215467453003, 1535423916.7184713], "version": 0.2, "tvm_version": "0.7.dev0"})";
  Record q = decode_record(v02);
  EXPECT_EQ(q.version, 0.2);
  EXPECT_EQ(q.tvm_version, "0.7.dev0");
  EXPECT_EQ(workload_key(q.input.workload),
            "('conv2d_nchw.cuda', ('TENSOR', (1, 2048, 8, 8), 'float32'), ('TENSOR', (192, 2048, "
            "1, 1), 'float32'), "
            "(1, 1), (0, 0, 0, 0), (1, 1), 'float32')");
  EXPECT_DOUBLE_EQ(q.result.mean_cost(), (5.69732536806342e-05 + 6e-05) / 2);
  ASSERT_TRUE(q.input.config.cost.has_value());
  EXPECT_DOUBLE_EQ(*q.input.config.cost, q.result.mean_cost());
  EXPECT_EQ(encode_record(q), v02);
  // dense: None becomes 0 in the 0.1 workload
  Json args = Json::parse(
      R"([["TENSOR", [1, 1280], "float32"], ["TENSOR", [1000, 1280], "float32"], null, "float32"])");
  EXPECT_EQ(workload_key(workload_v01("dense", args)),
            "('dense', (1, 1280, 'float32'), (1000, 1280, 'float32'), 0, 'float32')");
}

TEST(Records, NewRecordEncodesInTVMOrder) {
  Record r;
  r.version = 0.2;
  r.tvm_version = "0.7.dev1";
  r.input.target_str = "cuda -model=unknown";
  r.input.task_name = "dense_small_batch.cuda";
  r.input.args = Json::parse(
      R"([["TENSOR", [1, 64], "float32"], ["TENSOR", [10, 64], "float32"], null, "float32"])");
  r.input.config.index = 3;
  r.input.config.set("tile_k", SplitEntity{{-1, 8}});
  r.result.costs = {1e-05};
  r.result.all_cost = 1.5;
  r.result.timestamp = 1600000000.25;
  EXPECT_EQ(
      encode_record(r),
      R"({"input": ["cuda -model=unknown", "dense_small_batch.cuda", [["TENSOR", [1, 64], "float32"], ["TENSOR", [10, 64], "float32"], null, "float32"], {}], "config": {"index": 3, "code_hash": null, "entity": [["tile_k", "sp", [-1, 8]]]}, "result": [[1e-05], 0, 1.5, 1600000000.25], "version": 0.2, "tvm_version": "0.7.dev1"})");
  Record back = decode_record(encode_record(r));
  EXPECT_EQ(back.input.config.split("tile_k").size, (std::vector<int64_t>{-1, 8}));
}

// Every line of every shipped log (TopHub cuda/llvm, seeds, first lines of the other targets)
// decodes and re-encodes to the same bytes.
TEST(Records, RoundTripEveryShippedLine) {
  std::vector<std::string> files = logs_in("tophub");
  for (auto& f : logs_in("tophub/seed")) files.push_back(f);
  for (auto& f : logs_in("tests/data/autotune/other_targets")) files.push_back(f);
  ASSERT_GE(files.size(), 14u + 9u + 30u);
  int lines = 0, bad_line_688 = 0;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.empty() || line[0] == '#') continue;
      try {
        Record r = decode_record(line);
        ASSERT_EQ(encode_record(r), line) << f << ":" << n;
        ++lines;
      } catch (const CompileError& e) {
        // the only malformed line in TVM's logs: cuda_v0.09/v0.10 conv2d_transpose with a 4-field
        // tensor
        EXPECT_NE(std::string(e.what()).find("tensor argument has 4 fields"), std::string::npos)
            << f << ":" << n;
        ++bad_line_688;
      }
    }
  }
  // all non-comment lines of those files but the two above (+16: pool_llvm_v0.03.log, +1296:
  // conv2d_llvm_zen3_avx2.log)
  EXPECT_EQ(lines, 6446 + 16 + 1296);
  EXPECT_EQ(bad_line_688, 2);  // cuda_v0.09.log:688 and cuda_v0.10.log
}

TEST(Records, SaveAndLoad) {
  auto recs = load_records(repo("tophub/seed/vgg16_bs_1.log"));
  ASSERT_EQ(recs.size(), 12u);
  std::string tmp = ::testing::TempDir() + "/autotune_save.log";
  save_records(tmp, recs);
  LoadReport rep;
  auto again = load_records(tmp, {}, &rep);
  ASSERT_EQ(again.size(), recs.size());
  EXPECT_EQ(rep.records, 12);
  EXPECT_TRUE(rep.skipped.empty());
  for (size_t i = 0; i < recs.size(); ++i)
    EXPECT_EQ(encode_record(again[i]), encode_record(recs[i]));
  EXPECT_EQ(again[3].line, 4);
  EXPECT_THROW(load_records(tmp + ".missing"), CompileError);
}
