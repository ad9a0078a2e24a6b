// Invalid layer workloads: topi::build_* checks shapes and attributes before it queries the
// dispatch context (no fallback warning first) and names the wrong value; the winograd template
// only builds the convolutions it computes.
#include "ref.h"

#include <minitvm/autotune/dispatch.h>
#include <minitvm/support/logging.h>
#include <minitvm/topi/layer.h>

using namespace minitvm;

namespace {

/** The CompileError message of `f` ("<no error>" if none), and the warnings it printed. */
template <typename F>
std::pair<std::string, std::vector<std::string>> error_and_warnings(F f) {
  WarningCapture cap;
  std::string msg = "<no error>";
  try {
    f();
  } catch (const CompileError& e) {
    msg = e.what();
  }
  return {msg, cap.messages()};
}

#define EXPECT_LAYER_ERROR(stmt, part)                                                           \
  do {                                                                                           \
    auto [msg, warnings] = error_and_warnings([&] { stmt; });                                    \
    EXPECT_NE(msg.find(part), std::string::npos) << "message: " << msg << "\nmissing: " << part; \
    EXPECT_TRUE(warnings.empty()) << "warned first: " << warnings[0];                            \
  } while (0)

const std::vector<std::string> kTargets{"llvm", "cuda -emulate"};

}  // namespace

TEST(TopiLayerValidation, Conv2dStrideZero) {
  for (const auto& t : kTargets) {
    SCOPED_TRACE(t);
    EXPECT_LAYER_ERROR(topi::build_conv2d({1, 4, 8, 8}, {8, 4, 3, 3}, {{0, 1}, {1, 1}, {1, 1}}, t),
                       "conv2d: stride 0");
    EXPECT_LAYER_ERROR(topi::build_conv2d({1, 4, 8, 8}, {8, 4, 3, 3}, {{1, 1}, {1, 1}, {1, -2}}, t),
                       "conv2d: dilation -2");
  }
}

TEST(TopiLayerValidation, Conv2dKernelLargerThanPaddedInput) {
  for (const auto& t : kTargets) {
    SCOPED_TRACE(t);
    EXPECT_LAYER_ERROR(topi::build_conv2d({1, 4, 3, 3}, {8, 4, 5, 5}, {{1, 1}, {0, 0}, {1, 1}}, t),
                       "conv2d: kernel 5x5 larger than padded input 3x3");
    EXPECT_LAYER_ERROR(
        topi::build_conv2d({1, 4, 3, 3}, {8, 4, 3, 3}, {{1, 1}, {0, 0}, {2, 2}}, t),
        "conv2d: dilated kernel 5x5 (kernel 3x3, dilation 2x2) larger than padded input 3x3");
  }
  // With padding the same kernel fits: 3 + 1 + 1 = 5.
  topi::LayerOptions lo;
  lo.lower_only = true;
  autotune::root_fallback_context().silent = true;
  EXPECT_NO_THROW(
      topi::build_conv2d({1, 4, 3, 3}, {8, 4, 5, 5}, {{1, 1}, {1, 1}, {1, 1}}, "llvm", lo));
  autotune::root_fallback_context().silent = false;
}

TEST(TopiLayerValidation, Conv2dBadShapesAndPadding) {
  for (const auto& t : kTargets) {
    SCOPED_TRACE(t);
    EXPECT_LAYER_ERROR(topi::build_conv2d({1, 4, 8}, {8, 4, 3, 3}, {}, t),
                       "conv2d: data shape 1x4x8 must be 4-D");
    EXPECT_LAYER_ERROR(topi::build_conv2d({1, 4, 0, 8}, {8, 4, 3, 3}, {}, t),
                       "conv2d: data dimension 2 is 0 (shape 1x4x0x8)");
    EXPECT_LAYER_ERROR(topi::build_conv2d({1, 4, 8, 8}, {8, 5, 3, 3}, {}, t),
                       "conv2d: data has 4 input channels but the kernel expects 5");
    EXPECT_LAYER_ERROR(topi::build_conv2d({1, 4, 8, 8}, {8, 4, 3, 3}, {{1, 1}, {1, -1}, {1, 1}}, t),
                       "conv2d: padding -1");
  }
}

TEST(TopiLayerValidation, DepthwiseAndDense) {
  for (const auto& t : kTargets) {
    SCOPED_TRACE(t);
    EXPECT_LAYER_ERROR(
        topi::build_depthwise_conv2d({1, 8, 8, 8}, {8, 1, 3, 3}, {{2, 0}, {1, 1}, {1, 1}}, t),
        "depthwise_conv2d: stride 0");
    EXPECT_LAYER_ERROR(
        topi::build_depthwise_conv2d({1, 8, 4, 4}, {8, 1, 7, 7}, {{1, 1}, {1, 1}, {1, 1}}, t),
        "depthwise_conv2d: kernel 7x7 larger than padded input 6x6");
    EXPECT_LAYER_ERROR(topi::build_depthwise_conv2d({1, 8, 8, 8}, {4, 1, 3, 3}, {}, t),
                       "depthwise_conv2d: data has 8 channels but the kernel has 4");
    EXPECT_LAYER_ERROR(topi::build_dense(1, 0, 16, true, t), "dense: in_dim 0");
    EXPECT_LAYER_ERROR(topi::build_dense(-3, 8, 16, false, t), "dense: batch -3");
  }
}

TEST(TopiLayerValidation, WinogradNeedsStrideOneDilationOne3x3) {
  topi::LayerOptions lo;
  lo.force_template = "winograd";
  lo.lower_only = true;
  // Before: a stride-1 convolution was built (the output shape of stride 1, 8x8 instead of 4x4).
  EXPECT_LAYER_ERROR(
      topi::build_conv2d({1, 4, 8, 8}, {8, 4, 3, 3}, {{2, 2}, {1, 1}, {1, 1}}, "cuda", lo),
      "conv2d: the winograd template needs stride 1, dilation 1 and a 3x3 kernel; got stride 2x2");
  EXPECT_LAYER_ERROR(
      topi::build_conv2d({1, 4, 8, 8}, {8, 4, 3, 3}, {{1, 1}, {2, 2}, {2, 2}}, "cuda", lo),
      "dilation 2x2");
  EXPECT_LAYER_ERROR(
      topi::build_conv2d({1, 4, 8, 8}, {8, 4, 5, 5}, {{1, 1}, {2, 2}, {1, 1}}, "cuda", lo),
      "kernel 5x5");
  EXPECT_LAYER_ERROR(
      topi::build_conv2d({1, 4, 8, 8}, {8, 4, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}, "llvm", lo),
      "the winograd template is a CUDA template");
  lo.force_template = "wingorad";
  EXPECT_LAYER_ERROR(
      topi::build_conv2d({1, 4, 8, 8}, {8, 4, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}, "cuda", lo),
      "conv2d: unknown template 'wingorad'");
  // A valid winograd layer still lowers, with the stride-1 output shape.
  lo.force_template = "winograd";
  autotune::root_fallback_context().silent = true;
  auto L = topi::build_conv2d({1, 4, 8, 8}, {8, 4, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}, "cuda", lo);
  autotune::root_fallback_context().silent = false;
  EXPECT_EQ(L.template_key, "winograd");
  ASSERT_EQ(L.args.size(), 3u);
  auto out = topi::nn::const_shape(L.args[2]);
  EXPECT_EQ(out, (std::vector<int64_t>{1, 8, 8, 8}));
}
