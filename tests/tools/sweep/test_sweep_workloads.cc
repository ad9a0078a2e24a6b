// Decoding tuning-log workloads for the sweep, the references, and run_sweep's report format.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include <minitvm/autotune/record.h>
#include <minitvm/devtools/sweep.h>
#include <minitvm/runtime/nvrtc.h>
#include <minitvm/runtime/ptxas.h>

using namespace minitvm;
namespace sweep = minitvm::topi::sweep;

namespace {

// Seed (0.1) conv2d and depthwise records, a cuda_v0.10 (0.2) record, and unsupported ones.
const char* kConv01 =
    R"({"i": ["cuda -model=unknown", "topi_nn_conv2d", [["TENSOR", [1, 144, 28, 28], "float32"], ["TENSOR", [32, 144, 1, 1], "float32"], [1, 1], [0, 0], [1, 1], "NCHW", "float32"], {}, ["conv2d", [1, 144, 28, 28, "float32"], [32, 144, 1, 1, "float32"], [1, 1], [0, 0], [1, 1], "NCHW", "float32"], {"i": 6688659, "t": "direct", "c": null, "e": [["tile_f", "sp", [-1, 2, 16, 1]], ["tile_y", "sp", [-1, 1, 1, 1]], ["tile_x", "sp", [-1, 1, 14, 2]], ["tile_rc", "sp", [-1, 144]], ["tile_ry", "sp", [-1, 1]], ["tile_rx", "sp", [-1, 1]], ["auto_unroll_max_step", "ot", 512], ["unroll_explicit", "ot", 1]]}], "r": [[5.9e-06], 0, 5.99, 1577107250.36], "v": 0.1})";
const char* kDepthwise01 =
    R"({"i": ["cuda -model=unknown", "topi_nn_depthwise_conv2d_nchw", [["TENSOR", [1, 576, 14, 14], "float32"], ["TENSOR", [576, 1, 3, 3], "float32"], [1, 1], [1, 1], [1, 1], "float32"], {}, ["depthwise_conv2d_nchw", [1, 576, 14, 14, "float32"], [576, 1, 3, 3, "float32"], [1, 1], [1, 1], [1, 1], "float32"], {"i": 1186920, "t": "direct", "c": null, "e": [["tile_f", "sp", [-1, 1, 1, 1]], ["tile_y", "sp", [-1, 7, 2, 1]], ["tile_x", "sp", [-1, 1, 14, 1]], ["auto_unroll_max_step", "ot", 1500], ["unroll_explicit", "ot", 1]]}], "r": [[4.25e-06], 0, 29.9, 1577083282.95], "v": 0.1})";
const char* kConv02 =
    R"({"input": ["cuda -model=titanx", "conv2d_nchw.cuda", [["TENSOR", [1, 2048, 8, 8], "float32"], ["TENSOR", [192, 2048, 1, 1], "float32"], [1, 1], [0, 0, 0, 0], [1, 1], "float32"], {}], "config": {"index": 8797896, "code_hash": null, "entity": [["tile_f", "sp", [6, 1, 32, 1]], ["tile_y", "sp", [4, 1, 2, 1]], ["tile_x", "sp", [1, 1, 8, 1]], ["tile_rc", "sp", [64, 32]], ["tile_rx", "sp", [1, 1]], ["tile_ry", "sp", [1, 1]], ["auto_unroll_max_step", "ot", 1500], ["unroll_explicit", "ot", 1]]}, "result": [[5.69732536806342e-05], 0, 14.116215467453003, 1535423916.7184713], "version": 0.2, "tvm_version": "0.7.dev0"})";
const char* kTranspose02 =
    R"({"input": ["cuda -model=v100", "conv2d_transpose_nchw.cuda", [["TENSOR", [1, 512, 9, 4], "float32"], ["TENSOR", [512, 256, 3, 3], "float32"], [2, 2], [1, 1, 1, 1], "float32", [1, 1]], {}], "config": {"index": 0, "code_hash": null, "entity": [["tile_n", "sp", [-1, 1, 1, 1]]]}, "result": [[1e-05], 0, 1.0, 1535423916.7], "version": 0.2, "tvm_version": "0.7.dev0"})";

autotune::Record rec(const char* line) {
  return autotune::decode_record(line);
}

std::string int8_variant(std::string s) {
  // The same conv2d with int8 data: not covered by our float32 templates.
  for (size_t p; (p = s.find("\"float32\"")) != std::string::npos;) s.replace(p, 9, "\"int8\"");
  return s;
}

}  // namespace

TEST(SweepWorkloads, DecodesV01Conv2d) {
  std::string why;
  auto w = sweep::decode_workload(rec(kConv01), &why);
  ASSERT_TRUE(w) << why;
  EXPECT_EQ(w->op, sweep::OpKind::Conv2d);
  EXPECT_EQ(w->data_shape, (std::vector<int64_t>{1, 144, 28, 28}));
  EXPECT_EQ(w->kernel_shape, (std::vector<int64_t>{32, 144, 1, 1}));
  EXPECT_EQ(w->attrs.padding, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(w->macs(), 144LL * 32 * 28 * 28);
  EXPECT_EQ(w->describe(), "conv2d 1x144x28x28 k32x144x1x1 s1,1 p0,0 d1,1");
}

TEST(SweepWorkloads, DecodesV01DepthwiseAndV02Conv2d) {
  auto d = sweep::decode_workload(rec(kDepthwise01), nullptr);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->op, sweep::OpKind::Depthwise);
  EXPECT_EQ(d->macs(), 576LL * 14 * 14 * 9);
  auto c = sweep::decode_workload(rec(kConv02), nullptr);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->op, sweep::OpKind::Conv2d);
  EXPECT_EQ(c->attrs.padding, (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(c->task_name, "conv2d_nchw.cuda");
}

TEST(SweepWorkloads, UnsupportedAreSkippedWithReason) {
  std::string why;
  EXPECT_FALSE(sweep::decode_workload(rec(kTranspose02), &why));
  EXPECT_NE(why.find("conv2d_transpose_nchw.cuda not covered"), std::string::npos) << why;
  EXPECT_FALSE(sweep::decode_workload(rec(int8_variant(kConv01).c_str()), &why));
  EXPECT_NE(why.find("int8"), std::string::npos) << why;
  // Duplicates of a workload count once.
  auto c =
      sweep::collect_workloads({rec(kConv01), rec(kConv01), rec(kTranspose02), rec(kDepthwise01)});
  EXPECT_EQ(c.supported.size(), 2u);
  EXPECT_EQ(c.skipped.size(), 1u);
}

TEST(SweepReference, Conv2dAndDenseByHand) {
  // 1x1x3x3 input, 1x1x2x2 kernel of ones, stride 1, no padding: sums of 2x2 windows.
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9}, k{1, 1, 1, 1};
  topi::nn::Conv2dAttrs a;
  auto y = sweep::reference_conv2d({1, 1, 3, 3}, {1, 1, 2, 2}, a, false, x, k);
  EXPECT_EQ(y, (std::vector<float>{12, 16, 24, 28}));
  // Padding 1 (both sides), stride 2: corners only see one window element each at (0,0).
  a.padding = {1, 1};
  a.stride = {2, 2};
  y = sweep::reference_conv2d({1, 1, 3, 3}, {1, 1, 2, 2}, a, false, x, k);
  EXPECT_EQ(y, (std::vector<float>{1, 5, 11, 28}));
  // Depthwise multiplier 2: channel c*2+m uses kernel (c, m).
  a = {};
  auto dw = sweep::reference_conv2d({1, 1, 1, 1}, {1, 2, 1, 1}, a, true, {3}, {2, -1});
  EXPECT_EQ(dw, (std::vector<float>{6, -3}));
  std::vector<float> b{10, 20};
  auto dn = sweep::reference_dense(1, 2, 2, {1, 2}, {1, 1, 3, -1}, &b);
  EXPECT_EQ(dn, (std::vector<float>{13, 21}));
  EXPECT_DOUBLE_EQ(sweep::max_relative_error({1, 2}, {1, 2}), 0);
  EXPECT_GT(sweep::max_relative_error({1, 2.5f}, {1, 2}), 0.2);
}

TEST(SweepRun, ReportsPassesSkipsAndClosingLine) {
  if (!runtime::nvrtc_available() || runtime::find_ptxas().empty())
    GTEST_SKIP() << "NVRTC or ptxas not found";
  std::string path = testing::TempDir() + "/sweep_small.log";
  {
    std::ofstream f(path);
    f << kConv01 << "\n" << kDepthwise01 << "\n" << kTranspose02 << "\n";
  }
  sweep::SweepOptions opt;
  std::ostringstream out;
  auto s = sweep::run_sweep({path}, opt, out);
  EXPECT_EQ(s.passed, 2) << out.str();
  EXPECT_EQ(s.failed, 0) << out.str();
  EXPECT_EQ(s.skipped, 1);
  std::string text = out.str();
  EXPECT_NE(text.find("skipped 1 workload(s): operator conv2d_transpose_nchw.cuda not covered"),
            std::string::npos)
      << text;
  EXPECT_NE(text.rfind("2 passed, 0 failed\n"), std::string::npos) << text;
  // --limit 1 checks only the first supported workload.
  opt.limit = 1;
  std::ostringstream out1;
  EXPECT_EQ(sweep::run_sweep({path}, opt, out1).passed, 1);
  std::remove(path.c_str());
}

TEST(SweepRun, KeyMismatchIsAFailure) {
  // A record whose workload key names padding as 4 values where ours uses 2 (0.1 symmetric) would
  // never reach our template: the check reports it instead of silently using the fallback.
  std::string line = kConv01;
  size_t at = line.find("[1, 1], [0, 0], [1, 1], \"NCHW\", \"float32\"], {\"i\"");
  ASSERT_NE(at, std::string::npos);
  line.replace(at + 8, 6, "[0, 0, 0, 0]");
  auto r = rec(line.c_str());
  auto w = sweep::decode_workload(r, nullptr);
  ASSERT_TRUE(w);
  autotune::ApplyHistoryBest best({r});
  auto res = sweep::check_workload(*w, best);
  EXPECT_FALSE(res.passed);
  EXPECT_EQ(res.stage, "key") << res.reason;
}
