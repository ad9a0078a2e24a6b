// frontend::onnx tensor ops: ONNX's own node tests (libonnx-testdata) for Conv / Gemm / Relu / Add
// / Flatten / BatchNormalization through the loader (ops compiled for llvm), depthwise and
// SAME_UPPER convolutions against a naive grouped-convolution reference, and the unsupported-group
// error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include "minitvm/frontend/onnx_loader.h"
#include "minitvm/frontend/onnx_ops.h"
#include "minitvm/frontend/pool_executor.h"

#ifdef MINITVM_HAVE_ONNX
#include <onnx/onnx_pb.h>
#endif

using namespace minitvm;
using namespace minitvm::frontend;
namespace fs = std::filesystem;
namespace mo = minitvm::frontend::onnx;

namespace {

const char* kNodeTests = "/usr/share/libonnx-testdata/data/node";

HostArray random_array(std::vector<int64_t> shape, std::mt19937& rng) {
  HostArray a(DataType::Float(32), std::move(shape));
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (int64_t i = 0; i < a.numel(); ++i) a.set(i, d(rng));
  return a;
}

// Naive grouped 2-D convolution (ONNX semantics), pads = {top, left, bottom, right}.
HostArray naive_conv(const HostArray& x, const HostArray& w, const HostArray* b, int64_t group,
                     std::vector<int64_t> st, std::vector<int64_t> pads, std::vector<int64_t> dil) {
  int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  int64_t M = w.shape()[0], CG = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
  int64_t OH = (H + pads[0] + pads[2] - ((KH - 1) * dil[0] + 1)) / st[0] + 1;
  int64_t OW = (W + pads[1] + pads[3] - ((KW - 1) * dil[1] + 1)) / st[1] + 1;
  HostArray y(DataType::Float(32), {N, M, OH, OW});
  int64_t MG = M / group;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double acc = b ? b->get(m) : 0.0;
          for (int64_t cg = 0; cg < CG; ++cg)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t c = (m / MG) * CG + cg, ih = oh * st[0] - pads[0] + kh * dil[0],
                        iw = ow * st[1] - pads[1] + kw * dil[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                acc += x.get(((n * C + c) * H + ih) * W + iw) *
                       w.get(((m * CG + cg) * KH + kh) * KW + kw);
              }
          y.set(((n * M + m) * OH + oh) * OW + ow, acc);
        }
  return y;
}

void expect_close(const HostArray& got, const HostArray& want) {
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < got.numel(); ++i)
    ASSERT_NEAR(got.get(i), want.get(i), 1e-4) << "at " << i;
}

}  // namespace

TEST(OnnxOps, NodeTestsFromLibonnxTestdata) {
  if (!mo::available()) GTEST_SKIP() << "minitvm built without ONNX support";
  if (!fs::exists(kNodeTests))
    GTEST_SKIP() << "libonnx-testdata is not installed (" << kNodeTests << " missing)";
  const std::vector<std::string> prefixes = {"test_conv_with_", "test_gemm_", "test_flatten_"};
  const std::vector<std::string> exact = {"test_relu",
                                          "test_add",
                                          "test_add_bcast",
                                          "test_add_uint8",
                                          "test_batchnorm_epsilon",
                                          "test_batchnorm_example"};
  std::vector<std::string> dirs;
  for (const auto& e : fs::directory_iterator(kNodeTests)) {
    std::string n = e.path().filename().string();
    bool take = std::find(exact.begin(), exact.end(), n) != exact.end();
    for (const auto& p : prefixes) take = take || n.rfind(p, 0) == 0;
    if (take) dirs.push_back(e.path().string());
  }
  std::sort(dirs.begin(), dirs.end());
  ASSERT_GE(dirs.size(),
            20u);  // 1.12: 4 conv + 11 gemm + 9 flatten + relu, 3 add, 2 batchnorm = 30
  ReferencePoolExecutor ref;
  int passed = 0;
  for (const auto& d : dirs) {
    mo::NodeTestResult r = mo::run_node_test(d, ref);
    EXPECT_TRUE(r.passed) << d << ":\n"
                          << (r.failures.empty() ? std::string("?") : r.failures.front());
    passed += r.passed;
  }
  std::cout << passed << " of " << dirs.size() << " ONNX node tests passed\n";
}

TEST(OnnxOps, DepthwiseAndSameUpperConvMatchNaive) {
  std::mt19937 rng(3);
  HostArray x = random_array({1, 4, 8, 6}, rng), w = random_array({8, 1, 3, 3}, rng),
            b = random_array({8}, rng);
  mo::TensorOpAttrs a;
  a.ints["group"] = 4;
  a.int_lists["strides"] = {2, 1};
  a.strings["auto_pad"] = "SAME_UPPER";
  auto out = mo::run_tensor_op("dw", "Conv", a, {&x, &w, &b});
  // out = ceil(in / stride); rows: 4 outputs need 9 of 8 rows -> one pad row, at the bottom for
  // SAME_UPPER, at the top for SAME_LOWER; cols: 6 outputs need 8 -> pad 1 left, 1 right.
  expect_close(out.at(0), naive_conv(x, w, &b, 4, {2, 1}, {0, 1, 1, 1}, {1, 1}));
  a.strings["auto_pad"] = "SAME_LOWER";
  auto lower = mo::run_tensor_op("dw", "Conv", a, {&x, &w, &b});
  expect_close(lower.at(0), naive_conv(x, w, &b, 4, {2, 1}, {1, 1, 0, 1}, {1, 1}));

  mo::TensorOpAttrs g1;
  g1.int_lists["pads"] = {0, 1, 2, 1};
  g1.int_lists["dilations"] = {2, 1};
  HostArray w1 = random_array({5, 4, 3, 2}, rng);
  auto out1 = mo::run_tensor_op("c", "Conv", g1, {&x, &w1, nullptr});
  expect_close(out1.at(0), naive_conv(x, w1, nullptr, 1, {1, 1}, {0, 1, 2, 1}, {2, 1}));
}

TEST(OnnxOps, UnsupportedGroupNamesNodeAndAttribute) {
  std::mt19937 rng(5);
  HostArray x = random_array({1, 4, 5, 5}, rng), w = random_array({4, 2, 3, 3}, rng);
  mo::TensorOpAttrs a;
  a.ints["group"] = 2;
  try {
    mo::run_tensor_op("conv_g2", "Conv", a, {&x, &w});
    FAIL() << "group = 2 accepted";
  } catch (const CompileError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("conv_g2"), std::string::npos) << m;
    EXPECT_NE(m.find("'group' = 2"), std::string::npos) << m;
  }
}

TEST(OnnxOps, GemmBroadcastBiasAgainstNaive) {
  std::mt19937 rng(9);
  HostArray A = random_array({4, 3}, rng), B = random_array({5, 4}, rng),
            C = random_array({1, 5}, rng);
  mo::TensorOpAttrs a;
  a.ints["transA"] = 1;
  a.ints["transB"] = 1;
  a.floats["alpha"] = 0.5;
  a.floats["beta"] = -2.0;
  auto out = mo::run_tensor_op("g", "Gemm", a, {&A, &B, &C});
  HostArray want(DataType::Float(32), {3, 5});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      double s = 0;
      for (int64_t k = 0; k < 4; ++k) s += A.get(k * 3 + i) * B.get(j * 4 + k);
      want.set(i * 5 + j, 0.5 * s - 2.0 * C.get(j));
    }
  expect_close(out.at(0), want);
}
